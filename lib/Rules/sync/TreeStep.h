//===- TreeStep.h - pieces of a shared-memory tree's step -------*- C++ -*-===//
//
// Shared by sync-sequential-reduction and sync-warp-shuffle-tree, which
// match the same update `X[tid] op= X[tid + s]`.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_TREESTEP_H
#define CUDAL1_LIB_RULES_SYNC_TREESTEP_H

#include "../RuleCheck.h"

namespace cudal1 {

/// \p E is threadIdx.x (also through a local initialised from it).
inline bool isThreadX(const clang::Expr *E, const FunctionFacts &F) {
  return toAffine(E, F) == AffineExpr::symbol("threadIdx.x");
}

/// The maximum and minimum functions a tree's step may combine with.
inline bool isMinMaxName(llvm::StringRef N) {
  return N == "max" || N == "min" || N == "fmaxf" || N == "fminf" ||
         N == "fmax" || N == "fmin";
}

/// Why the tree on \p X in loop \p L of kernel \p K cannot be rewritten
/// for what is read after it: an element other than `X[0]` read after the
/// loop, or the array used other than subscripted (the rewrite leaves other
/// partial sums there). Empty when none.
inline std::string readAfterTree(const clang::ASTContext &Ctx,
                                 const clang::FunctionDecl *K,
                                 const clang::VarDecl *X,
                                 const clang::Stmt *L) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  std::string Why;
  // The array is only ever subscripted: a pointer to it (an alias, a
  // function's argument) could read other elements after the loop.
  // `&X[k]` and a row of a multi-dimensional X are pointers too.
  unsigned Subscripted = 0;
  bool Escapes = false;
  forEachStmt(K->getBody(), [&](const clang::Stmt *St) {
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(St);
        U && U->getOpcode() == clang::UO_AddrOf)
      if (const auto *AS = llvm::dyn_cast<clang::ArraySubscriptExpr>(
              U->getSubExpr()->IgnoreParens());
          AS && varOf(AS->getBase()) == X)
        Escapes = true;
    if (const auto *AS = llvm::dyn_cast<clang::ArraySubscriptExpr>(St);
        AS && varOf(AS->getBase()) == X) {
      ++Subscripted;
      if (AS->getType()->isArrayType())
        Escapes = true;
    }
  });
  if (Escapes || countReferences(K->getBody(), X) != Subscripted)
    return "'" + X->getName().str() +
           "' is used other than as 'X[k]' (a pointer to it could read "
           "other elements)";
  forEachStmt(K->getBody(), [&](const clang::Stmt *St) {
    const auto *AS = llvm::dyn_cast<clang::ArraySubscriptExpr>(St);
    if (!AS || varOf(AS->getBase()) != X ||
        !SM.isBeforeInTranslationUnit(L->getEndLoc(), AS->getBeginLoc()))
      return;
    clang::Expr::EvalResult R;
    const clang::Expr *Idx = AS->getIdx();
    if (Idx->isValueDependent() || !Idx->EvaluateAsInt(R, Ctx) ||
        R.Val.getInt() != 0)
      Why = "the kernel reads '" + sourceText(Ctx, AS->getSourceRange()) +
            "' after the loop; only element 0 keeps its value";
  });
  return Why;
}

} // namespace cudal1

#endif
