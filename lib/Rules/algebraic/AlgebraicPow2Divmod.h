//===- AlgebraicPow2Divmod.h - algebraic-pow2-divmod ------------*- C++ -*-===//
//
// Integer / or % by a power of two on a value proven >= 0: >> or &.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICPOW2DIVMOD_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICPOW2DIVMOD_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicPow2Divmod : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;

private:
  /// A signed / or % by \p V = 2^\p K whose dividend is not proven >= 0:
  /// reported without a fix when it is in a loop.
  void reportUnprovenSigned(const clang::BinaryOperator *BO,
                            const clang::FunctionDecl *FD, uint64_t V, int K);
};

} // namespace cudal1

#endif
