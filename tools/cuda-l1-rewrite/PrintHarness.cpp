//===- PrintHarness.cpp - --print-harness ----------------------------------===//
//
// Prints the harness inferred for every kernel of the input files
// (Pipeline::inferHarnesses) as one YAML spec with an entry per kernel under
// `kernels:` — valid input for --harness once each "?" is replaced — or,
// with --format=json, as JSON (docs/harness.md, "Inferred harnesses").
//
//===----------------------------------------------------------------------===//
#include "Tool.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

namespace {

std::string shortLoc(const SourceLoc &L) {
  return sys::path::filename(L.File).str() + ":" + std::to_string(L.Line) +
         ":" + std::to_string(L.Column);
}

void printYaml(const HarnessListing &L, raw_ostream &OS) {
  OS << "# Harness specs inferred by cuda-l1-rewrite --print-harness "
        "(docs/harness.md).\n"
     << "# Use with --harness=<this file>; an entry with \"?\" needs those "
        "values first\n# (or --define NAME=VALUE for each; --program-args \"...\" "
        "for values the program\n# reads from its command line).\n";
  unsigned Entries = 0;
  for (const auto &It : L.Items)
    Entries += It.Status != "no-launch";
  OS << (Entries ? "kernels:\n" : "kernels: {}\n");
  for (const auto &It : L.Items) {
    if (It.Status == "no-launch")
      continue;
    OS << "  " << It.EntryName << ":\n";
    OS << "    # " << It.Kernel << " (" << shortLoc(It.Definition)
       << "): " << It.Status << ", " << It.Origin << "\n";
    for (const auto &M : It.Inferred.Missing)
      OS << "    # unknown: " << M << "\n";
    StringRef Spec(It.Inferred.Spec);
    while (!Spec.empty()) {
      auto [Line, Rest] = Spec.split('\n');
      OS << "    " << Line << "\n";
      Spec = Rest;
    }
    for (size_t I = 0; I < It.OtherLaunches.size() && I < 3; ++I)
      OS << "    # also launched: " << It.OtherLaunches[I] << "\n";
    if (It.OtherLaunches.size() > 3)
      OS << "    # ... and " << It.OtherLaunches.size() - 3
         << " more launches (--format=json lists them)\n";
  }
  for (const auto &It : L.Items)
    if (It.Status == "no-launch")
      OS << "# " << It.Kernel << " (" << shortLoc(It.Definition)
         << "): no harness: " << It.Why << "\n";
}

json::Value harnessJson(const Harness &H) {
  json::Array Params;
  for (const auto &A : H.Args) {
    if (A.IsBuffer) {
      const BufferSpec &B = A.Buffer;
      json::Array Init;
      for (const auto &D : B.Init)
        Init.push_back(D.str());
      Params.push_back(json::Object{
          {"name", B.Param},
          {"buffer", true},
          {"count", int64_t(B.Count)},
          {"element", elemKindName(B.Kind)},
          {"role", B.ReadOnly ? "input" : B.Init.empty() ? "output" : "inout"},
          {"init", std::move(Init)}});
    } else {
      const ScalarSpec &S = A.Scalar;
      json::Value V = S.Value.IsFloat ? json::Value(S.Value.F)
                                      : json::Value(S.Value.I);
      Params.push_back(json::Object{{"name", S.Param},
                                    {"buffer", false},
                                    {"type", elemKindName(S.Kind)},
                                    {"value", std::move(V)}});
    }
  }
  auto Dims = [](const std::array<uint64_t, 3> &D) {
    return json::Array{int64_t(D[0]), int64_t(D[1]), int64_t(D[2])};
  };
  return json::Object{{"grid", Dims(H.Grid)},
                      {"block", Dims(H.Block)},
                      {"shared_mem", int64_t(H.SharedMem)},
                      {"params", std::move(Params)}};
}

json::Value listingJson(const HarnessListing &L) {
  json::Array Kernels;
  unsigned WithLaunch = 0, Complete = 0;
  for (const auto &It : L.Items) {
    WithLaunch += It.LaunchSites > 0;
    Complete += It.Status == "complete";
    json::Object O{{"kernel", It.Kernel},
                   {"entry", It.EntryName},
                   {"file", It.Definition.File},
                   {"line", int64_t(It.Definition.Line)},
                   {"launch_sites", int64_t(It.LaunchSites)},
                   {"status", It.Status}};
    if (It.Status == "no-launch") {
      O["why"] = It.Why;
    } else {
      O["origin"] = It.Origin;
      O["missing"] = json::Array(It.Inferred.Missing);
      O["notes"] = json::Array(It.Inferred.Notes);
      O["spec"] = It.Inferred.Spec;
      O["other_launches"] = json::Array(It.OtherLaunches);
      if (It.Inferred.Complete)
        O["harness"] = harnessJson(It.Inferred.H);
    }
    Kernels.push_back(std::move(O));
  }
  return json::Object{
      {"kernels", std::move(Kernels)},
      {"summary", json::Object{{"kernels", int64_t(L.Items.size())},
                               {"with_launch_site", int64_t(WithLaunch)},
                               {"complete", int64_t(Complete)},
                               {"files_failed", int64_t(L.Status.Failed)}}}};
}

} // namespace

int runPrintHarness(Pipeline &P) {
  if (P.options().Format == OutputFormat::Sarif) {
    reportError("--format=sarif is for findings; --print-harness writes "
                "YAML (text) or json");
    return 2;
  }
  HarnessListing L = P.inferHarnesses();
  if (L.Exit == 2 && L.Items.empty() && L.Status.Parsed == 0)
    return 2;
  if (P.options().Format == OutputFormat::Json)
    printJson(listingJson(L), outs());
  else
    printYaml(L, outs());
  return L.Exit;
}

} // namespace cudal1
