//===- UnrollingConstantTrip.h - unrolling-constant-trip --------*- C++ -*-===//
//
// Innermost loops with a compile-time trip count: #pragma unroll.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_UNROLLING_UNROLLINGCONSTANTTRIP_H
#define CUDAL1_LIB_RULES_UNROLLING_UNROLLINGCONSTANTTRIP_H

#include "../RuleCheck.h"

#include <optional>


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
  /// Whether `#pragma unroll` before \p Loop (in function \p FD) changes
  /// the machine code of the kernel holding it (FD, or a kernel of the file
  /// that calls it): the kernel is extracted with its context and compiled
  /// by NVRTC as it is and with the pragma, and the code sections and
  /// register counts compared. std::nullopt when that cannot be told (the
  /// option CompareCode is 0, NVRTC is missing, the kernel cannot be
  /// extracted or compiled, the loop comes from a macro).
  std::optional<bool> pragmaChangesCode(const clang::FunctionDecl *FD,
                                        const clang::Stmt *Loop);
};

} // namespace cudal1

#endif
