//===- CoalescingColumnSplit.h - coalescing-column-split --------*- C++ -*-===//
//
// coalescing-column-split: one thread per column walking every row of a
// row-major matrix (`s += data[i * m + j]` over i) -> the rows of each
// column split across the threads of a block, the partial sums combined
// through shared memory in a fixed order.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGCOLUMNSPLIT_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGCOLUMNSPLIT_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingColumnSplit : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
