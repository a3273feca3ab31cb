//===- Stats.cpp - medians and bootstrap CIs ------------------------------===//
#include "cudal1/Verify/Stats.h"

#include <algorithm>
#include <cmath>

namespace cudal1 {

double percentile(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  double Pos = P / 100.0 * double(V.size() - 1);
  size_t Lo = size_t(std::floor(Pos)), Hi = size_t(std::ceil(Pos));
  double F = Pos - double(Lo);
  return V[Lo] * (1 - F) + V[Hi] * F;
}

double median(std::vector<double> V) { return percentile(std::move(V), 50); }

RatioCI bootstrapRatioCI(const std::vector<double> &A,
                         const std::vector<double> &B, double Level,
                         unsigned Resamples, uint64_t Seed) {
  RatioCI R;
  if (A.empty() || B.empty())
    return R;
  double MB = median(B);
  R.Ratio = MB > 0 ? median(A) / MB : 0;
  SplitMix64 Rng(Seed);
  std::vector<double> Ratios, SA(A.size()), SB(B.size());
  Ratios.reserve(Resamples);
  for (unsigned I = 0; I < Resamples; ++I) {
    for (auto &X : SA)
      X = A[Rng.next() % A.size()];
    for (auto &X : SB)
      X = B[Rng.next() % B.size()];
    double M = median(SB);
    Ratios.push_back(M > 0 ? median(SA) / M : 0);
  }
  double Tail = (1 - Level) / 2 * 100;
  R.Low = percentile(Ratios, Tail);
  R.High = percentile(Ratios, 100 - Tail);
  return R;
}

std::vector<double> samplesWithCount(const std::vector<double> &Us,
                                     const std::vector<double> &Count,
                                     double Expected, unsigned &Dropped) {
  std::vector<double> Out;
  Dropped = 0;
  for (size_t I = 0; I < Us.size(); ++I)
    if (I < Count.size() && Count[I] == Expected && Us[I] > 0)
      Out.push_back(Us[I]);
    else
      ++Dropped;
  return Out;
}

} // namespace cudal1
