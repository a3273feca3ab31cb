//===- AlgebraicInvariantTable.h - algebraic-invariant-table ----*- C++ -*-===//
//
// algebraic-invariant-table: a costly value of constant loop counters alone
// (filter weights) recomputed by every thread; a per-block shared table.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICINVARIANTTABLE_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICINVARIANTTABLE_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicInvariantTable : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  // The entry points (lib/Rules/RuleCheck.h): registerMatchers + check for
  // AST matchers, checkKernel per kernel, checkTranslationUnit at the end.
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
