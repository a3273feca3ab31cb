//===- ReadsData.h - does an expression read memory ------------*- C++ -*-===//
//
// Shared by the sync rules: an expression that reads memory (a subscript, a
// dereference or an arrow member), through the initialisers of the locals
// it names. sync-shared-histogram takes such an index as data (a bin read
// from the input); sync-warp-atomic-reduction takes an `==` on such a value
// as a data predicate (`if (board[i] == 1) atomicAdd(count, 1)` counts
// matching elements) rather than a test that picks one thread.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_SYNC_READSDATA_H
#define CUDAL1_RULES_SYNC_READSDATA_H

#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace cudal1 {

/// True when \p E reads memory: a subscript, a dereference or an arrow
/// member, through locals' initialisers (`int c = membership[i]; ...
/// sums[c * dim + f]`).
inline bool readsData(const clang::Stmt *E, unsigned Depth = 0) {
  if (!E || Depth > 16)
    return false;
  bool Found = false;
  forEachStmt(E, [&](const clang::Stmt *S) {
    if (Found)
      return;
    if (clang::isa<clang::ArraySubscriptExpr>(S))
      Found = true;
    else if (const auto *UO = clang::dyn_cast<clang::UnaryOperator>(S);
             UO && UO->getOpcode() == clang::UO_Deref)
      Found = true;
    else if (const auto *ME = clang::dyn_cast<clang::MemberExpr>(S);
             ME && ME->isArrow())
      Found = true;
    else if (const auto *D = clang::dyn_cast<clang::DeclRefExpr>(S))
      if (const auto *V = clang::dyn_cast<clang::VarDecl>(D->getDecl()))
        if (V->isLocalVarDecl() && V->getInit() &&
            readsData(V->getInit(), Depth + 1))
          Found = true;
  });
  return Found;
}

} // namespace cudal1

#endif
