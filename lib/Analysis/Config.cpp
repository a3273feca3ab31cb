//===- Config.cpp - .cuda-l1.yaml and NOLINT suppressions ------------------===//
#include "cudal1/Analysis/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "cudal1/Support/Yaml.h"

#include <map>
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

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

struct RawConfig {
  std::optional<CommaList> Rules, Checks, WarningsAsErrors;
  std::optional<OptionsValue> CheckOptions;
  std::optional<HarnessValue> Harness;
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
template <> struct MappingTraits<RawConfig> {
  static void mapping(IO &IO, RawConfig &C) {
    IO.mapOptional("Rules", C.Rules);
    IO.mapOptional("Checks", C.Checks);
    IO.mapOptional("WarningsAsErrors", C.WarningsAsErrors);
    IO.mapOptional("CheckOptions", C.CheckOptions);
    IO.mapOptional("Harness", C.Harness);
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
      E += " (expected Rules, WarningsAsErrors, CheckOptions, Harness)";
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
    D = P;
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
  for (const RuleInfo &R : Rules)
    for (auto &O : R.DefaultOptions)
      All[R.Id + "." + O.first] = O.second;
  for (auto &O : C.Options.Values)
    All[O.first] = O.second;
  if (All.empty())
    OS << "  {}\n";
  for (auto &O : All)
    OS << "  " << O.first << ": " << yamlQuote(O.second) << "\n";
  if (C.Harness) {
    if (!C.Harness->SpecFile.empty())
      OS << "Harness: " << yamlQuote(C.Harness->SpecFile) << "\n";
    else
      OS << inlineHarnessYaml(C.Harness->SpecText, C.Harness->Line,
                              C.Source);
  }
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
