//===- FixVerify.h - --fix --verify=run: each fix verified on the GPU -*- C++ -*-===//
//
// With --verify=run, every fix the rewrite engine would apply becomes a
// candidate (DESIGN.md, "Verification and benchmarking"): the kernel,
// extracted with its context, with that fix's edits applied, verified and
// timed against the original through lib/Verify (the path --verify=run
// --candidate uses). Several accepted fixes of one kernel are verified
// together too. The caller (Advise.cpp) applies what this accepts, with the
// annotation edit it returns, through applyFixes.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_REWRITE_FIXVERIFY_H
#define CUDAL1_TOOLS_REWRITE_FIXVERIFY_H

#include "Driver.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Verify/FixCandidate.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// One fix to verify (from a Finding).
struct FixRequest {
  std::string RuleId;
  std::string Kernel; ///< qualified name ("" = not in a kernel)
  SourceLoc Loc;
  Exactness Exact = Exactness::Bitwise;
  unsigned Ulp = 0;
  double Rtol = 0, Atol = 0, ScaleRtol = 0;
  std::vector<TextEdit> Edits;
};

/// A kernel the fixes are in: extracted from a translation unit, and its
/// launch sites in every file parsed.
struct KernelSources {
  ExtractedKernel K;
  std::vector<LaunchSite> Launches;
};

/// What to do with one fix.
struct FixDecision {
  bool Apply = false;
  std::string Why; ///< when not applied: the verdict or the reason
  /// The annotation above the kernel: set on one applied fix per kernel.
  std::optional<TextEdit> Annotation;
};

struct FixVerifyResult {
  std::vector<FixDecision> Decisions; ///< one per request
  std::optional<llvm::json::Value> Json; ///< results JSON (when anything ran)
  std::string Summary;                   ///< the summary table
};

/// Verifies \p Requests. Returns 0; 2 (error printed) when there is no
/// CUDA driver / GPU, or --define, a harness spec or the configuration is
/// wrong: then nothing may be written; 3 when the original itself failed
/// with a kernel's harness on the GPU (a [harness] verdict): the accepted
/// fixes are still applied, and the exit status is 2.
int verifyFixes(DriverContext &DC, const std::vector<FixRequest> &Requests,
                const std::map<std::string, KernelSources> &Kernels,
                FixVerifyResult &Result);

} // namespace cudal1

#endif
