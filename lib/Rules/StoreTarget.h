//===- StoreTarget.h - what a statement node stores into --------*- C++ -*-===//
//
// The left-hand side of an assignment (`=`, `+=`, ...) or the operand of an
// increment/decrement: the rules that check what a region of a kernel may
// change walk its nodes with this.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_STORETARGET_H
#define CUDAL1_LIB_RULES_STORETARGET_H

#include "clang/AST/Expr.h"

namespace cudal1 {

/// The expression node \p S stores into, or null when it stores nothing
/// (calls are not looked into).
inline const clang::Expr *storeTarget(const clang::Stmt *S) {
  if (const auto *BO = llvm::dyn_cast<clang::BinaryOperator>(S);
      BO && BO->isAssignmentOp())
    return BO->getLHS();
  if (const auto *UO = llvm::dyn_cast<clang::UnaryOperator>(S);
      UO && UO->isIncrementDecrementOp())
    return UO->getSubExpr();
  return nullptr;
}

} // namespace cudal1

#endif
