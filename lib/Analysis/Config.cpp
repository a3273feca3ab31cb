//===- Config.cpp - .cuda-l1.yaml and NOLINT suppressions ------------------===//
#include "cudal1/Analysis/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

namespace {
std::string position(SourceMgr &SM, StringRef Path, SMLoc L) {
  auto LC = SM.getLineAndColumn(L);
  return (Path + ":" + Twine(LC.first) + ":" + Twine(LC.second)).str();
}

bool scalarText(yaml::Node *N, std::string &Out) {
  if (auto *S = dyn_cast_or_null<yaml::ScalarNode>(N)) {
    SmallString<64> Storage;
    Out = S->getValue(Storage).str();
    return true;
  }
  if (auto *B = dyn_cast_or_null<yaml::BlockScalarNode>(N)) {
    Out = B->getValue().str();
    return true;
  }
  return false;
}
} // namespace

bool parseConfig(StringRef Text, StringRef Path, AnalysisConfig &Out,
                 std::string &Error) {
  SourceMgr SM;
  std::string Diag;
  raw_string_ostream DiagOS(Diag);
  SM.setDiagHandler([](const SMDiagnostic &D, void *Ctx) {
    auto *S = static_cast<std::string *>(Ctx);
    if (S->empty())
      *S = (Twine(D.getLineNo()) + ":" + Twine(D.getColumnNo() + 1) + ": " +
            D.getMessage())
               .str();
  }, &Diag);
  yaml::Stream Stream(Text, SM);
  Out.Source = Path.str();
  auto Fail = [&](SMLoc L, const Twine &Msg) {
    Error = (position(SM, Path, L) + ": error: " + Msg).str();
    return false;
  };
  for (yaml::Document &Doc : Stream) {
    yaml::Node *Root = Doc.getRoot();
    if (!Diag.empty())
      break;
    if (!Root || isa<yaml::NullNode>(Root))
      continue;
    auto *Map = dyn_cast<yaml::MappingNode>(Root);
    if (!Map)
      return Fail(Root->getSourceRange().Start,
                  "the configuration must be a mapping (Rules, "
                  "WarningsAsErrors, CheckOptions)");
    for (yaml::KeyValueNode &KV : *Map) {
      std::string Key;
      if (!scalarText(KV.getKey(), Key))
        return Fail(KV.getKey()->getSourceRange().Start, "expected a key");
      yaml::Node *V = KV.getValue();
      if (!Diag.empty())
        break;
      if (Key == "Rules" || Key == "Checks" || Key == "WarningsAsErrors") {
        std::string S;
        if (auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(V)) {
          for (yaml::Node &Item : *Seq) {
            std::string I;
            if (!scalarText(&Item, I))
              return Fail(Item.getSourceRange().Start, "expected a glob");
            S += (S.empty() ? "" : ",") + I;
          }
        } else if (!scalarText(V, S)) {
          return Fail(V ? V->getSourceRange().Start
                        : KV.getKey()->getSourceRange().End,
                      "'" + Key + "' must be a string of comma-separated "
                      "globs");
        }
        (Key == "WarningsAsErrors" ? Out.WarningsAsErrors : Out.Rules) = S;
      } else if (Key == "CheckOptions") {
        if (auto *M = dyn_cast_or_null<yaml::MappingNode>(V)) {
          for (yaml::KeyValueNode &O : *M) {
            std::string K, Val;
            if (!scalarText(O.getKey(), K) || !scalarText(O.getValue(), Val))
              return Fail(O.getKey()->getSourceRange().Start,
                          "CheckOptions entries are '<rule>.<Option>: value'");
            Out.Options.Values[K] = Val;
          }
        } else if (auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(V)) {
          for (yaml::Node &Item : *Seq) {
            auto *IM = dyn_cast<yaml::MappingNode>(&Item);
            if (!IM)
              return Fail(Item.getSourceRange().Start,
                          "expected '- key: ...' and 'value: ...'");
            std::string K, Val;
            for (yaml::KeyValueNode &F : *IM) {
              std::string FK;
              scalarText(F.getKey(), FK);
              if (FK == "key")
                scalarText(F.getValue(), K);
              else if (FK == "value")
                scalarText(F.getValue(), Val);
            }
            if (K.empty())
              return Fail(Item.getSourceRange().Start,
                          "CheckOptions entry without 'key'");
            Out.Options.Values[K] = Val;
          }
        } else if (V && !isa<yaml::NullNode>(V)) {
          return Fail(V->getSourceRange().Start,
                      "CheckOptions must be a mapping or a list");
        }
      } else if (Key == "Harness") {
        // Parsed later, per kernel, by lib/Verify (parseHarnessSpec): keep
        // the file name or the text of the value, at its own lines/columns.
        if (!V || isa<yaml::NullNode>(V))
          continue;
        SMLoc Start = V->getSourceRange().Start;
        ConfigHarness H;
        if (isa<yaml::ScalarNode>(V) || isa<yaml::BlockScalarNode>(V)) {
          std::string F;
          scalarText(V, F);
          SmallString<256> P(F);
          if (!sys::path::is_absolute(P)) {
            P = sys::path::parent_path(Path);
            sys::path::append(P, F);
          }
          sys::fs::make_absolute(P);
          sys::path::remove_dots(P, true);
          H.SpecFile = std::string(P);
        } else if (isa<yaml::MappingNode>(V)) {
          V->skip();
          // The value runs to the next top-level key (or the end); a block
          // value ends before the first line that starts in column 1.
          StringRef Buf = SM.getMemoryBuffer(SM.getMainFileID())->getBuffer();
          size_t B = Start.getPointer() - Buf.data();
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
            if (C != ' ' && C != '\t' && C != '\n' && C != '\r' &&
                C != '#') {
              E = LineEnd + 1;
              break;
            }
            LineEnd = Buf.find('\n', LineEnd + 1);
          }
          H.SpecText = blankOutside(Buf, B, E);
          Start = SMLoc::getFromPointer(Buf.data() + B);
        } else {
          return Fail(Start, "Harness must be a harness spec (a mapping, "
                             "usually 'kernels:'; docs/harness.md) or the "
                             "name of a spec file");
        }
        auto LC = SM.getLineAndColumn(Start);
        H.Line = LC.first;
        H.Column = LC.second;
        Out.Harness = std::move(H);
      } else {
        return Fail(KV.getKey()->getSourceRange().Start,
                    "unknown key '" + Key +
                        "' (expected Rules, WarningsAsErrors, CheckOptions, "
                        "Harness)");
      }
    }
  }
  if (!Diag.empty()) {
    Error = (Path + ":" + Diag).str();
    Error.insert(Error.find(": ", Path.size() + 1) + 2, "error: ");
    return false;
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
