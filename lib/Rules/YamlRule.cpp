//===- YamlRule.cpp - read rewrite-rules/*.yaml ---------------------------===//
#include "cudal1/Rules/YamlRule.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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

class Reader {
public:
  Reader(StringRef Path, StringRef Contents, std::vector<RuleFileDiag> &Diags)
      : Path(Path), Contents(Contents), Diags(Diags) {}

  std::optional<YamlRuleSpec> read();

private:
  TextPos pos(SMLoc L) {
    if (!L.isValid())
      return {};
    auto LC = SM.getLineAndColumn(L);
    return {LC.first, LC.second};
  }
  void error(TextPos P, const Twine &Msg) {
    Diags.push_back({Path.str(), P, "error", Msg.str()});
    ++Errors;
  }
  void error(yaml::Node *N, const Twine &Msg) {
    error(N ? pos(N->getSourceRange().Start) : TextPos{}, Msg);
  }
  bool scalar(yaml::Node *N, StringRef Key, std::string &Out,
              ScalarPlacement *At = nullptr);
  std::optional<double> number(yaml::Node *N, StringRef Key);
  /// The optional `doc:` mapping: the sections of the rule's page.
  void readDoc(yaml::Node *N, YamlRuleDoc &Doc);

  StringRef Path, Contents;
  std::vector<RuleFileDiag> &Diags;
  SourceMgr SM;
  unsigned Errors = 0;

public:
  unsigned ParseErrors = 0; ///< from the YAML parser itself
};

bool Reader::scalar(yaml::Node *N, StringRef Key, std::string &Out,
                    ScalarPlacement *At) {
  if (auto *S = dyn_cast_or_null<yaml::ScalarNode>(N)) {
    SmallString<128> Storage;
    Out = S->getValue(Storage).str();
    if (At) {
      At->Start = pos(S->getSourceRange().Start);
      StringRef Raw = S->getRawValue();
      if (!Raw.empty() && (Raw[0] == '"' || Raw[0] == '\''))
        ++At->Start.Column;
    }
    return true;
  }
  if (auto *B = dyn_cast_or_null<yaml::BlockScalarNode>(N)) {
    Out = B->getValue().str();
    if (At) {
      // The range may start at the indicator ('|' or '>') or at the first
      // line of the text: find the first non-blank text line and its
      // indentation.
      const char *P = B->getSourceRange().Start.getPointer();
      const char *Beg = Contents.begin(), *E = Contents.end();
      if (P < E && (*P == '|' || *P == '>')) {
        while (P < E && *P != '\n')
          ++P;
        if (P < E)
          ++P;
      } else {
        while (P > Beg && P[-1] != '\n')
          --P;
      }
      // Skip blank lines.
      while (P < E) {
        unsigned Ind = 0;
        while (P + Ind < E && P[Ind] == ' ')
          ++Ind;
        if (P + Ind < E && P[Ind] != '\n') {
          At->Indent = Ind;
          break;
        }
        P += Ind;
        if (P < E)
          ++P;
      }
      At->Block = true;
      At->Start = pos(SMLoc::getFromPointer(std::min(P, E - 1)));
      At->Start.Column = 1;
    }
    return true;
  }
  error(N, "'" + Key + "' must be a string");
  return false;
}

std::optional<double> Reader::number(yaml::Node *N, StringRef Key) {
  std::string S;
  if (!scalar(N, Key, S))
    return std::nullopt;
  double D;
  if (StringRef(S).trim().getAsDouble(D) || D < 0) {
    error(N, "'" + Key + "' must be a non-negative number, not '" + S + "'");
    return std::nullopt;
  }
  return D;
}

