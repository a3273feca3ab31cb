//===- CoalescingTransposeTile.h - coalescing-transpose-tile ----*- C++ -*-===//
//
// Transpose-like copies: through a padded shared-memory tile, so that both
// the reads and the writes are coalesced.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGTRANSPOSETILE_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGTRANSPOSETILE_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingTransposeTile : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);

  static bool uses(const clang::Stmt *S, const std::string &Builtin);
};

} // namespace cudal1

#endif
