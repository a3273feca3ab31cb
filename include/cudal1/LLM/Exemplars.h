//===- Exemplars.h - which earlier variants the model is shown --*- C++ -*-===//
//
// CUDA-L1's contrastive prompt shows earlier variants with their measured
// speedups, drawn from different score levels, so that the model can tell
// why the faster ones are faster. chooseExemplars does that: scores are
// log2(speedup); variants within one level (a step of 0.2, about 15%) count
// once; the best level is always shown and the others are drawn without
// replacement with probability proportional to exp(score / temperature)
// (a low temperature favours the fast ones, a high one spreads out). The
// draw is seeded, so the same state gives the same prompt (and a rerun hits
// the response cache). The chosen ones come back slowest first.
//
// chooseFailures picks the failures that teach most: cheats caught by the
// verifier first, then wrong results, then compile errors, then unusable
// replies, then hangs and crashes; one per kind, the latest of each.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_EXEMPLARS_H
#define CUDAL1_LLM_EXEMPLARS_H

#include "cudal1/LLM/Variant.h"

#include <cstdint>
#include <vector>

namespace cudal1 {

/// The level of a speedup (log2 steps of 0.2).
int scoreLevel(double Speedup);

/// Up to \p N measured variants of \p Pool (Variant::measured()), at most one
/// per score level, sorted by speedup, slowest first.
std::vector<const Variant *> chooseExemplars(
    const std::vector<const Variant *> &Pool, unsigned N, double Temperature,
    uint64_t Seed);

/// Up to \p N failed variants of \p Pool (Variant::failed()), the most
/// informative first.
std::vector<const Variant *>
chooseFailures(const std::vector<const Variant *> &Pool, unsigned N);

} // namespace cudal1

#endif
