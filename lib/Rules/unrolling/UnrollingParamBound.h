//===- UnrollingParamBound.h - unrolling-param-bound ------------*- C++ -*-===//
//
// Small innermost loops bounded by a parameter: #pragma unroll N.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_UNROLLING_UNROLLINGPARAMBOUND_H
#define CUDAL1_LIB_RULES_UNROLLING_UNROLLINGPARAMBOUND_H

#include "../RuleCheck.h"

namespace cudal1 {

class UnrollingParamBound : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
};

} // namespace cudal1

#endif
