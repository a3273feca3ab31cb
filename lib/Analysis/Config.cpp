//===- Config.cpp - .cuda-l1.yaml and NOLINT suppressions ------------------===//
#include "cudal1/Analysis/Config.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "cudal1/Support/Yaml.h"

#include <map>
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

const char *defaultRuleGlobs() {
  // Off by default, each enabled by naming it (--rules=<name> or a config's
  // Rules): their fixes leave the SASS nvcc 13 emits unchanged on nearly
  // every real program (utils/sass-oracle.py over HeCBench,
  // docs/analysis-precision.md): nvcc already multiplies by the exact
  // reciprocal of a power of two, and `const` alone changes no instruction.
  return "*,-algebraic-division-constant,-memory-const-pointer";
}

namespace {

/// CheckOptions: a mapping "<rule>.<Option>: value", or clang-tidy's list of
/// "- key: ...  value: ...".
struct OptionEntry {
  std::string Key, Value;
};
struct OptionList {
  std::vector<OptionEntry> Items;
};
struct OptionMap {
  std::map<std::string, std::string> Values;
};
struct OptionsValue {
  OptionMap Map;
  OptionList List;
  std::string Scalar; ///< an error unless empty (a null value)
};

/// Harness: the name of a spec file, or an inline spec (parsed later, per
/// kernel, by lib/Verify: only its position is taken here).
struct HarnessMap {
  const char *Start = nullptr;
  std::map<std::string, AnyValue> Keys;
};
/// A list where a Harness: value was expected: an error at its first item.
struct NotAHarness {};
struct HarnessValue {
  LocatedString File;
  HarnessMap Map;
  NotAHarness List;
  bool IsMap = false;
};

/// LLM: every value read as a located string, converted and checked after
/// reading (errors at the value). ApiKey is read only to refuse it.
struct RawLlm {
  std::optional<LocatedString> Endpoint, Model, ApiKeyEnv, ApiKey, Temperature,
      MaxTokens, Timeout, Retries, Backoff, Concurrency, Rounds, Candidates,
      TokenBudget, TimeBudget, Exemplars, ExemplarTemperature, Failures,
      Prompts, Store;
};

struct RawConfig {
  std::optional<CommaList> Rules, Checks, WarningsAsErrors;
  std::optional<OptionsValue> CheckOptions;
  std::optional<HarnessValue> Harness;
  std::optional<RawLlm> Llm;
};

} // namespace
} // namespace cudal1

