//===- YamlRule.cpp - read rewrite-rules/*.yaml ---------------------------===//
#include "cudal1/Rules/YamlRule.h"
#include "cudal1/Support/Yaml.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace llvm;

#ifndef CUDAL1_RULES_SOURCE_DIR
#define CUDAL1_RULES_SOURCE_DIR ""
#endif

namespace cudal1 {

std::string RuleFileDiag::str() const {
  std::string S = File;
  if (Pos.Line)
    S += ":" + std::to_string(Pos.Line) + ":" + std::to_string(Pos.Column);
  S += ": " + Kind + ": " + Message;
  return S;
}

TextPos YamlRuleSpec::matchPos(unsigned Line, unsigned Column) const {
  TextPos P;
  if (!MatchAt.Start.Line)
    return P;
  if (MatchAt.Block) {
    P.Line = MatchAt.Start.Line + (Line ? Line - 1 : 0);
    P.Column = MatchAt.Indent + (Column ? Column : 1);
    return P;
  }
  P.Line = MatchAt.Start.Line + (Line ? Line - 1 : 0);
  P.Column = (Line <= 1 ? MatchAt.Start.Column : 0) + (Column ? Column : 1) -
             (Line <= 1 ? 1 : 0);
  if (!P.Column)
    P.Column = 1;
  return P;
}

const std::vector<GuardSpec> &knownGuards() {
  static const std::vector<GuardSpec> G = {
      {"pure", 1, "the node has no side effects (it may be evaluated more "
                  "than once or not at all)"},
      {"device-code", 0, "the match is in a __global__ or __device__ function"},
      {"host-code", 0, "the match is in host code (not __device__-only)"},
      {"float-type", 1, "the node has type float"},
      {"double-type", 1, "the node has type double"},
      {"floating-type", 1, "the node has a floating-point type"},
      {"integer-type", 1, "the node has an integer type"},
      {"unsigned-type", 1, "the node has an unsigned integer type"},
      {"same-type", 2, "both nodes have the same type"},
      {"non-negative", 1,
       "the node's value is provably >= 0 (unsigned, a non-negative "
       "constant, threadIdx/blockIdx/blockDim/gridDim, or a variable "
       "initialised from those and never changed)"},
      {"not-constant", 1,
       "the node is not a compile-time constant (the compiler folds a call "
       "on constants: nothing to gain)"},
      {"in-loop", 0, "the match is inside a loop body"},
      {"not-in-macro", 0, "no part of the match comes from a macro expansion"},
  };
  return G;
}

bool isKnownCategory(StringRef C) {
  return C == "coalescing" || C == "unrolling" || C == "algebraic" ||
         C == "memory" || C == "launch" || C == "sync" || C == "llm";
}

bool parseRuleTemplate(StringRef With, std::vector<TemplatePiece> &Out,
                       std::string &Error, size_t &ErrorOffset) {
  Out.clear();
  std::string Lit;
  for (size_t I = 0; I < With.size(); ++I) {
    char C = With[I];
    if (C != '$') {
      Lit += C;
      continue;
    }
    if (I + 1 < With.size() && With[I + 1] == '$') {
      Lit += '$';
      ++I;
      continue;
    }
    if (I + 1 >= With.size() || With[I + 1] != '{') {
      Error = "'$' must start ${node} (write $$ for a literal '$')";
      ErrorOffset = I;
      return false;
    }
    size_t End = With.find('}', I + 2);
    if (End == StringRef::npos) {
      Error = "unterminated '${' in template";
      ErrorOffset = I;
      return false;
    }
    StringRef Name = With.slice(I + 2, End).trim();
    if (Name.empty() || !llvm::all_of(Name, [](char Ch) {
          return isAlnum(Ch) || Ch == '_' || Ch == '-' || Ch == '.';
        })) {
      Error = "bad node name '" + Name.str() + "' in template";
      ErrorOffset = I;
      return false;
    }
    if (!Lit.empty())
      Out.push_back({false, Lit});
    Lit.clear();
    Out.push_back({true, Name.str()});
    I = End;
  }
  if (!Lit.empty())
    Out.push_back({false, Lit});
  return true;
}

namespace {

/// Where a scalar was written, from the node being read (block scalars: the
/// first line of text and its indentation; quoted scalars: after the quote).
ScalarPlacement placementOf(const yaml::Node *N, StringRef Text) {
  ScalarPlacement At;
  if (!N)
    return At;
  auto Pos = [&](const char *P) {
    auto [L, C] = lineColumnOf(Text, P);
    return TextPos{L, C};
  };
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    At.Start = Pos(S->getSourceRange().Start.getPointer());
    StringRef Raw = S->getRawValue();
    if (!Raw.empty() && (Raw[0] == '"' || Raw[0] == '\''))
      ++At.Start.Column;
    return At;
  }
  if (!isa<yaml::BlockScalarNode>(N)) {
    At.Start = Pos(N->getSourceRange().Start.getPointer());
    return At;
  }
  // The range may start at the indicator ('|' or '>') or at the first line
  // of the text: find the first non-blank text line and its indentation.
  const char *P = N->getSourceRange().Start.getPointer();
  const char *Beg = Text.begin(), *E = Text.end();
  if (P < E && (*P == '|' || *P == '>')) {
    while (P < E && *P != '\n')
      ++P;
    if (P < E)
      ++P;
  } else {
    while (P > Beg && P[-1] != '\n')
      --P;
  }
  while (P < E) { // skip blank lines
    unsigned Ind = 0;
    while (P + Ind < E && P[Ind] == ' ')
      ++Ind;
    if (P + Ind < E && P[Ind] != '\n') {
      At.Indent = Ind;
      break;
    }
    P += Ind;
    if (P < E)
      ++P;
  }
  At.Block = true;
  At.Start = Pos(std::min(P, E - 1));
  At.Start.Column = 1;
  return At;
}

/// A scalar value of a rule file and where it was written.
struct PlacedScalar {
  std::string Value;
  ScalarPlacement At;
};

/// A sequence or mapping where a string was expected: an error naming the
/// key (reported at the first item or value).
struct NotAString {
  std::string Key;
};
struct NotAStringSeq : NotAString {};
struct NotAStringMap : NotAString {};

/// A string field of a rule file (`rule:`, `message:`, `match:`, ...).
struct StringField {
  StringField() = default;
  explicit StringField(std::string Key) : Seq{{Key}}, Map{{std::move(Key)}} {}
  PlacedScalar Scalar;
  NotAStringSeq Seq;
  NotAStringMap Map;
};

/// `requires:` - a list of guards; a scalar is reported after reading.
struct GuardList {
  std::vector<PlacedScalar> Items;
  PlacedScalar Scalar;
  NotAStringMap Map{{"requires"}};
  bool IsScalar = false;
};

/// `doc:` - the sections of the rule's page; a scalar or list is an error.
struct DocFields {
  std::optional<StringField> Detects, Why, Example, Fixed, Fix;
};
struct DocValue {
  DocFields Map;
  PlacedScalar Scalar;
  NotAStringSeq Seq{{"doc"}};
  bool IsScalar = false;
};

struct RawRule {
  std::optional<StringField> Rule, Category, Message, Description, Match,
      Replace, With, Exactness, Ulp, Rtol, Atol, ScaleRtol;
  std::optional<GuardList> Requires;
  std::optional<DocValue> Doc;
  TextPos TopAt; ///< the first key of the top-level mapping
};

const char *const TopKeys = "rule, category, message, description, match, "
                            "replace, with, requires, exactness, ulp, rtol, "
                            "atol, scale_rtol, doc";
const char *const DocKeys = "detects, why, example, fixed, fix";

void failAtCurrent(llvm::yaml::IO &IO, const NotAString &W, const char *What) {
  std::string Msg = "'" + W.Key + "' must be " + What;
  if (YamlReader *R = YamlReader::of(IO))
    R->failHere(Msg);
  else
    IO.setError(Msg);
}

} // namespace
} // namespace cudal1

