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
#include <string>
#include <utility>

namespace cudal1 {

struct CheckContext;

/// An element's address, `&a[i]` or `a + i` (either order), split into
/// the array or pointer (parentheses and implicit casts removed) and the
/// index; {null, null} for other forms.
std::pair<const clang::Expr *, const clang::Expr *>
splitElementAddress(const clang::Expr *Addr);

/// The greatest value the bin index \p Index of an atomic (at \p At, in
/// function \p Fn) can take, from its form (`k & 1023`, `v % 16`, a
/// clamp, a guard around \p At); std::nullopt when not bounded or when it
/// may be negative.
std::optional<int64_t> binIndexMax(clang::ASTContext &Ctx,
                                   const clang::FunctionDecl *Fn,
                                   const clang::Expr *Index,
                                   const clang::Stmt *At);

/// The elements of the buffer every launch of \p K passes for pointer
/// parameter \p P, from its allocation (`cudaMalloc(&h, 256 *
/// sizeof(int))`), the largest over the launches; std::nullopt when a launch
/// is out of view or its buffer's size is not a constant. \p Alloc names
/// the allocation.
std::optional<uint64_t> launchedElements(const CheckContext &CC,
                                         const clang::FunctionDecl *K,
                                         const clang::ParmVarDecl *P,
                                         uint64_t ElemBytes,
                                         std::string &Alloc);

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
