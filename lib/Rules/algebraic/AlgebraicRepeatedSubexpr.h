//===- AlgebraicRepeatedSubexpr.h - algebraic-repeated-subexpr --*- C++ -*-===//
//
// The same pure subexpression computed more than once in a statement: one
// local computed once.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICREPEATEDSUBEXPR_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICREPEATEDSUBEXPR_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicRepeatedSubexpr : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  struct Cand {
    const clang::Expr *E;
    std::string Key;
    unsigned Begin, End; ///< file offsets
  };

  static bool interesting(const clang::Expr *E);

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

} // namespace cudal1

#endif