namespace llvm {
namespace yaml {
using namespace cudal1;
template <> struct ScalarTraits<PlacedScalar> {
  static void output(const PlacedScalar &V, void *, raw_ostream &OS) {
    OS << V.Value;
  }
  static StringRef input(StringRef Scalar, void *Ctx, PlacedScalar &V) {
    V.Value = Scalar.str();
    if (auto *S = static_cast<YamlReader::Scope *>(Ctx))
      V.At = placementOf(S->Reader->input().getCurrentNode(),
                         S->Reader->text());
    return StringRef();
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::Single; }
};
template <> struct SequenceTraits<NotAStringSeq> {
  static size_t size(IO &, NotAStringSeq &) { return 0; }
  static AnyValue &element(IO &IO, NotAStringSeq &W, size_t) {
    static AnyValue Ignored;
    failAtCurrent(IO, W,
                  W.Key == "doc" ? "a mapping (detects, why, example, fixed, "
                                   "fix)"
                                 : "a string");
    return Ignored;
  }
};
template <> struct CustomMappingTraits<NotAStringMap> {
  static void inputOne(IO &IO, StringRef, NotAStringMap &W) {
    failAtCurrent(IO, W,
                  W.Key == "requires" ? "a list, e.g. [pure(x), device-code]"
                                      : "a string");
  }
  static void output(IO &, NotAStringMap &) {}
};
template <> struct PolymorphicTraits<StringField> {
  static NodeKind getKind(const StringField &) { return NodeKind::Scalar; }
  static PlacedScalar &getAsScalar(StringField &V) { return V.Scalar; }
  static NotAStringSeq &getAsSequence(StringField &V) { return V.Seq; }
  static NotAStringMap &getAsMap(StringField &V) { return V.Map; }
};
template <> struct SequenceTraits<std::vector<PlacedScalar>> {
  static size_t size(IO &, std::vector<PlacedScalar> &L) { return L.size(); }
  static PlacedScalar &element(IO &, std::vector<PlacedScalar> &L, size_t I) {
    if (I >= L.size())
      L.resize(I + 1);
    return L[I];
  }
};
template <> struct PolymorphicTraits<GuardList> {
  static NodeKind getKind(const GuardList &) { return NodeKind::Sequence; }
  static PlacedScalar &getAsScalar(GuardList &V) {
    V.IsScalar = true;
    return V.Scalar;
  }
  static std::vector<PlacedScalar> &getAsSequence(GuardList &V) {
    return V.Items;
  }
  static NotAStringMap &getAsMap(GuardList &V) { return V.Map; }
};
template <> struct MappingTraits<DocFields> {
  static void mapping(IO &IO, DocFields &D) {
    for (auto [Key, Field] : {std::pair("detects", &D.Detects),
                              std::pair("why", &D.Why),
                              std::pair("example", &D.Example),
                              std::pair("fixed", &D.Fixed),
                              std::pair("fix", &D.Fix)}) {
      if (!*Field)
        Field->emplace(Key);
      IO.mapOptional(Key, *Field);
    }
  }
};
template <> struct PolymorphicTraits<DocValue> {
  static NodeKind getKind(const DocValue &) { return NodeKind::Map; }
  static PlacedScalar &getAsScalar(DocValue &V) {
    V.IsScalar = true;
    return V.Scalar;
  }
  static NotAStringSeq &getAsSequence(DocValue &V) { return V.Seq; }
  static DocFields &getAsMap(DocValue &V) { return V.Map; }
};
template <> struct MappingTraits<RawRule> {
  static void mapping(IO &IO, RawRule &R) {
    if (YamlReader *Y = YamlReader::of(IO)) {
      auto [L, C] = Y->here();
      R.TopAt = {L, C};
    }
    for (auto [Key, Field] :
         {std::pair("rule", &R.Rule), std::pair("category", &R.Category),
          std::pair("message", &R.Message),
          std::pair("description", &R.Description),
          std::pair("match", &R.Match), std::pair("replace", &R.Replace),
          std::pair("with", &R.With), std::pair("exactness", &R.Exactness),
          std::pair("ulp", &R.Ulp), std::pair("rtol", &R.Rtol),
          std::pair("atol", &R.Atol), std::pair("scale_rtol", &R.ScaleRtol)}) {
      if (!*Field)
        Field->emplace(Key);
      IO.mapOptional(Key, *Field);
    }
    IO.mapOptional("requires", R.Requires);
    IO.mapOptional("doc", R.Doc);
  }
};
} // namespace yaml
} // namespace llvm

