//===- Budget.h - how long verification may take ----------------*- C++ -*-===//
//
// Two budgets, as plain functions (no CUDA):
// - per candidate: how many timed samples (and warm-up runs) fit in the
//   timing time allowed to one candidate, given how long the original
//   kernel ran in its correctness runs (planTiming). A kernel of half a
//   second cannot be timed 2 x 2 x 55 times within a two-minute child
//   process;
// - per run: the total verification time of one cuda-l1-rewrite run
//   (--verify-budget): candidates that would start after it is spent are
//   not verified, and say so (RunBudget).
//
// Fewer samples widen the bootstrap CI of the speedup; the acceptance rule
// (speedup above --min-speedup and the CI's lower bound above 1) then
// accepts fewer candidates, never more: a short timing can only cost
// wins, not correctness of the verdict.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_BUDGET_H
#define CUDAL1_VERIFY_BUDGET_H

#include <string>
#include <vector>

namespace cudal1 {

/// The fewest timed samples per kernel: below it the bootstrap CI of a
/// median says little.
constexpr unsigned MinTimingSamples = 10;

struct TimingPlan {
  unsigned Warmup = 5;
  unsigned Samples = 50;
  bool Reduced = false; ///< fewer than requested, to fit the time
  /// Estimated seconds of the timing rounds with this plan.
  double EstimatedSeconds = 0;
  /// "timing: 12 samples instead of 50 (the original runs 527.3 ms; 30 s
  /// per candidate)"; "" when not reduced.
  std::string Note;
};

/// The samples and warm-up runs for a kernel whose original ran
/// \p KernelSeconds (one launch, measured in the correctness runs), given
/// the \p Requested samples (--verify-samples) and warm-up runs, the time
/// the timing may take (\p TimingSeconds; 0 = no limit), the number of
/// rounds of samples (2: concurrent then serialized tracing) and the cost
/// of one sample besides the kernel (\p OverheadSeconds: restoring the
/// inputs, flushing the L2, synchronising). Each sample runs the original
/// and the candidate (assumed as long as the original). Never fewer than
/// MinTimingSamples (or \p Requested when smaller) samples, nor fewer than
/// one warm-up run.
TimingPlan planTiming(double KernelSeconds, unsigned Requested,
                      unsigned Warmup, double TimingSeconds,
                      unsigned Rounds = 2, double OverheadSeconds = 2e-4);

/// The verification time of a whole run (--verify-budget).
class RunBudget {
public:
  /// \p Seconds: 0 = no limit.
  explicit RunBudget(double Seconds = 0) : Limit(Seconds) {}

  bool limited() const { return Limit > 0; }
  double limit() const { return Limit; }
  double spent() const { return Spent; }
  /// Seconds left (a large number when unlimited; 0 when spent).
  double left() const;

  /// May a candidate start now? False when the budget is spent, or when
  /// what is left is less than half the median time of the candidates
  /// verified so far (it would most likely be cut short). \p Why then
  /// says so, in the words the user sees: "not verified: the run's
  /// verification budget of 300 s was spent (297 s used by 21 candidates)".
  bool mayStart(std::string &Why) const;

  /// Records a candidate that took \p Seconds.
  void record(double Seconds);

  /// Candidates declined so far.
  unsigned declined() const { return Declined; }
  void noteDeclined() { ++Declined; }

private:
  double Limit = 0;
  double Spent = 0;
  std::vector<double> Durations;
  unsigned Declined = 0;
};

} // namespace cudal1

#endif
