//===- CoalescingWarpPerRowPasses.h - coalescing-warp-per-row-passes -*- C++ -*-===//
//
// coalescing-warp-per-row-passes: each thread makes several passes over its
// own row (a softmax: the row's max, the sum of exponentials, the
// normalised row written back; a normalisation) -> one warp per row, the
// lanes striding every pass, the reductions combined across the warp with
// shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGWARPPERROWPASSES_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGWARPPERROWPASSES_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingWarpPerRowPasses : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

/// The kernel has the shape coalescing-warp-per-row-passes reports (several
/// passes over the thread's row, or one that writes it or takes a max/min):
/// coalescing-warp-per-row leaves such kernels to it.
bool hasRowPasses(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                  const FunctionFacts &F);

} // namespace cudal1

#endif
