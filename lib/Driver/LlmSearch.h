//===- LlmSearch.h - model proposals with contrastive search ----*- C++ -*-===//
//
// Private to lib/Driver. Pipeline::proposeWithModel (docs/llm.md): for each
// selected kernel, rounds of K requests; each reply checked (lib/LLM:
// format, then Clang: same kernel, device code only; a precise re-ask once),
// duplicates skipped, the rest verified like any candidate (lib/Verify on
// every GPU, one job per GPU at a time; NVRTC only without one), every
// variant kept in the store, the exemplar set updated after each round, the
// fastest accepted variant written back like a rule fix.
//
//   LlmSearch.cpp     set-up, kernels, rounds, results
//   LlmAsk.cpp        one candidate: request (cache, transcript), reply,
//                     re-ask
//   LlmVerify.cpp     the candidates of a round: GPUs in parallel, or NVRTC
//   LlmWriteBack.cpp  the accepted variant as a finding with a fix
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_DRIVER_LLMSEARCH_H
#define CUDAL1_LIB_DRIVER_LLMSEARCH_H

#include "HarnessResolve.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/LLM/ChatClient.h"
#include "cudal1/LLM/Prompt.h"
#include "cudal1/LLM/Reply.h"
#include "cudal1/LLM/ReplyCheck.h"
#include "cudal1/LLM/VariantStore.h"
#include "cudal1/Verify/Runner.h"

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

using Dims = std::array<uint64_t, 3>;

/// One reply made into a candidate, or why not.
struct Proposal {
  unsigned Round = 0, Index = 0;
  std::string RequestError; ///< no reply ("" = a reply came)
  std::string Reasked;      ///< the problem the re-ask was about
  std::optional<ParsedReply> Reply;
  ReplyCheckResult Check;
  std::string Problem; ///< unusable after the re-ask ("" = usable)
  std::string SameAs;  ///< a duplicate of this (not checked, not verified)
  std::string label() const;
};

/// The fastest accepted variant of a kernel, with what writing it back needs.
struct AcceptedVariant {
  Variant V;
  CandidateVerdict Verdict;
  std::string Definition;
  std::vector<std::string> NewIncludes;
  std::optional<std::string> GridExpr, BlockExpr; ///< the launch change
};

/// One kernel the model is asked about, and what became of it.
struct LlmKernel {
  std::string Name; ///< qualified
  const KernelSources *KS = nullptr;
  std::string File, FileText, KernelText;
  size_t KernelOffset = 0;
  std::string OriginalHash;
  HarnessAnswer HA;
  std::vector<ReplayLaunch> Captured;
  std::vector<ParamInfo> Params;
  std::vector<const Finding *> Findings;
  std::unique_ptr<ReplyChecker> Checker;
  std::string Skip; ///< why it is not searched ("" = it is)

  std::vector<Variant> Known;                 ///< stored + this run's
  std::map<std::string, std::string> Seen;    ///< source hash -> label
  /// Source hashes of this round's replies, claimed by the first reply
  /// that has them (the others are duplicates, not checked again).
  std::map<std::string, std::string> Claimed;
  std::mutex ClaimM;
  std::vector<llvm::json::Value> Candidates;  ///< this run's, as JSON
  std::optional<AcceptedVariant> Best;
  unsigned RoundsRun = 0;
  std::string Stopped; ///< why the rounds ended early
  bool Harness() const { return HA.Status == HarnessStatus::Found; }
};

class LlmSearch {
public:
  LlmSearch(Pipeline &P, const AnalysisRun &Run,
            const FixVerifyResult *RuleFixes);
  ~LlmSearch();
  /// Everything before the first request; false (error reported) on bad
  /// settings, templates or store.
  bool setUp();
  /// The kernels to ask about, prepared; false on bad input (a harness).
  bool selectKernels();
  /// With --verify=run: probes every GPU (those of the first one's model
  /// are used); without one, candidates are compiled only (Status 2).
  void startGpus();
  void search(LlmKernel &K);
  /// The results: JSON, summary, findings to write back.
  ProposalResult finish();

  std::vector<std::unique_ptr<LlmKernel>> Kernels;
  int Status = 0;

private:
  // LlmSearch.cpp
  bool prepare(LlmKernel &K);
  bool roundPrompt(LlmKernel &K, unsigned Round, Prompt &Out);
  PromptFacts facts(const LlmKernel &K, unsigned Round) const;
  void loadStored(LlmKernel &K);
  bool budgetSpent(std::string &Why) const;
  void record(LlmKernel &K, Variant V, const Proposal *P);
  void say(const LlmKernel &K, const std::string &Label,
           const std::string &Text) const;
  llvm::json::Value kernelJson(LlmKernel &K, ProposalResult &R);
  void summary(const LlmKernel &K, const llvm::json::Object &J,
               llvm::raw_ostream &OS) const;
  // LlmAsk.cpp
  Proposal ask(LlmKernel &K, unsigned Round, unsigned Index, const Prompt &Pr);
  ChatReply exchange(const LlmKernel &K, const ChatRequest &R, unsigned Round,
                     unsigned Index, unsigned Attempt);
  // LlmVerify.cpp
  void verifyRound(LlmKernel &K, std::vector<Proposal> &Ps);
  void reverifyStored(LlmKernel &K);
  bool launchDims(const LlmKernel &K, const ParsedReply &R, Harness &H,
                  std::string &Why) const;
  VerifyJob job(const LlmKernel &K, const Variant &V,
                const ReplyCheckResult &C) const;
  /// With \p K: an accepted variant launched like the original is also
  /// checked on the kernel's other launch values (K.HA.Others).
  std::vector<CandidateVerdict> runJobs(const std::vector<VerifyJob> &Jobs,
                                        KernelReport &KR,
                                        const LlmKernel *K = nullptr);
  Variant compileOnly(const LlmKernel &K, Variant V,
                      const ReplyCheckResult &C) const;
  void takeVerdict(LlmKernel &K, Variant &V, const CandidateVerdict &CV,
                   const ReplyCheckResult &C, const ParsedReply *R);
  // LlmWriteBack.cpp
  std::optional<Finding> writeBack(const LlmKernel &K, std::string &Why) const;
  double ruleFixSpeedup(const LlmKernel &K) const;

  Pipeline &P;
  const Options &Opts;
  const AnalysisRun &Run;
  const FixVerifyResult *RuleFixes;
  LlmSettings S;
  std::unique_ptr<ChatClient> Client;
  PromptTemplates Templates;
  std::unique_ptr<VariantStore> Store;
  std::unique_ptr<ResponseCache> Cache;
  std::unique_ptr<Transcript> Log;
  ExprEnv Env;
  Exactness Exact = Exactness::Reassociating;
  std::string Commit;

  bool Measure = false;       ///< --verify=run with a GPU
  std::string NotMeasuredWhy; ///< otherwise, why not
  VerifyOptions VO;
  std::vector<GpuInfo> Gpus; ///< the GPUs jobs run on (same model)

  std::chrono::steady_clock::time_point Start;
  std::atomic<uint64_t> Tokens{0};
  std::atomic<unsigned> Requests{0}, FromCache{0};
  mutable std::mutex Out;
};

/// The time now, UTC, ISO 8601.
std::string utcNow();

} // namespace cudal1

#endif
