//===- SyncWarpAtomicReduction.h - sync-warp-atomic-reduction ---*- C++ -*-===//
//
// An atomic of every thread to one address: a warp-shuffle reduction and
// one atomic per warp.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_SYNCWARPATOMICREDUCTION_H
#define CUDAL1_LIB_RULES_SYNC_SYNCWARPATOMICREDUCTION_H

#include "../RuleCheck.h"

namespace cudal1 {

class SyncWarpAtomicReduction : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             const KernelAnalysis *KA, std::vector<Finding> &Out);

  void match(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             const KernelAnalysis *KA, const clang::CallExpr *CE,
             std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
