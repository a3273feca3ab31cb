//===- CoalescingWarpPerRow.h - coalescing-warp-per-row ---------*- C++ -*-===//
//
// Row-walking kernels: one warp per row, lanes striding the row, a
// shuffle reduction.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGWARPPERROW_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGWARPPERROW_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingWarpPerRow : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  Finding analyze(clang::ASTContext &Ctx, const CheckContext &CC,
                  const clang::FunctionDecl *K, const FunctionFacts &F,
                  const clang::ForStmt *L, const clang::VarDecl *IV,
                  const clang::Expr *K0, const clang::Expr *End,
                  const clang::CompoundAssignOperator *Upd,
                  const clang::VarDecl *Acc);
};

} // namespace cudal1

#endif
