//===- AlgebraicInvariantFactor.h - algebraic-invariant-factor --*- C++ -*-===//
//
// acc += c * e with c loop-invariant: acc += e in the loop, acc *= c after.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICINVARIANTFACTOR_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICINVARIANTFACTOR_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicInvariantFactor : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  /// The loop-invariant factor of \p Mul (`c * e`, `e * c`, `(c * a) * b`)
  /// and the text of the product without it; nothing when there is none.
  static bool splitFactor(clang::ASTContext &Ctx,
                          const clang::BinaryOperator *Mul,
                          const std::set<const clang::VarDecl *> &Written,
                          const clang::VarDecl *Acc, const clang::VarDecl *&C,
                          std::string &Rest);

  void analyze(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
               const clang::CompoundAssignOperator *CA,
               const clang::VarDecl *Acc, const clang::BinaryOperator *Mul,
               std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
