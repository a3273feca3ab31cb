//===- Apply.cpp - --fix / -o / --diff / --export-fixes --------------------===//
#include "cudal1/Support/SafeWrite.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Rules/ApplyFixes.h"

#include <set>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

/// The rewrite engine's options for \p Findings (the pipeline's own copy,
/// whose addresses the Verify callback maps back to indices).
ApplyOptions Pipeline::applyOptions(const std::vector<Finding> &Findings,
                                    const FixVerifyResult *Verified) const {
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
  if (Verified) {
    // Only what was verified correct and faster.
    const Finding *Base = Findings.data();
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
  return AO;
}

/// The findings to apply: with the annotations of verified kernels (they go
/// with one applied fix per kernel, in the same write), without the fixes
/// --app-test dropped.
std::vector<Finding> Pipeline::findingsToApply(
    const AnalysisRun &Run, const FixVerifyResult *Verified,
    const std::set<size_t> &Without) const {
  std::vector<Finding> ToApply = Run.Findings;
  if (Verified)
    for (const auto &KV : Verified->Decisions)
      if (KV.second.Apply && KV.second.Annotation)
        ToApply[KV.first].Fix->Edits.push_back(*KV.second.Annotation);
  for (size_t I : Without)
    ToApply[I].Fix.reset();
  return ToApply;
}

int Pipeline::applyFixes(const AnalysisRun &Analysed,
                         const FixVerifyResult *Verified,
                         const ProposalResult *Proposed) {
  // The model's accepted variants replace their kernels: those kernels' rule
  // fixes are set aside, the variants' findings join the others (as fixes
  // verified on the GPU: a variant is only proposed for writing when it was
  // measured, so Verified is there).
  const AnalysisRun *RunP = &Analysed;
  AnalysisRun WithVariants;
  FixVerifyResult Merged;
  if (Verified && Proposed && !Proposed->Findings.empty()) {
    WithVariants.Findings = Analysed.Findings;
    WithVariants.Status = Analysed.Status;
    Merged = *Verified;
    for (auto &KV : Merged.Decisions) {
      auto R = Proposed->Replaces.find(Analysed.Findings[KV.first].Kernel);
      if (R == Proposed->Replaces.end() || !KV.second.Apply)
        continue;
      KV.second.Apply = false;
      KV.second.Annotation.reset();
      KV.second.Why = R->second;
    }
    for (const Finding &F : Proposed->Findings) {
      Merged.Decisions[WithVariants.Findings.size()].Apply = true;
      WithVariants.Findings.push_back(F);
    }
    RunP = &WithVariants;
    Verified = &Merged;
  }
  const AnalysisRun &Run = *RunP;
  std::set<size_t> Dropped;
  if (!Opts.AppTest.empty()) {
    int St = appTest(Run, Verified, Dropped);
    if (St)
      return St; // the test command is unusable: nothing is written
  }
  std::vector<Finding> ToApply = findingsToApply(Run, Verified, Dropped);
  ApplyOptions AO = applyOptions(ToApply, Verified);
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
  SafeWriteResult W = writeFileSafely(P, Text);
  if (!W.Ok) {
    reportError(P.str().str() + ": " + W.Error);
    return 2;
  }
  if (!Opts.Quiet)
    errs() << "cuda-l1: results written to " << P << "\n";
  return Exit;
}

} // namespace cudal1
