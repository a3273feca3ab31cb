//===- UnrollingConstantTrip.h - unrolling-constant-trip --------*- C++ -*-===//
//
// Innermost loops with a compile-time trip count: #pragma unroll.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_UNROLLING_UNROLLINGCONSTANTTRIP_H
#define CUDAL1_LIB_RULES_UNROLLING_UNROLLINGCONSTANTTRIP_H

#include "../RuleCheck.h"

namespace cudal1 {

class UnrollingConstantTrip : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
  /// Constant-trip loops of the access analysis that index a local array
  /// with their induction variable and were not reported by check().
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