namespace cudal1 {
namespace {

/// Checks the fields read from a rule file and fills a YamlRuleSpec; every
/// problem is reported with its position.
class RuleBuilder {
public:
  RuleBuilder(StringRef Path, std::vector<RuleFileDiag> &Diags)
      : Path(Path), Diags(Diags) {}

  /// \p ValuesOnly: check the values given, not what is missing (the
  /// mapping was read, but the file has an error already).
  std::optional<YamlRuleSpec> build(RawRule &Raw, bool ValuesOnly = false);

private:
  void error(TextPos P, const Twine &Msg) {
    Diags.push_back({Path.str(), P, "error", Msg.str()});
    ++Errors;
  }
  /// The value of \p F ("" when the key is absent or has no value).
  static const std::string &text(const std::optional<StringField> &F) {
    static const std::string None;
    return F ? F->Scalar.Value : None;
  }
  static bool given(const std::optional<StringField> &F) {
    return F && F->Scalar.At.Start.Line;
  }
  static TextPos at(const std::optional<StringField> &F) {
    return F ? F->Scalar.At.Start : TextPos{};
  }
  std::optional<double> number(const std::optional<StringField> &F,
                               StringRef Key);
  void checkId(const YamlRuleSpec &R, TextPos At);
  void readGuards(const GuardList &L, YamlRuleSpec &R);

