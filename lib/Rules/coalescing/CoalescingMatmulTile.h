//===- CoalescingMatmulTile.h - coalescing-matmul-tile ----------*- C++ -*-===//
//
// coalescing-matmul-tile: matrix products computed one output per thread
// (`sum += A(i,k) * B(k,j)` over k) -> shared-memory tiles with register
// blocking, exact (same sum order).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGMATMULTILE_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGMATMULTILE_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingMatmulTile : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
  bool checksInstantiations() const override { return true; }
};

} // namespace cudal1

#endif
