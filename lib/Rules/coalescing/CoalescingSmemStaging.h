//===- CoalescingSmemStaging.h - coalescing-smem-staging --------*- C++ -*-===//
//
// Row-walking kernels: rows of the matrix staged through a padded
// shared-memory tile, loaded cooperatively (coalesced).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGSMEMSTAGING_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGSMEMSTAGING_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingSmemStaging : public RuleCheck {
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
                  const clang::ArraySubscriptExpr *Walk,
                  const clang::ParmVarDecl *A);
};

} // namespace cudal1

#endif
