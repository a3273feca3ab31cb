//===- Stats.h - medians and bootstrap confidence intervals -----*- C++ -*-===//
#ifndef CUDAL1_VERIFY_STATS_H
#define CUDAL1_VERIFY_STATS_H

#include <cstdint>
#include <vector>

namespace cudal1 {

double median(std::vector<double> V);
double percentile(std::vector<double> V, double P); ///< P in [0,100]

struct RatioCI {
  double Ratio = 0; ///< median(A) / median(B)
  double Low = 0, High = 0;
};
/// Speedup of B over A: median(A)/median(B), with a percentile-bootstrap
/// confidence interval (\p Level, e.g. 0.95) from \p Resamples resamples of
/// both sample sets, deterministic for a given \p Seed.
RatioCI bootstrapRatioCI(const std::vector<double> &A,
                         const std::vector<double> &B, double Level = 0.95,
                         unsigned Resamples = 2000, uint64_t Seed = 42);

/// The timing samples \p Us whose window recorded \p Expected kernels (the
/// median count of that side): a window whose kernel record is missing (or
/// extra) measured nothing of the kernel, and a zero in the samples would
/// drag the bootstrap's medians to 0. \p Dropped receives how many were left
/// out. \p Count is per sample, as \p Us.
std::vector<double> samplesWithCount(const std::vector<double> &Us,
                                     const std::vector<double> &Count,
                                     double Expected, unsigned &Dropped);

/// Small deterministic generator (splitmix64) used for bootstrap and inputs.
struct SplitMix64 {
  uint64_t S;
  explicit SplitMix64(uint64_t Seed) : S(Seed) {}
  uint64_t next() {
    uint64_t Z = (S += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  double uniform01() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

} // namespace cudal1

#endif
