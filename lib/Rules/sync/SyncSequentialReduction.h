//===- SyncSequentialReduction.h - sync-sequential-reduction ----*- C++ -*-===//
//
// Interleaved shared-memory tree reductions (tid % (2*s)): sequential
// addressing.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_SYNCSEQUENTIALREDUCTION_H
#define CUDAL1_LIB_RULES_SYNC_SYNCSEQUENTIALREDUCTION_H

#include "../RuleCheck.h"

namespace cudal1 {

class SyncSequentialReduction : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
  /// Divergent `tid % (2*s)` (or mask) tests in any loop of device code
  /// that checkKernel did not report: reported without a fix.
  void checkTranslationUnit() override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  void match(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             const clang::ForStmt *L, std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
