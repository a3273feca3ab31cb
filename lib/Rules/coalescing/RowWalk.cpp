//===- RowWalk.cpp - kernels whose threads each walk a row ----------------===//
#include "RowWalk.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

using namespace clang;

namespace cudal1 {

std::vector<const ForStmt *> forLoopsIn(const Stmt *Body) {
  std::vector<const ForStmt *> Loops;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *L = dyn_cast<ForStmt>(S))
      Loops.push_back(L);
  });
  return Loops;
}

bool walksRowPerThread(const AffineExpr &Idx) {
  if (!Idx.isKnown() || Idx.coefficientOf("k@iv") != AffineExpr::constant(1))
    return false;
  AffineExpr CT = Idx.coefficientOf("threadIdx.x");
  if (!CT.isKnown() || CT.dependsOnThread())
    return false;
  auto CV = CT.constantValue();
  return !(CV && *CV >= -1 && *CV <= 1);
}

const VarDecl *simpleLoop(ASTContext &Ctx, const ForStmt *L, const Expr *&K0,
                          const Expr *&End) {
  std::optional<LoopShape> S = analyzeFor(Ctx, L);
  const auto *C = dyn_cast_or_null<BinaryOperator>(L->getCond());
  if (!S || !isa_and_nonnull<DeclStmt>(L->getInit()) || S->Step != 1 ||
      S->Cmp != BO_LT || !C || varOf(C->getLHS()) != S->IV)
    return nullptr;
  K0 = S->Init;
  End = S->Bound;
  return S->IV;
}

} // namespace cudal1
