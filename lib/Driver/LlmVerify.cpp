//===- LlmVerify.cpp - the candidates of a round, verified ----------------===//
//
// With --verify=run and a GPU, each candidate is a VerifyJob like any other
// (original and candidate in one child process, so on the same GPU); the
// jobs of a round are spread over every GPU of the machine, one job per GPU
// at a time. Without a GPU (or with --verify=compile) each is compiled with
// NVRTC for --cuda-gpu-arch and reported as unmeasured.
//
//===----------------------------------------------------------------------===//
#include "LlmSearch.h"
#include "cudal1/Compile/Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <thread>

using namespace llvm;

namespace cudal1 {

namespace {
/// The lines of a compile log worth showing: errors first, at most \p Max.
std::string logExcerpt(StringRef Log, unsigned Max = 12) {
  SmallVector<StringRef, 32> Lines;
  Log.split(Lines, '\n', -1, false);
  std::string Out;
  unsigned N = 0;
  for (StringRef L : Lines)
    if (L.contains("error") && N++ < Max)
      Out += L.trim().str() + "\n";
  for (StringRef L : Lines)
    if (!L.contains("error") && N++ < Max)
      Out += L.trim().str() + "\n";
  return StringRef(Out).trim().str();
}

/// Which buffers differed, by how much, on which input sets.
std::string mismatchDetail(const CandidateVerdict &CV) {
  std::string Out;
  for (const InputSetResult &IR : CV.InputSets) {
    if (IR.Ok)
      continue;
    Out += "input set " + std::to_string(IR.Index) + " (" + IR.Description +
           "): ";
    std::string Items;
    for (const BufferDiff &D : IR.Diffs)
      if (!D.ok())
        Items += (Items.empty() ? "" : "; ") + D.str();
    for (const std::string &Pr : IR.Problems)
      Items += (Items.empty() ? "" : "; ") + Pr;
    Out += Items + "\n";
  }
  return StringRef(Out).trim().str();
}

std::string speedupText(const Variant &V) {
  if (!V.Speedup)
    return "";
  std::string S = formatv("{0:f2}x", *V.Speedup).str();
  if (V.CiLow && V.CiHigh)
    S += formatv(" (95% CI {0:f2}x-{1:f2}x)", *V.CiLow, *V.CiHigh).str();
  return S;
}
} // namespace

bool LlmSearch::launchDims(const LlmKernel &K, const ParsedReply &R,
                           Harness &H, std::string &Why) const {
  if (!K.Harness()) {
    Why = "it changes the launch, and the kernel has no harness to derive "
          "the new shape from (captured launches keep the original's)";
    return false;
  }
  Dims D;
  if (R.Grid) {
    if (!deriveCandidateDims("grid", *R.Grid, K.HA.H.Grid, D, Why))
      return false;
    H.CandidateGrid = D;
  }
  if (R.Block) {
    if (!deriveCandidateDims("block", *R.Block, K.HA.H.Block, D, Why))
      return false;
    H.CandidateBlock = D;
  }
  H.CandidateLaunchOrigin = "the reply's LAUNCH line (" + R.launchText() + ")";
  return true;
}

VerifyJob LlmSearch::job(const LlmKernel &K, const Variant &V,
                         const ReplyCheckResult &C) const {
  const ExtractedKernel &E = K.KS->K;
  VerifyJob J;
  J.Kernel = E.Kernel;
  J.Params = K.Params;
  J.HaveHarness = K.Harness();
  J.H = K.HA.H;
  J.Captured = K.Captured;
  std::string FileName = sys::path::filename(K.File).str();
  J.Original = {"original", E.Source, FileName, E.NameExpr, "", ""};
  J.Candidate = {"llm " + formatv("round {0} #{1}", V.Round, V.Index).str(),
                 C.CandidateSource, FileName, E.NameExpr, "", ""};
  J.Exact = Exact;
  J.Origin = V.origin();
  return J;
}

std::vector<CandidateVerdict>
LlmSearch::runJobs(const std::vector<VerifyJob> &Jobs, KernelReport &KR,
                   const LlmKernel *K) {
  std::vector<CandidateVerdict> Verdicts(Jobs.size());
  std::atomic<size_t> Next{0};
  std::mutex M;
  auto Worker = [&](size_t G) {
    VerifyOptions O = VO;
    O.Device = Gpus[G].Device;
    if (Gpus.size() > 1 && O.Progress)
      O.Progress = [this, G](const std::string &S) {
        std::lock_guard<std::mutex> L(Out);
        errs() << "cuda-l1:   [gpu " << Gpus[G].Device << "] " << S << "\n";
      };
    for (size_t I; (I = Next++) < Jobs.size();) {
      KernelReport R;
      Verdicts[I] = P.verifyWithinBudget(Jobs[I], O, Gpus[G], &R);
      std::lock_guard<std::mutex> L(M);
      if (!R.OriginalDeterministic) {
        KR.OriginalDeterministic = false;
        KR.OriginalSpread = std::max(KR.OriginalSpread, R.OriginalSpread);
      }
    }
  };
  size_t N = std::min(Gpus.size(), Jobs.size());
  if (N <= 1) {
    Worker(0);
  } else {
    std::vector<std::thread> Threads;
    for (size_t G = 0; G < N; ++G)
      Threads.emplace_back(Worker, G);
    for (std::thread &T : Threads)
      T.join();
  }
  // A variant launched with its own shape was derived from the timed
  // launch's values: checked there only.
  if (K && !K->HA.Others.empty())
    for (size_t I = 0; I < Jobs.size(); ++I)
      if (!Jobs[I].H.CandidateGrid && !Jobs[I].H.CandidateBlock)
        verifyOnOtherLaunches(P, Jobs[I], VO, Gpus.front(), K->HA.Others,
                              !VO.Progress, Jobs[I].Candidate.Label,
                              Verdicts[I]);
  return Verdicts;
}

Variant LlmSearch::compileOnly(const LlmKernel &K, Variant V,
                               const ReplyCheckResult &C) const {
  std::string Where;
  if (!nvrtcAvailable(Opts.CudaPath, &Where)) {
    V.Status = VariantStatus::Compiled;
    V.Reason = "checked by Clang only (NVRTC is not available: " + Where +
               "); not measured: " + NotMeasuredWhy;
    return V;
  }
  NvrtcOptions NO;
  NO.CudaPath = Opts.CudaPath;
  NO.GpuArch = Opts.GpuArch;
  NvrtcResult R =
      compileWithNvrtc(C.CandidateSource,
                       kernelFileStem(K.Name) + "-candidate.cu",
                       {K.KS->K.NameExpr}, NO);
  if (R.Ok) {
    V.Status = VariantStatus::Compiled;
    V.Reason = "compiles (NVRTC, " + Opts.GpuArch +
               "); not measured: " + NotMeasuredWhy;
    return V;
  }
  V.Status = VariantStatus::CompileFailed;
  V.RejectKind = "compile";
  V.Reason = "NVRTC does not compile it for " + Opts.GpuArch;
  V.Detail = logExcerpt(R.Error + "\n" + R.Log);
  return V;
}

void LlmSearch::takeVerdict(LlmKernel &K, Variant &V,
                            const CandidateVerdict &CV,
                            const ReplyCheckResult &C, const ParsedReply *R) {
  V.Exactness = toString(CV.Exact);
  V.Gpu = Gpus.front().Name;
  V.Arch = Gpus.front().Arch;
  V.Verdict = toJson(CV);
  if (CV.Timing && CV.Timing->Ok) {
    V.Speedup = CV.Timing->Speedup;
    V.CiLow = CV.Timing->CiLow;
    V.CiHigh = CV.Timing->CiHigh;
  }
  V.RejectKind = CV.RejectKind;
  V.Reason = CV.Reason;
  std::string L = V.Round ? formatv("round {0} #{1}", V.Round, V.Index).str()
                          : V.origin();
  if (CV.Accepted) {
    V.Status = VariantStatus::Accepted;
    say(K, L, "ACCEPTED: " + speedupText(V));
  } else if (CV.RejectKind == "compile") {
    V.Status = VariantStatus::CompileFailed;
    V.Detail = logExcerpt(CV.CompileLog);
    say(K, L, "does not compile: " + CV.Reason);
  } else if (CV.Correct && V.Speedup) {
    V.Status = VariantStatus::NotFaster;
    say(K, L, "correct, not accepted: " + speedupText(V) + ": " + CV.Reason);
  } else {
    V.Status = VariantStatus::Rejected;
    V.Detail = mismatchDetail(CV);
    say(K, L, "rejected [" + CV.RejectKind + "] " + CV.Reason);
  }
  if (V.Status == VariantStatus::Accepted &&
      (!K.Best || *V.Speedup > *K.Best->V.Speedup)) {
    AcceptedVariant A;
    A.V = V;
    A.Verdict = CV;
    A.Definition = C.Definition;
    A.NewIncludes = C.NewIncludes;
    if (R) {
      A.GridExpr = R->Grid;
      A.BlockExpr = R->Block;
    }
    K.Best = std::move(A);
  }
}

void LlmSearch::verifyRound(LlmKernel &K, std::vector<Proposal> &Ps) {
  struct Pending {
    Proposal *P;
    Variant V;
    Harness H;
  };
  std::vector<Pending> ToRun;
  for (Proposal &Pr : Ps) {
    std::string L = Pr.label();
    if (!Pr.RequestError.empty()) {
      say(K, L, "no reply: " + Pr.RequestError);
      K.Candidates.push_back(json::Object{{"round", int64_t(Pr.Round)},
                                          {"index", int64_t(Pr.Index)},
                                          {"status", "no-reply"},
                                          {"reason", Pr.RequestError}});
      continue;
    }
    Variant V;
    V.Round = Pr.Round;
    V.Index = Pr.Index;
    V.Model = S.Model;
    V.Exactness = toString(Exact);
    if (Pr.Reply) {
      V.Source = Pr.Reply->Code;
      V.Launch = Pr.Reply->launchText();
    }
    V.SourceHash = hashText(normalizeSource(V.Source) + "\n" + V.Launch);
    if (!Pr.Problem.empty()) {
      V.Status = VariantStatus::Invalid;
      V.RejectKind = "reply";
      V.Reason = Pr.Problem;
      say(K, L, "unusable reply: " + Pr.Problem);
      record(K, std::move(V), &Pr);
      continue;
    }
    auto Same = K.Seen.find(V.SourceHash);
    if (!Pr.SameAs.empty() || Same != K.Seen.end()) {
      std::string As = Pr.SameAs.empty() ? Same->second : Pr.SameAs;
      say(K, L, "the same as " + As + ": not verified again");
      K.Candidates.push_back(json::Object{{"round", int64_t(Pr.Round)},
                                          {"index", int64_t(Pr.Index)},
                                          {"status", "duplicate"},
                                          {"same_as", As}});
      continue;
    }
    if (Pr.Check.State == ReplyCheckResult::Compile) {
      V.Status = VariantStatus::CompileFailed;
      V.RejectKind = "compile";
      V.Reason = Pr.Check.Problem;
      V.Detail = Pr.Check.Detail;
      say(K, L, "does not compile: " + Pr.Check.Problem);
      record(K, std::move(V), &Pr);
      continue;
    }
    Harness H = K.HA.H;
    std::string Why;
    if ((Pr.Reply->Grid || Pr.Reply->Block) &&
        (Measure || K.Harness()) && !launchDims(K, *Pr.Reply, H, Why)) {
      V.Status = VariantStatus::Invalid;
      V.RejectKind = "launch";
      V.Reason = "its launch change cannot be used: " + Why;
      say(K, L, V.Reason);
      record(K, std::move(V), &Pr);
      continue;
    }
    if (!Measure) {
      V = compileOnly(K, std::move(V), Pr.Check);
      say(K, L,
          V.Status == VariantStatus::Compiled
              ? V.Reason
              : "does not compile: " + V.Reason + "\n" + V.Detail);
      record(K, std::move(V), &Pr);
      continue;
    }
    K.Seen.emplace(V.SourceHash, L);
    ToRun.push_back({&Pr, std::move(V), std::move(H)});
  }
  if (ToRun.empty())
    return;
  std::vector<VerifyJob> Jobs;
  for (Pending &Pd : ToRun) {
    Jobs.push_back(job(K, Pd.V, Pd.P->Check));
    Jobs.back().H = Pd.H;
    say(K, Pd.P->label(), "verifying" +
                              (Pd.V.Launch.empty()
                                   ? std::string()
                                   : " (launched with " + Pd.V.Launch + ")"));
  }
  KernelReport KR;
  std::vector<CandidateVerdict> Vs = runJobs(Jobs, KR, &K);
  for (size_t I = 0; I < ToRun.size(); ++I) {
    takeVerdict(K, ToRun[I].V, Vs[I], ToRun[I].P->Check,
                ToRun[I].P->Reply ? &*ToRun[I].P->Reply : nullptr);
    record(K, std::move(ToRun[I].V), ToRun[I].P);
  }
}

void LlmSearch::reverifyStored(LlmKernel &K) {
  const Variant *Best = nullptr;
  for (const Variant &V : K.Known)
    if (V.Status == VariantStatus::Accepted && V.Speedup &&
        V.Gpu == Gpus.front().Name && (!Best || *V.Speedup > *Best->Speedup))
      Best = &V;
  if (!Best)
    return;
  // Measured again for writing back; the store keeps the measurement the
  // prompts were built from (so reruns ask the same, from the cache).
  Variant V = *Best;
  std::string L = V.origin();
  // The stored reply, checked again as any reply is.
  ParsedReply R;
  std::string Problem;
  std::string Text = "```cuda\n" + V.Source + "\n```\n" +
                     (V.Launch.empty() ? "" : "LAUNCH: " + V.Launch + "\n");
  if (!parseReply(Text, R, Problem))
    return;
  ReplyCheckResult C = K.Checker->check(R.Code);
  Harness H = K.HA.H;
  std::string Why;
  if (C.State != ReplyCheckResult::Ok ||
      ((R.Grid || R.Block) && !launchDims(K, R, H, Why))) {
    say(K, L, "the stored variant no longer passes its checks: " +
                  (C.Problem.empty() ? Why : C.Problem));
    return;
  }
  say(K, L, formatv("re-verifying the accepted variant of an earlier run "
                    "({0:f2}x then), without asking the model",
                    *V.Speedup)
                .str());
  VerifyJob J = job(K, V, C);
  J.H = H;
  KernelReport KR;
  CandidateVerdict CV = runJobs({J}, KR, &K).front();
  V.Speedup.reset();
  V.CiLow.reset();
  V.CiHigh.reset();
  V.Detail.clear();
  takeVerdict(K, V, CV, C, &R);
  json::Value Res = toJson(V);
  if (json::Object *O = Res.getAsObject()) {
    O->erase("source");
    O->erase("verdict");
    (*O)["reverified"] = true;
  }
  K.Candidates.push_back(std::move(Res));
}

} // namespace cudal1
