//===- FindingOutput.cpp - findings as JSON and SARIF 2.1.0 ---------------===//
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Config.h"
#include "cudal1/Support/Utf8.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <map>

using namespace llvm;

namespace cudal1 {

std::string ruleDocUrl(StringRef Base, StringRef RuleId) {
  std::string U = Base.str();
  if (!U.empty() && U.back() != '/')
    U += '/';
  return U + RuleId.str() + ".md";
}

std::string defaultRuleDocsBase(const char *Argv0, void *MainAddr) {
  std::vector<std::string> Dirs;
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    SmallString<256> D(sys::path::parent_path(sys::path::parent_path(Exe)));
    sys::path::append(D, "share", "doc", "cuda-l1", "rules");
    Dirs.push_back(std::string(D));
  }
  Dirs.push_back(CUDAL1_SOURCE_DIR "/docs/rules");
  for (const std::string &D : Dirs)
    if (sys::fs::is_directory(D))
      return fileUri(D) + "/";
  return "";
}

std::string fileUri(StringRef Path) {
  std::string U = "file://";
  for (char C : Path) {
    if (isAlnum(C) || StringRef("/-_.~").contains(C))
      U += C;
    else {
      char Buf[4];
      snprintf(Buf, sizeof(Buf), "%%%02X", (unsigned char)C);
      U += Buf;
    }
  }
  return U;
}