void Reader::readDoc(yaml::Node *N, YamlRuleDoc &Doc) {
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!Map) {
    error(N, "'doc' must be a mapping (detects, why, example, fixed, fix)");
    return;
  }
  for (yaml::KeyValueNode &KV : *Map) {
    auto *KN = dyn_cast_or_null<yaml::ScalarNode>(KV.getKey());
    SmallString<32> KS;
    StringRef Key = KN ? KN->getValue(KS) : StringRef();
    std::string *Field = Key == "detects"   ? &Doc.Detects
                         : Key == "why"     ? &Doc.WhySlow
                         : Key == "example" ? &Doc.Example
                         : Key == "fixed"   ? &Doc.Fixed
                         : Key == "fix"     ? &Doc.Fix
                                            : nullptr;
    if (!Field) {
      error(KV.getKey(), "unknown key '" + Key.str() +
                             "' in 'doc' (detects, why, example, fixed, fix)");
      continue;
    }
    scalar(KV.getValue(), Key, *Field);
    *Field = StringRef(*Field).rtrim("\n").str();
  }
}

std::optional<YamlRuleSpec> Reader::read() {
  std::unique_ptr<MemoryBuffer> Buf =
      MemoryBuffer::getMemBuffer(Contents, Path, /*RequiresNullTerminator=*/false);
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto *R = static_cast<Reader *>(Ctx);
        ++R->ParseErrors;
        R->error(TextPos{unsigned(D.getLineNo()), unsigned(D.getColumnNo() + 1)},
                 D.getMessage());
      },
      this);
  yaml::Stream YS(Buf->getMemBufferRef(), SM, /*ShowColors=*/false);
  auto DI = YS.begin();
  if (DI == YS.end()) {
    error(TextPos{1, 1}, "empty rule file");
    return std::nullopt;
  }
  yaml::Node *Root = DI->getRoot();
  if (ParseErrors)
    return std::nullopt;
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(Root);
  if (!Map) {
    error(Root ? pos(Root->getSourceRange().Start) : TextPos{1, 1},
          "a rule file holds one mapping (rule:, category:, message:, match:, "
          "...)");
    return std::nullopt;
  }
  YamlRuleSpec R;
  R.File = Path.str();
  StringSet<> Seen;
  bool HasExact = false;
  TextPos ExactAt, WithReplaceAt;
  yaml::Node *UlpNode = nullptr, *RtolNode = nullptr;
  for (yaml::KeyValueNode &KV : *Map) {
    std::string Key;
    auto *KN = dyn_cast_or_null<yaml::ScalarNode>(KV.getKey());
    if (!KN) {
      error(KV.getKey(), "keys must be plain names");
      continue;
    }
    SmallString<32> KS;
    Key = KN->getValue(KS).str();
    TextPos KeyAt = pos(KN->getSourceRange().Start);
    if (!Seen.insert(Key).second) {
      error(KeyAt, "duplicate key '" + Key + "'");
      continue;
    }
    yaml::Node *V = KV.getValue();
    if (ParseErrors)
      return std::nullopt; // the YAML parser itself failed
    if (Key == "rule") {
      R.RuleAt = KeyAt;
      ScalarPlacement P;
      if (scalar(V, Key, R.Id, &P)) {
        StringRef Id = R.Id;
        size_t Dash = Id.find('-');
        if (Dash == StringRef::npos || Dash == 0 || Dash + 1 == Id.size() ||
            !llvm::all_of(Id, [](char C) {
              return isDigit(C) || (C >= 'a' && C <= 'z') || C == '-';
            }))
          error(P.Start, "rule id '" + R.Id +
                             "' must be '<category>-<name>' in lower case "
                             "letters, digits and '-'");
        else if (!isKnownCategory(Id.take_front(Dash)))
          error(P.Start, "rule id '" + R.Id + "' starts with unknown category '" +
                             Id.take_front(Dash) +
                             "' (coalescing, unrolling, algebraic, memory, "
                             "launch, sync, llm)");
      }
    } else if (Key == "category") {
      ScalarPlacement P;
      if (scalar(V, Key, R.Category, &P) && !isKnownCategory(R.Category))
        error(P.Start, "unknown category '" + R.Category +
                           "' (coalescing, unrolling, algebraic, memory, "
                           "launch, sync, llm)");
    } else if (Key == "message") {
      scalar(V, Key, R.Message);
    } else if (Key == "description") {
      scalar(V, Key, R.Description);
    } else if (Key == "match") {
      scalar(V, Key, R.Match, &R.MatchAt);
    } else if (Key == "replace") {
      ScalarPlacement P;
      if (scalar(V, Key, R.Replace, &P))
        R.ReplaceAt = P.Start;
      R.Replace = StringRef(R.Replace).trim().str();
    } else if (Key == "with") {
      ScalarPlacement P;
      if (scalar(V, Key, R.With, &P))
        R.WithAt = P.Start;
      WithReplaceAt = KeyAt;
    } else if (Key == "requires") {
      auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(V);
      if (!Seq) {
        error(V, "'requires' must be a list, e.g. [pure(x), device-code]");
        continue;
      }
      // A flow sequence splits "same-type(a, b)" at the comma: join items
      // until the parentheses balance.
      std::vector<std::pair<std::string, ScalarPlacement>> Items;
      for (yaml::Node &Item : *Seq) {
        std::string G;
        ScalarPlacement P;
        if (!scalar(&Item, "requires", G, &P))
          continue;
        if (!Items.empty() &&
            StringRef(Items.back().first).count('(') >
                StringRef(Items.back().first).count(')'))
          Items.back().first += ", " + G;
        else
          Items.push_back({G, P});
      }
      for (auto &[G, P] : Items) {
        StringRef GS = StringRef(G).trim();
        RuleGuard RG;
        RG.Pos = P.Start;
        size_t Open = GS.find('(');
        if (Open == StringRef::npos) {
          RG.Name = GS.str();
        } else {
          if (!GS.ends_with(")")) {
            error(P.Start, "guard '" + GS + "' is missing ')'");
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
          error(P.Start, "unknown guard '" + RG.Name + "' (known: " + Names + ")");
          continue;
        }
        if (RG.Args.size() != Spec->Args) {
          error(P.Start, "guard '" + RG.Name + "' takes " +
                             Twine(Spec->Args) + " node argument" +
                             (Spec->Args == 1 ? "" : "s") + ", not " +
                             Twine(RG.Args.size()));
          continue;
        }
        R.Requires.push_back(std::move(RG));
      }
    } else if (Key == "exactness") {
      ScalarPlacement P;
      HasExact = true;
      if (scalar(V, Key, R.Exactness, &P)) {
        ExactAt = P.Start;
        if (R.Exactness != "bitwise" && R.Exactness != "ulp" &&
            R.Exactness != "reassociating" && R.Exactness != "fast-math")
          error(P.Start, "exactness must be bitwise, ulp, reassociating or "
                         "fast-math, not '" +
                             R.Exactness + "'");
      }
    } else if (Key == "ulp") {
      UlpNode = V;
      if (auto D = number(V, Key))
        R.Ulp = unsigned(*D);
    } else if (Key == "rtol") {
      RtolNode = V;
      if (auto D = number(V, Key))
        R.Rtol = *D;
    } else if (Key == "atol") {
      if (auto D = number(V, Key))
        R.Atol = *D;
    } else if (Key == "doc") {
      readDoc(V, R.Doc);
    } else {
      error(KeyAt, "unknown key '" + Key +
                       "' (rule, category, message, description, match, "
                       "replace, with, requires, exactness, ulp, rtol, atol, "
                       "doc)");
    }
  }
  if (Errors)
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
    error(R.RuleAt, "rule id '" + R.Id + "' does not start with its category '" +
                        R.Category + "-'");
  if (R.Category.empty() && !R.Id.empty())
    R.Category = StringRef(R.Id).split('-').first.str();
  if (R.Replace.empty() != R.With.empty() && Seen.count("with") !=
                                                 Seen.count("replace"))
    error(WithReplaceAt.Line ? WithReplaceAt : R.ReplaceAt,
          "'replace:' and 'with:' go together");
  if (!HasExact && !R.Replace.empty())
    R.Exactness = "bitwise";
  if (!R.Replace.empty() && Seen.count("exactness") == 0)
    error(Top, "a rule with a rewrite must say its 'exactness:' (bitwise, ulp, "
               "reassociating, fast-math)");
  if (R.Exactness == "ulp" && !UlpNode && !R.Replace.empty())
    error(ExactAt, "exactness 'ulp' needs 'ulp: N'");
  (void)RtolNode;
  if (Seen.count("with")) {
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
  Reader R(Path, Contents, Diags);
  return R.read();
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