namespace llvm {
namespace yaml {
using namespace cudal1;
template <> struct MappingTraits<OptionEntry> {
  static void mapping(IO &IO, OptionEntry &E) {
    IO.mapRequired("key", E.Key);
    IO.mapOptional("value", E.Value);
  }
};
template <> struct SequenceTraits<OptionList> {
  static size_t size(IO &, OptionList &L) { return L.Items.size(); }
  static OptionEntry &element(IO &, OptionList &L, size_t I) {
    if (I >= L.Items.size())
      L.Items.resize(I + 1);
    return L.Items[I];
  }
};
template <> struct CustomMappingTraits<OptionMap> {
  static void inputOne(IO &IO, StringRef Key, OptionMap &M) {
    IO.mapRequired(Key.str().c_str(), M.Values[Key.str()]);
  }
  static void output(IO &, OptionMap &) {}
};
template <> struct PolymorphicTraits<OptionsValue> {
  static NodeKind getKind(const OptionsValue &) { return NodeKind::Map; }
  static std::string &getAsScalar(OptionsValue &V) { return V.Scalar; }
  static OptionList &getAsSequence(OptionsValue &V) { return V.List; }
  static OptionMap &getAsMap(OptionsValue &V) { return V.Map; }
};
template <> struct CustomMappingTraits<HarnessMap> {
  static void inputOne(IO &IO, StringRef Key, HarnessMap &M) {
    if (!M.Start)
      if (YamlReader *R = YamlReader::of(IO))
        if (const Node *N = R->input().getCurrentNode())
          M.Start = N->getSourceRange().Start.getPointer();
    IO.mapRequired(Key.str().c_str(), M.Keys[Key.str()]);
  }
  static void output(IO &, HarnessMap &) {}
};
template <> struct SequenceTraits<NotAHarness> {
  static size_t size(IO &, NotAHarness &) { return 0; }
  static std::string &element(IO &IO, NotAHarness &, size_t) {
    static std::string Ignored;
    IO.setError("Harness must be a harness spec (a mapping, usually "
                "'kernels:'; docs/harness.md) or the name of a spec file");
    return Ignored;
  }
};
template <> struct PolymorphicTraits<HarnessValue> {
  static NodeKind getKind(const HarnessValue &) { return NodeKind::Scalar; }
  static LocatedString &getAsScalar(HarnessValue &V) { return V.File; }
  static NotAHarness &getAsSequence(HarnessValue &V) { return V.List; }
  static HarnessMap &getAsMap(HarnessValue &V) {
    V.IsMap = true;
    return V.Map;
  }
};
template <> struct MappingTraits<RawLlm> {
  static constexpr const char *Known[] = {
      "Endpoint", "Model", "ApiKeyEnv", "ApiKey", "Temperature", "MaxTokens",
      "Timeout", "Retries", "Backoff", "Concurrency", "Rounds", "Candidates",
      "TokenBudget", "TimeBudget", "Exemplars", "ExemplarTemperature",
      "Failures", "Prompts", "Store"};
  static void mapping(IO &IO, RawLlm &L) {
    // An unknown key under LLM: is named with the keys LLM: knows.
    for (StringRef K : IO.keys()) {
      if (llvm::is_contained(Known, K))
        continue;
      LocatedString At;
      IO.mapOptional(K.str().c_str(), At);
      std::string Msg = "LLM: unknown key '" + K.str() + "' (expected ";
      for (const char *N : Known)
        if (StringRef(N) != "ApiKey")
          Msg += std::string(N) + (StringRef(N) == "Store" ? ")" : ", ");
      if (YamlReader *R = YamlReader::of(IO))
        R->fail(At.Line, At.Col, Msg);
      IO.setError(Msg);
      return;
    }
    IO.mapOptional("Endpoint", L.Endpoint);
    IO.mapOptional("Model", L.Model);
    IO.mapOptional("ApiKeyEnv", L.ApiKeyEnv);
    IO.mapOptional("ApiKey", L.ApiKey);
    IO.mapOptional("Temperature", L.Temperature);
    IO.mapOptional("MaxTokens", L.MaxTokens);
    IO.mapOptional("Timeout", L.Timeout);
    IO.mapOptional("Retries", L.Retries);
    IO.mapOptional("Backoff", L.Backoff);
    IO.mapOptional("Concurrency", L.Concurrency);
    IO.mapOptional("Rounds", L.Rounds);
    IO.mapOptional("Candidates", L.Candidates);
    IO.mapOptional("TokenBudget", L.TokenBudget);
    IO.mapOptional("TimeBudget", L.TimeBudget);
    IO.mapOptional("Exemplars", L.Exemplars);
    IO.mapOptional("ExemplarTemperature", L.ExemplarTemperature);
    IO.mapOptional("Failures", L.Failures);
    IO.mapOptional("Prompts", L.Prompts);
    IO.mapOptional("Store", L.Store);
  }
};
template <> struct MappingTraits<RawConfig> {
  static void mapping(IO &IO, RawConfig &C) {
    IO.mapOptional("Rules", C.Rules);
    IO.mapOptional("Checks", C.Checks);
    IO.mapOptional("WarningsAsErrors", C.WarningsAsErrors);
    IO.mapOptional("CheckOptions", C.CheckOptions);
    IO.mapOptional("Harness", C.Harness);
    IO.mapOptional("LLM", C.Llm);
  }
};
} // namespace yaml
} // namespace llvm