namespace {

/// The files findings point into, read once each.
class SourceLines {
public:
  /// Line \p Line (1-based) of \p File without its line end; "" when the
  /// file cannot be read or is shorter.
  StringRef line(const std::string &File, unsigned Line) {
    auto It = Lines.find(File);
    if (It == Lines.end()) {
      It = Lines.emplace(File, std::vector<std::string>()).first;
      if (auto Buf = MemoryBuffer::getFile(File)) {
        SmallVector<StringRef, 0> Ls;
        (*Buf)->getBuffer().split(Ls, '\n');
        for (StringRef L : Ls)
          It->second.push_back(L.rtrim('\r').str());
      }
    }
    if (Line == 0 || Line > It->second.size())
      return "";
    return It->second[Line - 1];
  }
  /// The UTF-16 column (1-based) of byte column \p Column of a line.
  unsigned utf16Column(const SourceLoc &L) {
    StringRef Text = line(L.File, L.Line);
    if (L.Column == 0 || L.Column - 1 > Text.size())
      return L.Column;
    return utf16Length(Text.take_front(L.Column - 1)) + 1;
  }

private:
  std::map<std::string, std::vector<std::string>> Lines;
};

/// \p Root, or the current folder, as a real path with a trailing '/'.
std::string rootFolder(StringRef Root) {
  SmallString<256> R(Root);
  if (R.empty())
    sys::fs::current_path(R);
  SmallString<256> Real;
  if (!sys::fs::real_path(R, Real))
    R = Real;
  std::string S(R);
  if (S.empty() || S.back() != '/')
    S += '/';
  return S;
}

/// \p File relative to \p Root (with its '/') when under it.
std::string relativeTo(StringRef Root, StringRef File) {
  if (File.starts_with(Root))
    return File.drop_front(Root.size()).str();
  return File.str();
}

json::Object locJson(const SourceLoc &L) {
  return json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

} // namespace

std::vector<std::string> findingFingerprints(const std::vector<Finding> &Fs,
                                             StringRef Root) {
  std::string R = rootFolder(Root);
  SourceLines Lines;
  std::map<std::string, unsigned> Seen;
  std::vector<std::string> Out;
  for (const Finding &F : Fs) {
    SmallVector<StringRef, 8> Words;
    SplitString(Lines.line(F.Loc.File, F.Loc.Line), Words);
    std::string Data = F.RuleId + '\0' + relativeTo(R, F.Loc.File) + '\0' +
                       F.Kernel + '\0' + F.Message + '\0' + join(Words, " ");
    unsigned Occurrence = Seen[Data]++;
    Data += '\0' + std::to_string(Occurrence);
    auto Hash = SHA256::hash(arrayRefFromStringRef(Data));
    Out.push_back(toHex(ArrayRef<uint8_t>(Hash).take_front(8), true));
  }
  return Out;
}

json::Value findingToJson(const Finding &F, const std::string &Fingerprint) {
  json::Object O{{"rule", F.RuleId},
                 {"category", F.category()},
                 {"severity", F.Severity},
                 {"file", F.Loc.File},
                 {"line", F.Loc.Line},
                 {"column", F.Loc.Column},
                 {"offset", F.Offset},
                 {"message", F.Message},
                 {"fingerprint", Fingerprint}};
  if (!F.RangeEnd.File.empty())
    O["end"] = locJson(F.RangeEnd);
  if (!F.Kernel.empty())
    O["kernel"] = F.Kernel;
  json::Array Notes;
  for (const FindingNote &N : F.Notes) {
    json::Object NO{{"message", N.Message}};
    if (!N.Loc.File.empty()) {
      NO["file"] = N.Loc.File;
      NO["line"] = N.Loc.Line;
      NO["column"] = N.Loc.Column;
    }
    Notes.push_back(std::move(NO));
  }
  O["notes"] = std::move(Notes);
  if (F.Fix) {
    json::Array Edits;
    for (const TextEdit &E : F.Fix->Edits)
      Edits.push_back(json::Object{{"file", E.File},
                                   {"offset", E.Offset},
                                   {"length", E.Length},
                                   {"replacement", E.Replacement}});
    json::Object Fix{{"description", F.Fix->Description},
                     {"exactness", toString(F.Fix->Exact)},
                     {"proven", F.Fix->Proven},
                     {"needsMeasurement", F.Fix->NeedsMeasurement},
                     {"edits", std::move(Edits)}};
    if (F.Fix->Exact == Exactness::Ulp)
      Fix["ulp"] = F.Fix->Ulp;
    if (F.Fix->Rtol || F.Fix->Atol) {
      Fix["rtol"] = F.Fix->Rtol;
      Fix["atol"] = F.Fix->Atol;
    }
    if (F.Fix->ScaleRtol)
      Fix["scale_rtol"] = F.Fix->ScaleRtol;
    if (!F.Fix->GridSumParams.empty()) {
      json::Array Sums;
      for (const std::string &P : F.Fix->GridSumParams)
        Sums.push_back(P);
      Fix["grid_sum_outputs"] = std::move(Sums);
    }
    O["fix"] = std::move(Fix);
  }
  if (!F.WhyNoFix.empty())
    O["whyNoFix"] = F.WhyNoFix;
  return O;
}

json::Value findingsJson(const std::vector<Finding> &Findings, StringRef Root) {
  std::vector<std::string> Fps = findingFingerprints(Findings, Root);
  json::Array A;
  for (size_t I = 0; I < Findings.size(); ++I)
    A.push_back(findingToJson(Findings[I], Fps[I]));
  return json::Object{{"version", FindingsJsonVersion},
                      {"findings", std::move(A)}};
}

bool readBaseline(StringRef Path, std::multiset<std::string> &Out,
                  std::string &Error) {
  auto Fail = [&](const Twine &Why) {
    Error = (Path + ": " + Why).str();
    return false;
  };
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return Fail(Buf.getError().message());
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return Fail("not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  const json::Array *Fs = O ? O->getArray("findings") : nullptr;
  std::optional<int64_t> Version = O ? O->getInteger("version") : std::nullopt;
  if (!Fs || !Version)
    return Fail("not the output of --format=json (no \"version\" and "
                "\"findings\")");
  if (*Version != FindingsJsonVersion)
    return Fail("findings of version " + Twine(*Version) + "; this tool "
                "matches version " + Twine(FindingsJsonVersion) +
                " (regenerate the baseline with --format=json)");
  for (size_t I = 0; I < Fs->size(); ++I) {
    const json::Object *F = (*Fs)[I].getAsObject();
    std::optional<StringRef> Fp = F ? F->getString("fingerprint") : std::nullopt;
    if (!Fp)
      return Fail("finding " + Twine(I) + " has no \"fingerprint\"");
    Out.insert(Fp->str());
  }
  return true;
}

unsigned applyBaseline(std::vector<Finding> &Findings,
                       std::multiset<std::string> Baseline, StringRef Root) {
  std::vector<std::string> Fps = findingFingerprints(Findings, Root);
  std::vector<Finding> Kept;
  unsigned Removed = 0;
  for (size_t I = 0; I < Findings.size(); ++I) {
    auto It = Baseline.find(Fps[I]);
    if (It != Baseline.end()) {
      Baseline.erase(It);
      ++Removed;
      continue;
    }
    Kept.push_back(std::move(Findings[I]));
  }
  Findings = std::move(Kept);
  return Removed;
}

// ---- SARIF 2.1.0 --------------------------------------------------------------

namespace {

const char *sarifLevel(StringRef Severity) {
  if (Severity == "error")
    return "error";
  if (Severity == "note")
    return "note";
  return "warning";
}

/// Artifact locations: relative to %SRCROOT% (the root folder) when under
/// it, as code-scanning services expect, else absolute file URIs.
struct SarifPaths {
  std::string Root;
  json::Object artifact(StringRef File) const {
    std::string Rel = relativeTo(Root, File);
    if (Rel == File)
      return json::Object{{"uri", fileUri(File)}};
    std::string U = fileUri(Rel).substr(StringRef("file://").size());
    return json::Object{{"uri", U}, {"uriBaseId", "%SRCROOT%"}};
  }
};

json::Object physical(const SarifPaths &P, SourceLines &Lines,
                      const SourceLoc &L, const SourceLoc *End) {
  json::Object Region{{"startLine", L.Line},
                      {"startColumn", Lines.utf16Column(L)}};
  if (End && !End->File.empty() && End->File == L.File) {
    Region["endLine"] = End->Line;
    // Exclusive end: one past the last character's first code unit.
    Region["endColumn"] = Lines.utf16Column(*End) + 1;
  }
  return json::Object{{"physicalLocation",
                       json::Object{{"artifactLocation", P.artifact(L.File)},
                                    {"region", std::move(Region)}}}};
}

json::Object sarifRule(const std::string &Id, const RuleInfo *R,
                       const OutputOptions &Opts) {
  std::string Summary = R ? R->Summary : Id;
  std::string Help = R && !R->Help.empty() ? R->Help : Summary;
  std::string Markdown = Help;
  json::Object RJ{{"id", Id},
                  {"name", Id},
                  {"shortDescription", json::Object{{"text", Summary}}},
                  {"fullDescription", json::Object{{"text", Help}}},
                  {"defaultConfiguration", json::Object{{"level", "warning"}}},
                  {"properties",
                   json::Object{{"category", R ? R->Category
                                               : Id.substr(0, Id.find('-'))},
                                {"exactness", toString(R ? R->Exactness : Exactness::None)},
                                {"origin", R ? R->Origin : "builtin"}}}};
  if (!Opts.RuleDocsBase.empty()) {
    std::string Url = ruleDocUrl(Opts.RuleDocsBase, Id);
    RJ["helpUri"] = Url;
    Markdown += "\n\n[" + Id + "](" + Url + ")";
  }
  RJ["help"] = json::Object{{"text", Help}, {"markdown", Markdown}};
  return RJ;
}

json::Array sarifFixes(const SarifPaths &P, const FixIt &Fix) {
  std::map<std::string, json::Array> ByFile;
  for (const TextEdit &E : Fix.Edits)
    ByFile[E.File].push_back(json::Object{
        {"deletedRegion",
         json::Object{{"byteOffset", E.Offset}, {"byteLength", E.Length}}},
        {"insertedContent", json::Object{{"text", E.Replacement}}}});
  json::Array Changes;
  for (auto &BF : ByFile)
    Changes.push_back(json::Object{{"artifactLocation", P.artifact(BF.first)},
                                   {"replacements", std::move(BF.second)}});
  return json::Array{json::Object{
      {"description", json::Object{{"text", Fix.Description}}},
      {"artifactChanges", std::move(Changes)}}};
}

} // namespace

json::Value findingsSarif(const std::vector<Finding> &Findings,
                          const std::vector<RuleInfo> &Rules,
                          const std::string &ToolVersion,
                          const OutputOptions &Opts) {
  std::map<std::string, const RuleInfo *> ById;
  for (const RuleInfo &R : Rules)
    ById[R.Id] = &R;
  SarifPaths Paths{rootFolder(Opts.Root)};
  SourceLines Lines;
  // Rules that have results, in the order first seen, and their index.
  std::map<std::string, unsigned> Index;
  json::Array RulesJ;
  for (const Finding &F : Findings)
    if (Index.emplace(F.RuleId, RulesJ.size()).second)
      RulesJ.push_back(sarifRule(
          F.RuleId, ById.count(F.RuleId) ? ById[F.RuleId] : nullptr, Opts));

  std::vector<std::string> Fps = findingFingerprints(Findings, Opts.Root);
  json::Array Results;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    json::Object Res{
        {"ruleId", F.RuleId},
        {"ruleIndex", Index[F.RuleId]},
        {"level", sarifLevel(F.Severity)},
        {"message", json::Object{{"text", F.Message}}},
        {"locations", json::Array{physical(Paths, Lines, F.Loc, &F.RangeEnd)}},
        {"partialFingerprints", json::Object{{"cudaL1/v1", Fps[I]}}}};
    json::Array Related;
    for (const FindingNote &N : F.Notes) {
      json::Object R;
      if (!N.Loc.File.empty())
        R = physical(Paths, Lines, N.Loc, nullptr);
      R["id"] = int64_t(Related.size());
      R["message"] = json::Object{{"text", N.Message}};
      Related.push_back(std::move(R));
    }
    if (!Related.empty())
      Res["relatedLocations"] = std::move(Related);
    if (F.Fix)
      Res["fixes"] = sarifFixes(Paths, *F.Fix);
    json::Object Props;
    if (!F.Kernel.empty())
      Props["kernel"] = F.Kernel;
    if (F.Fix)
      Props["fixExactness"] = toString(F.Fix->Exact);
    if (!Props.empty())
      Res["properties"] = std::move(Props);
    Results.push_back(std::move(Res));
  }
  json::Object Driver{{"name", "cuda-l1-rewrite"},
                      {"version", ToolVersion},
                      {"informationUri", "https://github.com/cuda-l1/cuda-l1"},
                      {"rules", std::move(RulesJ)}};
  json::Object Run{
      {"tool", json::Object{{"driver", std::move(Driver)}}},
      {"originalUriBaseIds",
       json::Object{{"%SRCROOT%", json::Object{{"uri", fileUri(Paths.Root)}}}}},
      {"results", std::move(Results)},
      {"columnKind", "utf16CodeUnits"}};
  return json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::Array{std::move(Run)}}};
}

} // namespace cudal1
