//===- AlgebraicWrapModulo.h - algebraic-wrap-modulo ------------*- C++ -*-===//
//
// algebraic-wrap-modulo: `(x + dx + n) % n`, a periodic wrap of an index
// proven in [0, n) by a guard plus a small offset: an integer division by a
// runtime value, where one or two compares and subtractions give the same
// result.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICWRAPMODULO_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICWRAPMODULO_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicWrapModulo : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
