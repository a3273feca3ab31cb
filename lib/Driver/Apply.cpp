//===- Apply.cpp - --fix / -o / --diff / --export-fixes --------------------===//
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Rules/ApplyFixes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

int Pipeline::applyFixes(const AnalysisRun &Run,
                         const FixVerifyResult *Verified,
                         const ProposalResult *Proposed) {
  ApplyOptions AO;
  AO.InPlace = Opts.Fix;
  AO.OutputDir = Opts.OutputDir;
  AO.Diff = Opts.Diff;
  AO.ExportFixes = Opts.ExportFixes;
  AO.AllowUnverified = Opts.AllowUnverified;
  AO.AllowFastMath = Opts.AllowFastMath;
  Frontend *F = FE.get();
  AO.CommandFor = [F](const std::string &File) { return F->commandFor(File); };
  AO.MainFiles = Opts.Files;
  AO.CudaPath = Opts.CudaPath;
  AO.GpuArch = Opts.GpuArch;
  AO.BuildDirectory = Opts.BuildPath;
  AO.Quiet = Opts.Quiet;
  if (Opts.Diff)
    AO.DiffOut = &outs();
  std::vector<Finding> ToApply = Run.Findings;
  // The model's accepted variants replace their kernels: those kernels' rule
  // fixes are set aside, the variants' findings join the others.
  FixVerifyResult Merged;
  if (Verified && Proposed && !Proposed->Findings.empty()) {
    Merged = *Verified;
    for (auto &KV : Merged.Decisions) {
      auto R = Proposed->Replaces.find(Run.Findings[KV.first].Kernel);
      if (R == Proposed->Replaces.end() || !KV.second.Apply)
        continue;
      KV.second.Apply = false;
      KV.second.Annotation.reset();
      KV.second.Why = R->second;
    }
    for (const Finding &F : Proposed->Findings) {
      Merged.Decisions[ToApply.size()].Apply = true;
      ToApply.push_back(F);
    }
    Verified = &Merged;
  }
  if (Verified) {
    // Only what was verified correct and faster; the annotation goes with
    // one applied fix per kernel, in the same write.
    for (const auto &KV : Verified->Decisions)
      if (KV.second.Apply && KV.second.Annotation)
        ToApply[KV.first].Fix->Edits.push_back(*KV.second.Annotation);
    const Finding *Base = ToApply.data();
    AO.VerifyBitwise = true;
    AO.Verify = [Base, Verified](const Finding &F, std::string &Why) {
      auto It = Verified->Decisions.find(&F - Base);
      if (It == Verified->Decisions.end()) {
        Why = "not verified";
        return false;
      }
      Why = It->second.Why;
      return It->second.Apply;
    };
  }
  int Exit = cudal1::applyFixes(ToApply, AO);
  if (!Verified || !Verified->Json || Opts.OutputDir.empty())
    return Exit;
  SmallString<256> P(Opts.OutputDir);
  sys::path::append(P, "verify-results.json");
  std::string Text = formatv("{0:2}", *Verified->Json).str() + "\n";
  if (std::error_code EC = sys::fs::create_directories(Opts.OutputDir)) {
    reportError(Opts.OutputDir + ": " + EC.message());
    return 2;
  }
  if (Error E = writeToOutput(P, [&](raw_ostream &OS) {
        OS << Text;
        return Error::success();
      })) {
    reportError(P.str().str() + ": " + toString(std::move(E)));
    return 2;
  }
  if (!Opts.Quiet)
    errs() << "cuda-l1: results written to " << P << "\n";
  return Exit;
}

} // namespace cudal1
