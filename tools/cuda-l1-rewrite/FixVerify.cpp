//===- FixVerify.cpp - --fix --verify=run: each fix verified on the GPU ---===//
#include "FixVerify.h"
#include "HarnessResolve.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Config.h"
#include "cudal1/Verify/HarnessSelect.h"
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cctype>

using namespace llvm;

namespace cudal1 {

namespace {


std::string shortLoc(const SourceLoc &L) {
  return sys::path::filename(L.File).str() + ":" + std::to_string(L.Line) +
         ":" + std::to_string(L.Column);
}

/// The options of one job: the run's, widened by what the rules say their
/// fixes may change (ulp count, tolerances).
VerifyOptions optionsFor(const VerifyOptions &Base,
                         const std::vector<const FixRequest *> &Rs) {
  VerifyOptions O = Base;
  for (const FixRequest *R : Rs) {
    O.Tol.MaxUlp = std::max<uint64_t>(O.Tol.MaxUlp, R->Ulp);
    O.Tol.F32Rtol = std::max(O.Tol.F32Rtol, R->Rtol);
    O.Tol.F32Atol = std::max(O.Tol.F32Atol, R->Atol);
    O.Tol.ScaleRtol = std::max(O.Tol.ScaleRtol, R->ScaleRtol);
  }
  return O;
}

/// One kernel with fixes to verify.
struct KernelWork {
  std::string Kernel;
  const KernelSources *KS = nullptr;
  std::string File, FileText, KernelText;
  size_t KernelOffset = 0;
  HarnessAnswer HA;
  std::vector<ParamInfo> Params;
  std::vector<size_t> Requests;            ///< all of this kernel
  std::map<size_t, std::string> Candidate; ///< request -> new definition
  /// request -> the candidate's own launch shape (a fix that rewrites the
  /// kernel's launch sites too: thread-mapping swap, warp per row)
  std::map<size_t, std::pair<std::array<uint64_t, 3>, std::array<uint64_t, 3>>>
      Launch;
};

/// Takes the edits of \p Edits that rewrite the grid or block expression of
/// one of the kernel's launch sites out of \p Edits and derives the
/// candidate's launch shape from them (deriveCandidateDims). Edits elsewhere
/// outside the kernel stay (applyEditsToKernel refuses them). False with
/// \p Why when launch-site edits do not give one shape.
bool takeLaunchEdits(const KernelWork &W, const Harness &H,
                     std::vector<TextEdit> &Edits,
                     std::optional<std::array<uint64_t, 3>> &Grid,
                     std::optional<std::array<uint64_t, 3>> &Block,
                     std::string &Why) {
  size_t KB = W.KernelOffset, KE = W.KernelOffset + W.KernelText.size();
  std::vector<TextEdit> Keep;
  for (const TextEdit &E : Edits) {
    bool Inside = E.Offset >= KB && E.Offset + E.Length <= KE;
    if (Inside || E.File != W.File || E.Offset + E.Length > W.FileText.size()) {
      Keep.push_back(E);
      continue;
    }
    std::string Orig = withoutSpaces(W.FileText.substr(E.Offset, E.Length));
    bool Taken = false;
    for (const LaunchSite &LS : W.KS->Launches) {
      if (LS.Loc.File != W.File || Orig.empty())
        continue;
      size_t At = offsetOfLineColumn(W.FileText, LS.Loc.Line, LS.Loc.Column);
      if (E.Offset < At || E.Offset > At + 4096)
        continue;
      bool IsGrid = Orig == withoutSpaces(LS.Grid.Text);
      bool IsBlock = Orig == withoutSpaces(LS.Block.Text);
      if (!IsGrid && !IsBlock)
        continue;
      if (IsGrid && IsBlock) {
        Why = "a launch-site edit of '" + LS.Grid.Text +
              "' is both the grid and the block expression";
        return false;
      }
      std::array<uint64_t, 3> D;
      if (!deriveCandidateDims(IsGrid ? LS.Grid.Text : LS.Block.Text,
                               E.Replacement, IsGrid ? H.Grid : H.Block, D,
                               Why))
        return false;
      auto &Slot = IsGrid ? Grid : Block;
      if (Slot && *Slot != D) {
        Why = "its launch-site edits give different launch shapes";
        return false;
      }
      Slot = D;
      Taken = true;
      break;
    }
    if (!Taken)
      Keep.push_back(E);
  }
  Edits = std::move(Keep);
  return true;
}
} // namespace

int verifyFixes(DriverContext &DC, const std::vector<FixRequest> &Requests,
                const std::map<std::string, KernelSources> &Kernels,
                FixVerifyResult &Result) {
  Result.Decisions.assign(Requests.size(), FixDecision());
  ExprEnv Env;
  for (const std::string &D : registeredList("define")) {
    std::string E;
    if (!parseDefine(D, Env, E)) {
      reportError(E);
      return 2;
    }
  }
  std::string HarnessFile = registeredString("harness");
  double MinSpeedup = registeredDouble("min-speedup", 1.05);

  // Group the fixes by kernel (first appearance order).
  std::vector<KernelWork> Work;
  std::map<std::string, size_t> WorkOf;
  for (size_t I = 0; I < Requests.size(); ++I) {
    const FixRequest &R = Requests[I];
    if (R.Kernel.empty()) {
      Result.Decisions[I].Why =
          "not in a kernel: --verify=run verifies kernels (this fix is in a "
          "device function or host code)";
      continue;
    }
    auto It = WorkOf.find(R.Kernel);
    if (It == WorkOf.end()) {
      It = WorkOf.emplace(R.Kernel, Work.size()).first;
      Work.emplace_back();
      Work.back().Kernel = R.Kernel;
    }
    Work[It->second].Requests.push_back(I);
  }

  // Everything up to the GPU: kernel text, harness, candidate sources.
  bool BadInput = false;
  unsigned NumCandidates = 0;
  for (KernelWork &W : Work) {
    auto SetAll = [&](const std::string &Why) {
      for (size_t I : W.Requests)
        Result.Decisions[I].Why = Why;
    };
    auto KIt = Kernels.find(W.Kernel);
    if (KIt == Kernels.end()) {
      SetAll("kernel '" + W.Kernel + "' could not be extracted");
      continue;
    }
    W.KS = &KIt->second;
    const ExtractedKernel &K = W.KS->K;
    if (!K.Problems.empty()) {
      SetAll("kernel '" + W.Kernel +
             "' could not be extracted for verification: " + K.Problems[0]);
      continue;
    }
    W.File = K.KernelRange.Begin.File;
    auto Buf = MemoryBuffer::getFile(W.File);
    if (!Buf) {
      SetAll(W.File + ": " + Buf.getError().message());
      continue;
    }
    W.FileText = (*Buf)->getBuffer().str();
    size_t B = std::min(K.KernelBegin, K.Source.size());
    size_t E = std::min(std::max(K.KernelEnd, B), K.Source.size());
    W.KernelText = K.Source.substr(B, E - B);
    auto Off = locateKernelText(
        W.FileText, W.KernelText,
        offsetOfLineColumn(W.FileText, K.KernelRange.Begin.Line,
                           K.KernelRange.Begin.Column));
    if (!Off) {
      SetAll("the definition of kernel '" + W.Kernel + "' as extracted is "
             "not found verbatim in " + W.File);
      continue;
    }
    W.KernelOffset = *Off;
    W.Params = namedParams(K.Params);

    HarnessQuery Q;
    Q.SourceFile = W.File;
    Q.Kernel = W.Kernel;
    Q.Params = W.Params;
    Q.Env = Env;
    Q.Launches = W.KS->Launches;
    Q.CommandLineSpec = HarnessFile;
    W.HA = resolveHarness(Q);
    if (W.HA.Status == HarnessStatus::Error) {
      reportError(W.HA.Message);
      BadInput = true;
      continue;
    }
    if (W.HA.Status == HarnessStatus::Missing) {
      SetAll(W.HA.Message + " (give one with --harness=<file> or Harness: "
                            "in .cuda-l1.yaml; docs/harness.md)");
      if (!Quiet)
        errs() << "cuda-l1: " << W.HA.Message
               << "; a filled-in harness spec to copy (--harness=<file>, "
                  "or under 'Harness: kernels:' in .cuda-l1.yaml):\n\n"
               << W.HA.Template << "\n";
      continue;
    }
    for (size_t I : W.Requests) {
      std::string Def, Why;
      std::vector<TextEdit> KernelEdits = Requests[I].Edits;
      std::optional<std::array<uint64_t, 3>> LG, LB;
      if (!takeLaunchEdits(W, W.HA.H, KernelEdits, LG, LB, Why)) {
        Result.Decisions[I].Why = "not verifiable as a kernel candidate: " +
                                  Why;
        continue;
      }
      if (!applyEditsToKernel(W.KernelText, W.KernelOffset, KernelEdits, Def,
                              Why)) {
        Result.Decisions[I].Why = "not verifiable as a kernel candidate: " +
                                  Why;
        continue;
      }
      if (Requests[I].Exact == Exactness::None) {
        Result.Decisions[I].Why = "a fix of exactness 'none' cannot be "
                                  "verified";
        continue;
      }
      W.Candidate[I] = Def;
      if (LG || LB)
        W.Launch[I] = {LG.value_or(W.HA.H.Grid), LB.value_or(W.HA.H.Block)};
      ++NumCandidates;
    }
  }
  if (BadInput)
    return 2;

  // Which fixes are candidates, and which are not (and why).
  if (!Quiet) {
    unsigned N = 0;
    for (KernelWork &W : Work)
      for (auto &C : W.Candidate) {
        const FixRequest &R = Requests[C.first];
        errs() << formatv("cuda-l1: candidate {0}/{1}: {2} [{3}] in kernel "
                          "'{4}' ({5}); harness: {6}\n",
                          ++N, NumCandidates, shortLoc(R.Loc), R.RuleId,
                          W.Kernel, toString(R.Exact), W.HA.Source);
      }
    for (size_t I = 0; I < Requests.size(); ++I)
      if (!Result.Decisions[I].Why.empty())
        errs() << "cuda-l1: not a candidate: " << shortLoc(Requests[I].Loc)
               << " [" << Requests[I].RuleId << "]: "
               << Result.Decisions[I].Why << "\n";
  }
  if (NumCandidates == 0)
    return 0;

  VerifyOptions Opts = verifyOptionsFromFlags(DC.Config.Parse.CudaPath);
  Opts.MinSpeedup = MinSpeedup;
  VerifyReport Report;
  if (!startVerifyReport(Opts, std::to_string(NumCandidates) + " candidate(s)",
                         Report))
    return 2;
  const GpuInfo &Gpu = Report.Gpu;
  unsigned Index = 0, Total = NumCandidates;
  bool HarnessFailed = false;
  for (KernelWork &W : Work) {
    if (W.Candidate.empty())
      continue;
    const ExtractedKernel &K = W.KS->K;
    KernelReport KR;
    KR.Kernel = W.Kernel;
    KR.File = W.File;
    KR.HarnessSource = W.HA.Source;
    auto Run = [&](const std::vector<size_t> &Rs, const std::string &Def,
                   const std::string &Label) {
      std::vector<const FixRequest *> RP;
      Exactness X = Exactness::Bitwise;
      std::string Rules;
      for (size_t I : Rs) {
        RP.push_back(&Requests[I]);
        if (exactnessRank(Requests[I].Exact) > exactnessRank(X))
          X = Requests[I].Exact;
        Rules += (Rules.empty() ? "" : ", ") + Requests[I].RuleId;
      }
      VerifyJob J;
      J.Kernel = K.Kernel;
      J.Params = W.Params;
      J.H = W.HA.H;
      for (size_t I : Rs)
        if (auto L = W.Launch.find(I); L != W.Launch.end()) {
          J.H.CandidateGrid = L->second.first;
          J.H.CandidateBlock = L->second.second;
          J.H.CandidateLaunchOrigin = "the fix's launch-site edits (" +
                                      shortLoc(Requests[I].Loc) + " [" +
                                      Requests[I].RuleId + "])";
        }
      J.Original = {"original", K.Source,
                    sys::path::filename(W.File).str(), K.NameExpr, "", ""};
      J.Candidate = {Label, replaceKernel(K, Def),
                     sys::path::filename(W.File).str(), K.NameExpr, "", ""};
      J.Exact = X;
      J.Origin = "rule:" + Rules;
      ++Index;
      if (!Quiet)
        errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Total,
                          W.Kernel, Label);
      CandidateVerdict V = runVerifyJob(J, optionsFor(Opts, RP), Gpu, &KR);
      V.Name = Label;
      V.Origin = J.Origin;
      if (!Quiet)
        errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Total,
                          V.Accepted ? "ACCEPTED" : "rejected",
                          V.Accepted ? V.Reason
                                     : "[" + V.RejectKind + "] " + V.Reason);
      if (V.RejectKind == "harness")
        HarnessFailed = true;
      KR.Candidates.push_back(V);
      return V;
    };

