//===- AlgebraicFloatMath.h - algebraic-float-math --------------*- C++ -*-===//
//
// A double-precision math function on float data: the float version.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICFLOATMATH_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICFLOATMATH_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicFloatMath : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

} // namespace cudal1

#endif
