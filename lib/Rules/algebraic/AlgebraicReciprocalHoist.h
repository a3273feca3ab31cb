//===- AlgebraicReciprocalHoist.h - algebraic-reciprocal-hoist --*- C++ -*-===//
//
// Division by a loop-invariant value in a loop: a reciprocal computed once
// before the loop.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICRECIPROCALHOIST_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICRECIPROCALHOIST_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicReciprocalHoist : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;

  struct Group {
    const clang::Stmt *Loop = nullptr;
    const clang::VarDecl *Var = nullptr;
    const clang::FunctionDecl *FD = nullptr;
    std::vector<const clang::BinaryOperator *> Divs;
  };
  std::vector<Group> Groups;

  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;

  void checkTranslationUnit() override;

private:
  /// The divisions by loop-invariant values the groups do not cover
  /// (integers, divisors that are expressions, /=): reported without a fix.
  /// \p Grouped: the raw expansion locations of the grouped divisions.
  void reportOtherInvariantDivisions(const std::set<unsigned> &Grouped);
  /// One finding for the integer divisions \p Divs by invariants of an
  /// innermost loop (\p Loops: one per template instantiation), unless the
  /// loop's memory traffic hides them.
  void reportIntegerDivisions(llvm::ArrayRef<const clang::Stmt *> Loops,
                              const clang::FunctionDecl *FD,
                              llvm::ArrayRef<const clang::BinaryOperator *> Divs);
};

} // namespace cudal1

#endif
