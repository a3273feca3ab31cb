//===- Exemplars.cpp - earlier variants and failures shown to the model ---===//
#include "cudal1/LLM/Exemplars.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace llvm;

namespace cudal1 {

int scoreLevel(double Speedup) {
  return int(std::floor(std::log2(std::max(Speedup, 1e-9)) / 0.2 + 0.5));
}

namespace {
/// Later rounds and indexes first.
bool later(const Variant *A, const Variant *B) {
  return std::tie(A->Round, A->Index) > std::tie(B->Round, B->Index);
}

/// A uniform number in [0, 1) from a 64-bit generator (the same on every
/// platform, unlike std::uniform_real_distribution).
double uniform(std::mt19937_64 &G) { return double(G() >> 11) * 0x1.0p-53; }
} // namespace

std::vector<const Variant *>
chooseExemplars(const std::vector<const Variant *> &Pool, unsigned N,
                double Temperature, uint64_t Seed) {
  // The best variant of each level (ties: the latest).
  std::map<int, const Variant *> Level;
  std::set<std::string> Seen;
  for (const Variant *V : Pool) {
    if (!V->measured() || !Seen.insert(V->SourceHash).second)
      continue;
    const Variant *&Slot = Level[scoreLevel(*V->Speedup)];
    if (!Slot || *V->Speedup > *Slot->Speedup ||
        (*V->Speedup == *Slot->Speedup && later(V, Slot)))
      Slot = V;
  }
  std::vector<const Variant *> Levels;
  for (auto &KV : Level)
    Levels.push_back(KV.second);
  std::vector<const Variant *> Out;
  if (N == 0 || Levels.empty())
    return Out;
  // The best level always; the others drawn by softmax over their scores.
  Out.push_back(Levels.back());
  Levels.pop_back();
  std::mt19937_64 G(Seed);
  double T = std::max(Temperature, 1e-3);
  while (Out.size() < N && !Levels.empty()) {
    double Max = -1e300;
    for (const Variant *V : Levels)
      Max = std::max(Max, std::log2(*V->Speedup) / T);
    std::vector<double> W;
    double Sum = 0;
    for (const Variant *V : Levels) {
      W.push_back(std::exp(std::log2(*V->Speedup) / T - Max));
      Sum += W.back();
    }
    double U = uniform(G) * Sum;
    size_t Pick = 0;
    for (; Pick + 1 < W.size() && U >= W[Pick]; ++Pick)
      U -= W[Pick];
    Out.push_back(Levels[Pick]);
    Levels.erase(Levels.begin() + Pick);
  }
  std::sort(Out.begin(), Out.end(), [](const Variant *A, const Variant *B) {
    return *A->Speedup < *B->Speedup;
  });
  return Out;
}

namespace {
/// How much a failure teaches (lower: more).
int failureRank(const Variant &V) {
  StringRef K = V.RejectKind;
  if (K == "hidden-work" || K == "too-fast" || K == "no-work" ||
      K == "unwritten-output" || K == "out-of-bounds-write" ||
      K == "read-only-modified")
    return 0;
  if (K == "mismatch")
    return 1;
  if (V.Status == VariantStatus::CompileFailed || K == "compile")
    return 2;
  if (V.Status == VariantStatus::Invalid)
    return 3;
  return 4; // timeout, fault, crash, ...
}
} // namespace

std::vector<const Variant *>
chooseFailures(const std::vector<const Variant *> &Pool, unsigned N) {
  std::vector<const Variant *> F;
  for (const Variant *V : Pool)
    if (V->failed())
      F.push_back(V);
  std::stable_sort(F.begin(), F.end(), [](const Variant *A, const Variant *B) {
    int RA = failureRank(*A), RB = failureRank(*B);
    return RA != RB ? RA < RB : later(A, B);
  });
  std::vector<const Variant *> Out;
  std::set<std::string> Kinds;
  for (const Variant *V : F) {
    if (Out.size() >= N)
      break;
    std::string Kind = std::string(statusName(V->Status)) + "/" + V->RejectKind;
    if (Kinds.insert(Kind).second)
      Out.push_back(V);
  }
  return Out;
}

} // namespace cudal1