    // Each fix alone.
    std::vector<std::pair<size_t, CandidateVerdict>> Accepted;
    for (auto &C : W.Candidate) {
      const FixRequest &R = Requests[C.first];
      CandidateVerdict V = Run({C.first}, C.second,
                               shortLoc(R.Loc) + " [" + R.RuleId + "]");
      if (V.Accepted)
        Accepted.push_back({C.first, V});
      else
        Result.Decisions[C.first].Why =
            "rejected [" + V.RejectKind + "] " + V.Reason;
    }
    if (Accepted.empty()) {
      Report.Kernels.push_back(std::move(KR));
      continue;
    }
    std::sort(Accepted.begin(), Accepted.end(), [](const auto &A, const auto &B) {
      return A.second.Timing->Speedup > B.second.Timing->Speedup;
    });
    // Several accepted: verified together, or only the fastest is applied.
    std::vector<size_t> Apply = {Accepted[0].first};
    CandidateVerdict Chosen = Accepted[0].second;
    if (Accepted.size() > 1) {
      std::vector<size_t> All;
      std::vector<TextEdit> Edits;
      std::string Rules;
      bool Overlap = false;
      for (auto &A : Accepted) {
        if (editsOverlap(Edits, Requests[A.first].Edits) ||
            (!All.empty() && W.Launch.count(A.first))) {
          Overlap = true;
          continue;
        }
        All.push_back(A.first);
        Edits.insert(Edits.end(), Requests[A.first].Edits.begin(),
                     Requests[A.first].Edits.end());
        Rules += (Rules.empty() ? "" : " + ") + Requests[A.first].RuleId;
      }
      std::string Def, Why;
      std::string Together;
      std::optional<std::array<uint64_t, 3>> LG, LB;
      if (All.size() > 1 &&
          takeLaunchEdits(W, W.HA.H, Edits, LG, LB, Why) &&
          applyEditsToKernel(W.KernelText, W.KernelOffset, Edits, Def, Why)) {
        CandidateVerdict V = Run(All, Def, "together: " + Rules);
        if (V.Accepted && V.Timing->Speedup >= Chosen.Timing->Speedup) {
          Apply = All;
          Chosen = V;
        } else {
          Together = V.Accepted
                         ? formatv("together they are slower ({0:f2}x)",
                                   V.Timing->Speedup)
                               .str()
                         : "together: rejected [" + V.RejectKind + "] " +
                               V.Reason;
        }
      } else {
        Together = Overlap ? "its edits overlap those of a faster fix (or "
                             "both change the launch)"
                           : "together: " + Why;
      }
      for (auto &A : Accepted)
        if (std::find(Apply.begin(), Apply.end(), A.first) == Apply.end())
          Result.Decisions[A.first].Why = formatv(
              "verified alone ({0:f2}x), but {1}; only [{2}] ({3:f2}x) is "
              "applied to kernel '{4}': run again to verify this fix on top",
              A.second.Timing->Speedup, Together,
              Requests[Accepted[0].first].RuleId,
              Accepted[0].second.Timing->Speedup, W.Kernel);
    }
    std::sort(Apply.begin(), Apply.end());
    std::string Applied;
    for (size_t I : Apply) {
      Result.Decisions[I].Apply = true;
      Result.Decisions[I].Why.clear();
      Applied += (Applied.empty() ? "" : ", ") + Requests[I].RuleId;
    }
    Result.Decisions[Apply.front()].Annotation = annotationEdit(
        W.FileText, W.File, W.KernelOffset,
        formatAnnotation(Gpu, *Chosen.Timing, Applied, Chosen.Exact,
                         Chosen.InputSets.size()));
    if (!Quiet)
      errs() << formatAnnotation(Gpu, *Chosen.Timing, Applied, Chosen.Exact,
                                 Chosen.InputSets.size());
    Report.Kernels.push_back(std::move(KR));
  }
  Result.Json = toJson(Report);
  raw_string_ostream OS(Result.Summary);
  printSummaryTable(Report, OS);
  OS.flush();
  if (HarnessFailed) {
    reportError("--verify=run: the original failed with the harness of a "
                "kernel (see [harness] above): its harness is wrong");
    return 3; // bad input, found on the GPU: the accepted fixes still apply
  }
  return 0;
}

} // namespace cudal1
