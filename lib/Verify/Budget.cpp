//===- Budget.cpp - how long verification may take ------------------------===//
#include "cudal1/Verify/Budget.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace cudal1 {

namespace {
std::string secondsText(double S) {
  if (S >= 1)
    return formatv("{0:f1} s", S).str();
  if (S >= 1e-3)
    return formatv("{0:f1} ms", S * 1e3).str();
  return formatv("{0:f1} us", S * 1e6).str();
}
} // namespace

TimingPlan planTiming(double KernelSeconds, unsigned Requested,
                      unsigned Warmup, double TimingSeconds, unsigned Rounds,
                      double OverheadSeconds) {
  TimingPlan P;
  P.Samples = Requested;
  P.Warmup = Warmup;
  Rounds = std::max(1u, Rounds);
  KernelSeconds = std::max(0.0, KernelSeconds);
  // One sample: original and candidate, each with its overhead; warm-up
  // runs are samples that are not recorded, in the first round only.
  double PerSample = 2 * (KernelSeconds + OverheadSeconds);
  auto Cost = [&](unsigned W, unsigned S) {
    return PerSample * (double(W) + double(Rounds) * S);
  };
  unsigned Floor = std::min(Requested, MinTimingSamples);
  if (TimingSeconds > 0 && Cost(Warmup, Requested) > TimingSeconds) {
    // A long kernel warms up in its first launch: one warm-up run is
    // enough once a run takes longer than a millisecond.
    if (KernelSeconds > 1e-3)
      P.Warmup = std::max(1u, std::min(Warmup, 1u));
    double Fit = (TimingSeconds / PerSample - P.Warmup) / Rounds;
    unsigned S = Fit <= 0 ? 0 : unsigned(std::floor(Fit));
    P.Samples = std::clamp(S, Floor, Requested);
    P.Reduced = P.Samples < Requested || P.Warmup < Warmup;
    if (P.Reduced)
      P.Note = formatv("timing: {0} samples instead of {1} and {2} warm-up "
                       "run(s) instead of {3}: the original runs {4} per "
                       "launch and the timing of one candidate is limited to "
                       "{5}; the CI of the speedup is wider (the acceptance "
                       "rule still needs its lower bound above 1)",
                       P.Samples, Requested, P.Warmup, Warmup,
                       secondsText(KernelSeconds), secondsText(TimingSeconds))
                   .str();
  }
  P.EstimatedSeconds = Cost(P.Warmup, P.Samples);
  return P;
}

double RunBudget::left() const {
  if (!limited())
    return 1e30;
  return std::max(0.0, Limit - Spent);
}

bool RunBudget::mayStart(std::string &Why) const {
  if (!limited())
    return true;
  double Typical = 0;
  if (!Durations.empty()) {
    std::vector<double> D = Durations;
    std::nth_element(D.begin(), D.begin() + D.size() / 2, D.end());
    Typical = D[D.size() / 2];
  }
  if (Spent < Limit && left() >= Typical / 2)
    return true;
  Why = formatv("not verified: the run's verification budget of {0:f0} s was "
                "spent ({1:f0} s used by {2} candidate(s){3})",
                Limit, Spent, Durations.size(),
                Spent < Limit
                    ? formatv("; {0:f0} s left, a candidate takes about "
                              "{1:f0} s",
                              left(), Typical)
                          .str()
                    : std::string())
            .str();
  return false;
}

void RunBudget::record(double Seconds) {
  Seconds = std::max(0.0, Seconds);
  Spent += Seconds;
  Durations.push_back(Seconds);
}

} // namespace cudal1
