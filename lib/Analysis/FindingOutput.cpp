//===- FindingOutput.cpp - findings as JSON and SARIF 2.1.0 ---------------===//
#include "cudal1/Analysis/FindingOutput.h"

#include "cudal1/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
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

static json::Object locJson(const SourceLoc &L) {
  return json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

json::Value findingToJson(const Finding &F) {
  json::Object O{{"rule", F.RuleId},
                 {"category", F.category()},
                 {"severity", F.Severity},
                 {"file", F.Loc.File},
                 {"line", F.Loc.Line},
                 {"column", F.Loc.Column},
                 {"offset", F.Offset},
                 {"message", F.Message}};
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
    O["fix"] = std::move(Fix);
  }
  if (!F.WhyNoFix.empty())
    O["whyNoFix"] = F.WhyNoFix;
  return O;
}

json::Value findingsJson(const std::vector<Finding> &Findings) {
  json::Array A;
  for (const Finding &F : Findings)
    A.push_back(findingToJson(F));
  return json::Object{{"version", 1}, {"findings", std::move(A)}};
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

static json::Object physical(const SourceLoc &L, const SourceLoc *End) {
  json::Object Region{{"startLine", L.Line}, {"startColumn", L.Column}};
  if (End && !End->File.empty() && End->File == L.File) {
    Region["endLine"] = End->Line;
    Region["endColumn"] = End->Column + 1; // SARIF: exclusive end column
  }
  return json::Object{
      {"physicalLocation",
       json::Object{{"artifactLocation", json::Object{{"uri", fileUri(L.File)}}},
                    {"region", std::move(Region)}}}};
}

static const char *sarifLevel(StringRef Severity) {
  if (Severity == "error")
    return "error";
  if (Severity == "note")
    return "note";
  return "warning";
}

json::Value findingsSarif(const std::vector<Finding> &Findings,
                          const std::vector<RuleInfo> &Rules,
                          const std::string &ToolVersion) {
  std::map<std::string, const RuleInfo *> ById;
  for (const RuleInfo &R : Rules)
    ById[R.Id] = &R;
  // Rules that have results, in a stable order, plus their index.
  std::map<std::string, unsigned> Index;
  json::Array RulesJ;
  auto AddRule = [&](const std::string &Id) {
    if (Index.count(Id))
      return;
    Index[Id] = RulesJ.size();
    const RuleInfo *R = ById.count(Id) ? ById[Id] : nullptr;
    std::string Summary = R ? R->Summary : Id;
    std::string Help = R && !R->Help.empty() ? R->Help : Summary;
    json::Object RJ{
        {"id", Id},
        {"name", Id},
        {"shortDescription", json::Object{{"text", Summary}}},
        {"fullDescription", json::Object{{"text", Help}}},
        {"help", json::Object{{"text", Help},
                              {"markdown", Help + "\n\nSee docs/rules/" + Id +
                                               ".md."}}},
        {"helpUri", "docs/rules/" + Id + ".md"},
        {"defaultConfiguration", json::Object{{"level", "warning"}}},
        {"properties",
         json::Object{{"category", R ? R->Category : Id.substr(0, Id.find('-'))},
                      {"exactness", R ? R->Exactness : "none"},
                      {"origin", R ? R->Origin : "builtin"}}}};
    RulesJ.push_back(std::move(RJ));
  };
  for (const Finding &F : Findings)
    AddRule(F.RuleId);

  json::Array Results;
  for (const Finding &F : Findings) {
    json::Object Res{{"ruleId", F.RuleId},
                     {"ruleIndex", Index[F.RuleId]},
                     {"level", sarifLevel(F.Severity)},
                     {"message", json::Object{{"text", F.Message}}}};
    json::Array Locs;
    Locs.push_back(physical(F.Loc, &F.RangeEnd));
    Res["locations"] = std::move(Locs);
    json::Array Related;
    unsigned Id = 0;
    for (const FindingNote &N : F.Notes) {
      json::Object R;
      if (!N.Loc.File.empty())
        R = physical(N.Loc, nullptr);
      R["id"] = Id++;
      R["message"] = json::Object{{"text", N.Message}};
      Related.push_back(std::move(R));
    }
    if (!Related.empty())
      Res["relatedLocations"] = std::move(Related);
    if (F.Fix) {
      std::map<std::string, json::Array> ByFile;
      for (const TextEdit &E : F.Fix->Edits)
        ByFile[E.File].push_back(json::Object{
            {"deletedRegion",
             json::Object{{"charOffset", E.Offset}, {"charLength", E.Length}}},
            {"insertedContent", json::Object{{"text", E.Replacement}}}});
      json::Array Changes;
      for (auto &BF : ByFile)
        Changes.push_back(json::Object{
            {"artifactLocation", json::Object{{"uri", fileUri(BF.first)}}},
            {"replacements", std::move(BF.second)}});
      Res["fixes"] = json::Array{json::Object{
          {"description", json::Object{{"text", F.Fix->Description}}},
          {"artifactChanges", std::move(Changes)}}};
    }
    if (!F.Kernel.empty())
      Res["properties"] = json::Object{{"kernel", F.Kernel}};
    Results.push_back(std::move(Res));
  }
  json::Object Driver{{"name", "cuda-l1-rewrite"},
                      {"version", ToolVersion},
                      {"informationUri", "https://github.com/cuda-l1/cuda-l1"},
                      {"rules", std::move(RulesJ)}};
  json::Object Run{{"tool", json::Object{{"driver", std::move(Driver)}}},
                   {"results", std::move(Results)},
                   {"columnKind", "utf16CodeUnits"}};
  return json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::Array{std::move(Run)}}};
}

} // namespace cudal1