namespace cudal1 {

namespace {
/// The inline Harness: value: from its first key to the next top-level key
/// (or the end), everything else blanked out so that the spec parser reports
/// the configuration's own lines and columns.
ConfigHarness inlineHarness(StringRef Buf, const char *Start) {
  size_t B = Start ? Start - Buf.data() : 0;
  // A flow mapping's range starts at its first key: include the '{'.
  size_t Brace = B;
  while (Brace > 0 && (Buf[Brace - 1] == ' ' || Buf[Brace - 1] == '\t'))
    --Brace;
  if (Brace > 0 && Buf[Brace - 1] == '{')
    B = Brace - 1;
  size_t E = Buf.size();
  size_t LineEnd = Buf.find('\n', B);
  while (LineEnd != StringRef::npos && LineEnd + 1 < Buf.size()) {
    char C = Buf[LineEnd + 1];
    if (C != ' ' && C != '\t' && C != '\n' && C != '\r' && C != '#') {
      E = LineEnd + 1;
      break;
    }
    LineEnd = Buf.find('\n', LineEnd + 1);
  }
  ConfigHarness H;
  H.SpecText = blankOutside(Buf, B, E);
  auto [L, C] = lineColumnOf(Buf, Buf.data() + B);
  H.Line = L;
  H.Column = C;
  return H;
}

/// `Harness: <file>`, relative to the configuration's folder.
std::string harnessFile(StringRef Config, StringRef F) {
  SmallString<256> P(F);
  if (!sys::path::is_absolute(P)) {
    P = sys::path::parent_path(Config);
    sys::path::append(P, F);
  }
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, true);
  return std::string(P);
}

/// Converts the LLM: values; false with "<line>:<col>: LLM: <key>: <problem>"
/// (without the file) in \p Error.
bool convertLlm(const RawLlm &R, StringRef Config, LlmOverrides &Out,
                std::string &Error) {
  auto Fail = [&](const LocatedString &V, StringRef Key, const Twine &Why) {
    Error = (Twine(V.Line) + ":" + Twine(V.Col) + ": LLM: " + Key + ": " + Why)
                .str();
    return false;
  };
  if (R.ApiKey) // its value is never repeated, not even in this message
    return Fail(*R.ApiKey, "ApiKey",
                "API keys are never read from a configuration file; put the "
                "key in an environment variable and name the variable with "
                "ApiKeyEnv (default OPENAI_API_KEY)");
  if (R.Endpoint) {
    StringRef E = R.Endpoint->Value;
    if (!E.empty() && !E.starts_with("http://") && !E.starts_with("https://"))
      return Fail(*R.Endpoint, "Endpoint",
                  "expected an http:// or https:// URL, e.g. "
                  "http://localhost:8000/v1");
    Out.Endpoint = E.str();
  }
  if (R.Model)
    Out.Model = R.Model->Value;
  if (R.ApiKeyEnv) {
    StringRef N = R.ApiKeyEnv->Value;
    if (N.empty() || N.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
                                         "klmnopqrstuvwxyz0123456789_") !=
                         StringRef::npos)
      return Fail(*R.ApiKeyEnv, "ApiKeyEnv",
                  "expected the name of an environment variable (letters, "
                  "digits, '_')");
    Out.ApiKeyEnv = N.str();
  }
  auto Unsigned = [&](const std::optional<LocatedString> &V, StringRef Key,
                      uint64_t Min, std::optional<unsigned> *To32,
                      std::optional<uint64_t> *To64) {
    if (!V)
      return true;
    uint64_t N;
    if (StringRef(V->Value).trim().getAsInteger(10, N) || N < Min ||
        (To32 && N > UINT32_MAX))
      return Fail(*V, Key,
                  "expected a whole number of at least " + Twine(Min) +
                      ", got '" + V->Value + "'");
    if (To32)
      *To32 = unsigned(N);
    else
      *To64 = N;
    return true;
  };
  auto Real = [&](const std::optional<LocatedString> &V, StringRef Key,
                  double Min, double Max, std::optional<double> &To) {
    if (!V)
      return true;
    double D;
    if (StringRef(V->Value).trim().getAsDouble(D) || D < Min || D > Max) {
      std::string M;
      raw_string_ostream(M) << format("expected a number from %g to %g", Min,
                                      Max)
                            << ", got '" << V->Value << "'";
      return Fail(*V, Key, M);
    }
    To = D;
    return true;
  };
  auto Path = [&](const std::optional<LocatedString> &V,
                  std::optional<std::string> &To) {
    if (V && !V->Value.empty())
      To = harnessFile(Config, V->Value);
  };
  Path(R.Prompts, Out.PromptDir);
  Path(R.Store, Out.StoreDir);
  return Unsigned(R.MaxTokens, "MaxTokens", 1, &Out.MaxTokens, nullptr) &&
         Unsigned(R.Timeout, "Timeout", 1, &Out.TimeoutSeconds, nullptr) &&
         Unsigned(R.Retries, "Retries", 0, &Out.Retries, nullptr) &&
         Unsigned(R.Concurrency, "Concurrency", 1, &Out.Concurrency,
                  nullptr) &&
         Unsigned(R.Rounds, "Rounds", 0, &Out.Rounds, nullptr) &&
         Unsigned(R.Candidates, "Candidates", 1, &Out.Candidates, nullptr) &&
         Unsigned(R.TokenBudget, "TokenBudget", 0, nullptr,
                  &Out.TokenBudget) &&
         Unsigned(R.TimeBudget, "TimeBudget", 0, &Out.TimeBudgetSeconds,
                  nullptr) &&
         Unsigned(R.Exemplars, "Exemplars", 0, &Out.Exemplars, nullptr) &&
         Unsigned(R.Failures, "Failures", 0, &Out.Failures, nullptr) &&
         Real(R.Temperature, "Temperature", 0, 2, Out.Temperature) &&
         Real(R.Backoff, "Backoff", 0, 600, Out.BackoffSeconds) &&
         Real(R.ExemplarTemperature, "ExemplarTemperature", 0.01, 100,
              Out.ExemplarTemperature);
}
} // namespace

