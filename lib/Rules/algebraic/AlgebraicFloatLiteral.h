//===- AlgebraicFloatLiteral.h - algebraic-float-literal --------*- C++ -*-===//
//
// A double literal in float arithmetic: the float literal (1.5f).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICFLOATLITERAL_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICFLOATLITERAL_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicFloatLiteral : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

} // namespace cudal1

#endif
