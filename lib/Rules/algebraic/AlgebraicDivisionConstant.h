//===- AlgebraicDivisionConstant.h - algebraic-division-constant -*- C++
//-*-===//
//
// Floating division by a power of two: multiply by its exact reciprocal.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICDIVISIONCONSTANT_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICDIVISIONCONSTANT_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicDivisionConstant : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

} // namespace cudal1

#endif