  StringRef Path;
  std::vector<RuleFileDiag> &Diags;
  unsigned Errors = 0;
};

std::optional<double> RuleBuilder::number(const std::optional<StringField> &F,
                                          StringRef Key) {
  if (!given(F))
    return std::nullopt;
  double D;
  if (StringRef(text(F)).trim().getAsDouble(D) || D < 0) {
    error(at(F), "'" + Key + "' must be a non-negative number, not '" +
                     text(F) + "'");
    return std::nullopt;
  }
  return D;
}

void RuleBuilder::checkId(const YamlRuleSpec &R, TextPos At) {
  StringRef Id = R.Id;
  size_t Dash = Id.find('-');
  if (Dash == StringRef::npos || Dash == 0 || Dash + 1 == Id.size() ||
      !llvm::all_of(Id, [](char C) {
        return isDigit(C) || (C >= 'a' && C <= 'z') || C == '-';
      }))
    error(At, "rule id '" + R.Id +
                  "' must be '<category>-<name>' in lower case letters, "
                  "digits and '-'");
  else if (!isKnownCategory(Id.take_front(Dash)))
    error(At, "rule id '" + R.Id + "' starts with unknown category '" +
                  Id.take_front(Dash) +
                  "' (coalescing, unrolling, algebraic, memory, launch, sync, "
                  "llm)");
}

void RuleBuilder::readGuards(const GuardList &L, YamlRuleSpec &R) {
  if (L.IsScalar) {
    error(L.Scalar.At.Start,
          "'requires' must be a list, e.g. [pure(x), device-code]");
    return;
  }
  // A flow sequence splits "same-type(a, b)" at the comma: join items until
  // the parentheses balance.
  std::vector<PlacedScalar> Items;
  for (const PlacedScalar &G : L.Items) {
    if (!Items.empty() && StringRef(Items.back().Value).count('(') >
                              StringRef(Items.back().Value).count(')'))
      Items.back().Value += ", " + G.Value;
    else
      Items.push_back(G);
  }
  for (const PlacedScalar &G : Items) {
    StringRef GS = StringRef(G.Value).trim();
    TextPos P = G.At.Start;
    RuleGuard RG;
    RG.Pos = P;
    size_t Open = GS.find('(');
    if (Open == StringRef::npos) {
      RG.Name = GS.str();
    } else {
      if (!GS.ends_with(")")) {
        error(P, "guard '" + GS + "' is missing ')'");
        continue;
      }
      RG.Name = GS.take_front(Open).trim().str();
      SmallVector<StringRef, 2> Args;
      GS.slice(Open + 1, GS.size() - 1).split(Args, ',');
      for (StringRef A : Args)
        if (!A.trim().empty())
          RG.Args.push_back(A.trim().str());
    }
    const GuardSpec *Spec = nullptr;
    for (const GuardSpec &K : knownGuards())
      if (RG.Name == K.Name)
        Spec = &K;
    if (!Spec) {
      std::string Names;
      for (const GuardSpec &K : knownGuards())
        Names += (Names.empty() ? "" : ", ") + std::string(K.Name);
      error(P, "unknown guard '" + RG.Name + "' (known: " + Names + ")");
      continue;
    }
    if (RG.Args.size() != Spec->Args) {
      error(P, "guard '" + RG.Name + "' takes " + Twine(Spec->Args) +
                   " node argument" + (Spec->Args == 1 ? "" : "s") +
                   ", not " + Twine(RG.Args.size()));
      continue;
    }
    R.Requires.push_back(std::move(RG));
  }
}

std::optional<YamlRuleSpec> RuleBuilder::build(RawRule &Raw, bool ValuesOnly) {
  YamlRuleSpec R;
  R.File = Path.str();
  R.Id = text(Raw.Rule);
  R.RuleAt = at(Raw.Rule);
  if (given(Raw.Rule))
    checkId(R, at(Raw.Rule));
  R.Category = text(Raw.Category);
  if (given(Raw.Category) && !isKnownCategory(R.Category))
    error(at(Raw.Category), "unknown category '" + R.Category +
                                "' (coalescing, unrolling, algebraic, memory, "
                                "launch, sync, llm)");
  R.Message = text(Raw.Message);
  R.Description = text(Raw.Description);
  R.Match = text(Raw.Match);
  if (Raw.Match)
    R.MatchAt = Raw.Match->Scalar.At;
  R.Replace = StringRef(text(Raw.Replace)).trim().str();
  R.ReplaceAt = at(Raw.Replace);
  R.With = text(Raw.With);
  R.WithAt = at(Raw.With);
  if (Raw.Requires)
    readGuards(*Raw.Requires, R);
  if (given(Raw.Exactness)) {
    R.Exactness = text(Raw.Exactness);
    if (R.Exactness != "bitwise" && R.Exactness != "ulp" &&
        R.Exactness != "reassociating" && R.Exactness != "fast-math")
      error(at(Raw.Exactness), "exactness must be bitwise, ulp, reassociating "
                               "or fast-math, not '" +
                                   R.Exactness + "'");
  }
  if (auto D = number(Raw.Ulp, "ulp")) {
    // A whole number of units in the last place; anything else (a fraction,
    // a negative or huge value: found by fuzz/FuzzRuleFile) is an error.
    if (!(*D >= 0 && *D <= 1e6) || *D != std::floor(*D))
      error(at(Raw.Ulp), "ulp must be a whole number from 0 to 1000000");
    else
      R.Ulp = unsigned(*D);
  }
  if (auto D = number(Raw.Rtol, "rtol"))
    R.Rtol = *D;
  if (auto D = number(Raw.Atol, "atol"))
    R.Atol = *D;
  if (auto D = number(Raw.ScaleRtol, "scale_rtol"))
    R.ScaleRtol = *D;
  if (Raw.Doc && Raw.Doc->IsScalar)
    error(Raw.Doc->Scalar.At.Start,
          "'doc' must be a mapping (detects, why, example, fixed, fix)");
  else if (Raw.Doc) {
    DocFields &D = Raw.Doc->Map;
    for (auto [From, To] : {std::pair(&D.Detects, &R.Doc.Detects),
                            std::pair(&D.Why, &R.Doc.WhySlow),
                            std::pair(&D.Example, &R.Doc.Example),
                            std::pair(&D.Fixed, &R.Doc.Fixed),
                            std::pair(&D.Fix, &R.Doc.Fix)})
      *To = StringRef(text(*From)).rtrim("\n").str();
  }
  if (Errors || ValuesOnly)
    return std::nullopt;

  TextPos Top{1, 1};
  if (R.Id.empty())
    error(Top, "missing 'rule:' (the rule id, '<category>-<name>')");
  if (R.Match.empty())
    error(Top, "missing 'match:' (a clang-query matcher expression)");
  if (R.Message.empty())
    error(Top, "missing 'message:'");
  if (!R.Category.empty() && !R.Id.empty() &&
      !StringRef(R.Id).starts_with(R.Category + "-"))
    error(R.RuleAt, "rule id '" + R.Id +
                        "' does not start with its category '" + R.Category +
                        "-'");
  if (R.Category.empty() && !R.Id.empty())
    R.Category = StringRef(R.Id).split('-').first.str();
  if (given(Raw.Replace) != given(Raw.With))
    error(given(Raw.With) ? R.WithAt : R.ReplaceAt,
          "'replace:' and 'with:' go together");
  if (!R.Replace.empty() && !given(Raw.Exactness))
    error(Top, "a rule with a rewrite must say its 'exactness:' (bitwise, "
               "ulp, reassociating, fast-math)");
  if (R.Exactness == "ulp" && !given(Raw.Ulp) && !R.Replace.empty())
    error(at(Raw.Exactness), "exactness 'ulp' needs 'ulp: N'");
  if (given(Raw.With)) {
    std::string Err;
    size_t Off = 0;
    if (!parseRuleTemplate(R.With, R.Template, Err, Off))
      error(TextPos{R.WithAt.Line, R.WithAt.Column + unsigned(Off)}, Err);
  }
  if (Errors)
    return std::nullopt;
  return R;
}

} // namespace

std::optional<YamlRuleSpec> parseYamlRule(StringRef Path, StringRef Contents,
                                          std::vector<RuleFileDiag> &Diags) {
  // Only comments and blank lines (a YAML null document).
  bool Empty = true;
  for (StringRef Line : llvm::split(Contents, '\n')) {
    StringRef T = Line.trim();
    if (!T.empty() && !T.starts_with("#") && T != "---" && T != "...")
      Empty = false;
  }
  if (Empty) {
    Diags.push_back({Path.str(), TextPos{1, 1}, "error", "empty rule file"});
    return std::nullopt;
  }
  RawRule Raw;
  YamlReader Reader(Contents, Path.str());
  if (!Reader.read(Raw)) {
    // The first error of the YAML parser or the traits, located. Name what
    // a rule file may hold where the traits alone cannot.
    std::string Msg = Reader.errorMessage();
    TextPos P{Reader.errorLine(), Reader.errorColumn()};
    bool UnknownKey = StringRef(Msg).starts_with("unknown key '");
    if (UnknownKey)
      Msg += P.Column == Raw.TopAt.Column && P.Line >= Raw.TopAt.Line
                 ? std::string(" (") + TopKeys + ")"
                 : std::string(" in 'doc' (") + DocKeys + ")";
    else if (Msg == "not a mapping")
      Msg = "a rule file holds one mapping (rule:, category:, message:, "
            "match:, ...)";
    Diags.push_back({Path.str(), P, "error", Msg});
    // An unknown key is reported after the whole mapping was read: the
    // values given are checked too, so that one run shows every mistake.
    if (UnknownKey)
      RuleBuilder(Path, Diags).build(Raw, /*ValuesOnly=*/true);
    return std::nullopt;
  }
  if (!Raw.TopAt.Line) {
    Diags.push_back({Path.str(), TextPos{1, 1}, "error", "empty rule file"});
    return std::nullopt;
  }
  return RuleBuilder(Path, Diags).build(Raw);
}

std::vector<std::string> findRuleFiles(StringRef Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC)) {
    StringRef P = It->path();
    if ((P.ends_with(".yaml") || P.ends_with(".yml")) &&
        It->type() != sys::fs::file_type::directory_file)
      Out.push_back(P.str());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string findShippedRulesDir(const char *Argv0, void *MainAddr) {
  if (auto Env = sys::Process::GetEnv("CUDAL1_RULES_DIR"))
    if (!Env->empty())
      return *Env;
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    SmallString<256> Prefix(sys::path::parent_path(sys::path::parent_path(Exe)));
    for (const char *Sub : {"share/cuda-l1/rewrite-rules", "rewrite-rules"}) {
      SmallString<256> Cand(Prefix);
      sys::path::append(Cand, Sub);
      if (sys::fs::is_directory(Cand))
        return std::string(Cand);
    }
  }
  if (sys::fs::is_directory(CUDAL1_RULES_SOURCE_DIR))
    return CUDAL1_RULES_SOURCE_DIR;
  return "";
}

} // namespace cudal1