bool parseConfig(StringRef Text, StringRef Path, AnalysisConfig &Out,
                 std::string &Error) {
  Out.Source = Path.str();
  RawConfig Raw;
  YamlReader R(Text, Path.str());
  bool Ok = R.read(Raw);
  auto Fail = [&](std::string Msg) {
    // "<file>:<l>:<c>: <msg>" -> "<file>:<l>:<c>: error: <msg>"
    size_t At = Msg.find(": ", Path.size() + 1);
    if (At != std::string::npos)
      Msg.insert(At + 2, "error: ");
    Error = Msg;
    return false;
  };
  if (!Ok) {
    std::string E = R.error();
    if (E.find(": unknown key '") != std::string::npos) // say which are known
      E += " (expected Rules, WarningsAsErrors, CheckOptions, LLM, Harness)";
    return Fail(E);
  }
  // A key without a value ("Rules:") counts as not given.
  for (auto [From, To] : {std::pair(&Raw.Checks, &Out.Rules),
                          std::pair(&Raw.Rules, &Out.Rules),
                          std::pair(&Raw.WarningsAsErrors,
                                    &Out.WarningsAsErrors)})
    if (*From && (*From)->given())
      *To = (*From)->joined();
  if (Raw.CheckOptions) {
    for (auto &KV : Raw.CheckOptions->Map.Values)
      Out.Options.Values[KV.first] = KV.second;
    for (const OptionEntry &E : Raw.CheckOptions->List.Items)
      Out.Options.Values[E.Key] = E.Value;
  }
  if (Raw.Llm) {
    LlmOverrides L;
    std::string E;
    if (!convertLlm(*Raw.Llm, Path, L, E))
      return Fail(Path.str() + ":" + E);
    Out.Llm = std::move(L);
  }
  if (Raw.Harness) {
    if (Raw.Harness->IsMap && Raw.Harness->Map.Start)
      Out.Harness = inlineHarness(Text, Raw.Harness->Map.Start);
    else if (!Raw.Harness->IsMap && !Raw.Harness->File.Value.empty()) {
      ConfigHarness H;
      H.SpecFile = harnessFile(Path, Raw.Harness->File.Value);
      H.Line = Raw.Harness->File.Line;
      H.Column = Raw.Harness->File.Col;
      Out.Harness = std::move(H);
    }
  }
  return true;
}

