//===- TreeStep.h - pieces of a shared-memory tree's step -------*- C++ -*-===//
//
// Shared by sync-sequential-reduction and sync-warp-shuffle-tree, which
// match the same update `X[tid] op= X[tid + s]`.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_TREESTEP_H
#define CUDAL1_LIB_RULES_SYNC_TREESTEP_H

#include "../RuleCheck.h"

namespace cudal1 {

/// \p E is threadIdx.x (also through a local initialised from it).
inline bool isThreadX(const clang::Expr *E, const FunctionFacts &F) {
  return toAffine(E, F) == AffineExpr::symbol("threadIdx.x");
}

/// The maximum and minimum functions a tree's step may combine with.
inline bool isMinMaxName(llvm::StringRef N) {
  return N == "max" || N == "min" || N == "fmaxf" || N == "fminf" ||
         N == "fmax" || N == "fmin";
}

} // namespace cudal1

#endif
