//===- SyncWarpShuffleTree.h - sync-warp-shuffle-tree -----------*- C++ -*-===//
//
// A halving shared-memory tree reduction (one barrier per step) becomes a
// warp-shuffle reduction with two barriers.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_SYNCWARPSHUFFLETREE_H
#define CUDAL1_LIB_RULES_SYNC_SYNCWARPSHUFFLETREE_H

#include "../RuleCheck.h"

namespace cudal1 {

class SyncWarpShuffleTree : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void match(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             const clang::ForStmt *L, std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