std::string blankOutside(StringRef Text, size_t Begin, size_t End) {
  std::string Out(Text.size(), ' ');
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n' || (I >= Begin && I < End))
      Out[I] = Text[I];
  return Out;
}

std::string findConfigFile(StringRef Dir) {
  SmallString<256> D(Dir);
  sys::fs::make_absolute(D);
  while (!D.empty()) {
    SmallString<256> F(D);
    sys::path::append(F, ".cuda-l1.yaml");
    if (sys::fs::is_regular_file(F))
      return std::string(F);
    StringRef P = sys::path::parent_path(D);
    if (P == D)
      break;
    D.resize(P.size()); // P is a prefix of D (assigning D from it would read
                        // the buffer it overwrites)
  }
  return "";
}

static std::string yamlQuote(StringRef S) {
  std::string R = "'";
  for (char C : S) {
    if (C == '\'')
      R += "''";
    else
      R += C;
  }
  return R + "'";
}

/// `Harness:` and its inline value as written in the configuration (from
/// the blanked-out text: the value's lines, indentation kept; a flow mapping
/// on the key's own line), with a comment naming where it came from.
static std::string inlineHarnessYaml(StringRef SpecText, unsigned Line,
                                     StringRef Source) {
  SmallVector<StringRef, 64> Lines;
  SpecText.split(Lines, '\n');
  std::string Body;
  bool First = true, Flow = false;
  for (size_t I = Line ? Line - 1 : 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].rtrim(" \t\r");
    if (First) {
      if (L.trim().empty())
        continue;
      Flow = L.ltrim().starts_with("{");
      if (Flow)
        L = L.ltrim();
      First = false;
    }
    Body += L.str() + "\n";
  }
  while (StringRef(Body).ends_with("\n\n"))
    Body.pop_back();
  std::string Out = "# Harness: from " + Source.str() + ":" +
                    std::to_string(Line) + "\n";
  return Out + (Flow ? "Harness: " : "Harness:\n") + Body;
}

/// `LLM:` with the values given (never a key: only the variable's name is
/// ever known).
static void dumpLlm(const LlmOverrides &L, raw_ostream &OS) {
  OS << "LLM:\n";
  auto Str = [&](const char *K, const std::optional<std::string> &V) {
    if (V)
      OS << "  " << K << ": " << yamlQuote(*V) << "\n";
  };
  auto Num = [&](const char *K, const auto &V) {
    if (V)
      OS << "  " << K << ": " << *V << "\n";
  };
  auto Real = [&](const char *K, const std::optional<double> &V) {
    if (V)
      OS << "  " << K << ": " << format("%g", *V) << "\n";
  };
  Str("Endpoint", L.Endpoint);
  Str("Model", L.Model);
  Str("ApiKeyEnv", L.ApiKeyEnv);
  Real("Temperature", L.Temperature);
  Num("MaxTokens", L.MaxTokens);
  Num("Timeout", L.TimeoutSeconds);
  Num("Retries", L.Retries);
  Real("Backoff", L.BackoffSeconds);
  Num("Concurrency", L.Concurrency);
  Num("Rounds", L.Rounds);
  Num("Candidates", L.Candidates);
  Num("TokenBudget", L.TokenBudget);
  Num("TimeBudget", L.TimeBudgetSeconds);
  Num("Exemplars", L.Exemplars);
  Real("ExemplarTemperature", L.ExemplarTemperature);
  Num("Failures", L.Failures);
  Str("Prompts", L.PromptDir);
  Str("Store", L.StoreDir);
}

