//===- SyncSharedHistogram.h - sync-shared-histogram ------------*- C++ -*-===//
//
// sync-shared-histogram: atomics of every thread into a small global array
// of bins, privatised per block in shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_SYNCSHAREDHISTOGRAM_H
#define CUDAL1_LIB_RULES_SYNC_SYNCSHAREDHISTOGRAM_H

#include "../RuleCheck.h"

#include <cstdint>
#include <optional>

namespace cudal1 {

/// The greatest value the bin index \p Index of an atomic (at \p At, in
/// function \p Fn) can take, from its form (`k & 1023`, `v % 16`, a
/// clamp, a guard around \p At); std::nullopt when not bounded or when it
/// may be negative.
std::optional<int64_t> binIndexMax(clang::ASTContext &Ctx,
                                   const clang::FunctionDecl *Fn,
                                   const clang::Expr *Index,
                                   const clang::Stmt *At);

class SyncSharedHistogram : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  // The entry points (lib/Rules/RuleCheck.h): registerMatchers + check for
  // AST matchers, checkKernel per kernel, checkTranslationUnit at the end.
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
