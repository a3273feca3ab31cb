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

private:
  /// `x >= 0.99` with float x and a literal that is no float value: reports
  /// the same comparison in float (`x >= 0.99000001f`, the nearest float on
  /// the comparison's side), with its bitwise fix. False when there is
  /// none (== and !=, out of the normal float range, macros).
  bool comparisonInFloat(const clang::BinaryOperator *BO,
                         const clang::Expr *Root, const clang::Expr *Operand,
                         const clang::FloatingLiteral *Lit,
                         const clang::FunctionDecl *FD);
};

} // namespace cudal1

#endif