std::string dumpConfig(const AnalysisConfig &C,
                       const std::vector<RuleInfo> &Rules) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "---\n";
  OS << "Rules: " << yamlQuote(C.Rules.value_or(defaultRuleGlobs())) << "\n";
  OS << "WarningsAsErrors: " << yamlQuote(C.WarningsAsErrors.value_or(""))
     << "\n";
  OS << "CheckOptions:\n";
  std::map<std::string, std::string> All;
  // For every C++ and YAML rule (lib/Rules/SetupKernels.h); `<rule>.`
  // overrides it for one rule.
  All["*.IncludeSetupKernels"] = "false";
  for (const RuleInfo &R : Rules)
    for (auto &O : R.DefaultOptions)
      All[R.Id + "." + O.first] = O.second;
  for (auto &O : C.Options.Values)
    All[O.first] = O.second;
  if (All.empty())
    OS << "  {}\n";
  for (auto &O : All)
    OS << "  " << (O.first[0] == '*' ? "'" + O.first + "'" : O.first) << ": "
       << yamlQuote(O.second) << "\n";
  if (C.Harness) {
    if (!C.Harness->SpecFile.empty())
      OS << "Harness: " << yamlQuote(C.Harness->SpecFile) << "\n";
    else
      OS << inlineHarnessYaml(C.Harness->SpecText, C.Harness->Line,
                              C.Source);
  }
  if (C.Llm)
    dumpLlm(*C.Llm, OS);
  OS << "...\n";
  return S;
}

namespace {
/// Finds "NOLINT..." markers on one line; returns whether \p Marker (e.g.
/// "NOLINTNEXTLINE") applies to \p RuleId.
bool markerApplies(StringRef LineText, StringRef Marker, StringRef RuleId) {
  size_t Pos = 0;
  while ((Pos = LineText.find(Marker, Pos)) != StringRef::npos) {
    StringRef Rest = LineText.substr(Pos + Marker.size());
    Pos += Marker.size();
    // "NOLINT" must not match "NOLINTNEXTLINE" / "NOLINTBEGIN".
    if (!Rest.empty() && (isalpha((unsigned char)Rest[0]) || Rest[0] == '_'))
      continue;
    if (!Rest.starts_with("("))
      return true;
    size_t Close = Rest.find(')');
    if (Close == StringRef::npos)
      return true;
    GlobList G(Rest.substr(1, Close - 1));
    if (G.contains(RuleId))
      return true;
  }
  return false;
}
} // namespace

bool isSuppressed(StringRef FileText, unsigned Line, StringRef RuleId) {
  SmallVector<StringRef, 0> Lines;
  FileText.split(Lines, '\n');
  if (Line == 0 || Line > Lines.size())
    return false;
  if (markerApplies(Lines[Line - 1], "NOLINT", RuleId))
    return true;
  if (Line >= 2 && markerApplies(Lines[Line - 2], "NOLINTNEXTLINE", RuleId))
    return true;
  int Depth = 0;
  for (unsigned I = 0; I + 1 < Line; ++I) {
    if (markerApplies(Lines[I], "NOLINTBEGIN", RuleId))
      ++Depth;
    if (markerApplies(Lines[I], "NOLINTEND", RuleId) && Depth > 0)
      --Depth;
  }
  return Depth > 0;
}

} // namespace cudal1
