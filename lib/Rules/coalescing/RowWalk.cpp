//===- RowWalk.cpp - kernels whose threads each walk a row ----------------===//
#include "RowWalk.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
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

const ParmVarDecl *
rowWalkAccess(const ArraySubscriptExpr *AS, const FunctionFacts &F,
              const std::map<const VarDecl *, std::string> &Syms,
              AffineExpr &Idx) {
  if (AS->getType()->isArrayType())
    return nullptr; // A[i] of a 2-D array: a row
  const Expr *B = AS->getBase()->IgnoreParenImpCasts();
  if (const auto *In = dyn_cast<ArraySubscriptExpr>(B)) {
    // A[i][j]: the row A[i] has a constant size C.
    const auto *CAT = dyn_cast<ConstantArrayType>(
        In->getType()->getUnqualifiedDesugaredType());
    if (!CAT)
      return nullptr; // float **A: rows anywhere
    const ParmVarDecl *P = rootPointerParam(In->getBase(), F);
    if (!P)
      return nullptr;
    Idx = toAffine(In->getIdx(), F, Syms) *
              AffineExpr::constant(int64_t(CAT->getZExtSize())) +
          toAffine(AS->getIdx(), F, Syms);
    return P;
  }
  const ParmVarDecl *P = rootPointerParam(AS->getBase(), F);
  if (P)
    Idx = toAffine(AS->getIdx(), F, Syms);
  return P;
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

const Stmt *soleThen(const IfStmt *If) {
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *T = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(T)) {
    if (CS->size() != 1)
      return nullptr;
    T = CS->body_front();
  }
  return T;
}

const Expr *earlyExit(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  const auto *Ret = dyn_cast_or_null<ReturnStmt>(soleThen(If));
  return Ret && !Ret->getRetValue() ? If->getCond() : nullptr;
}

std::set<const VarDecl *> varsRead(const Stmt *S) {
  std::set<const VarDecl *> Out;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        Out.insert(V);
  });
  return Out;
}

const Stmt *loopStatement(ASTContext &Ctx, const ForStmt *L) {
  const Stmt *S = L;
  for (;;) {
    auto P = Ctx.getParents(*S);
    const auto *AS = P.empty() ? nullptr : P[0].get<AttributedStmt>();
    if (!AS)
      return S;
    S = AS;
  }
}

} // namespace cudal1
