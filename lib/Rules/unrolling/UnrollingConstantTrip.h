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

private:
  /// nvcc unrolls the loop fully by itself: \p Trip times the code size of
  /// \p Body (its nodes, callees inlined) is at most the option
  /// CompilerUnrollSize (default 800, measured with nvcc 13 -O3 for sm_90),
  /// twice that when the loop indexes a local array (\p LocalArray).
  bool compilerUnrolls(int64_t Trip, const clang::Stmt *Body,
                       bool LocalArray);
  /// Full unrolling has nothing to gain in \p Body: without a local array
  /// to keep in registers (\p LocalArray), a barrier (in the body or a
  /// function it calls), a switch, or more than MaxBodySize nodes.
  bool nothingToGain(const clang::Stmt *Body, bool LocalArray);
};

} // namespace cudal1

#endif
