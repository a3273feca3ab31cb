//===- RowWalk.cpp - kernels whose threads each walk a row ----------------===//
#include "RowWalk.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "cudal1/Rules/RuleSupport.h"

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

const ParmVarDecl *subscriptParam(const ArraySubscriptExpr *AS,
                                  const FunctionFacts &F) {
  const Expr *Base = AS->getBase();
  if (const auto *In =
          dyn_cast<ArraySubscriptExpr>(Base->IgnoreParenImpCasts()))
    Base = In->getBase();
  return rootPointerParam(Base, F);
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

bool gridTimes32(ASTContext &Ctx, const CUDAKernelCallExpr *Site,
                 std::vector<TextEdit> &Edits, std::string &Why) {
  const CallExpr *Cfg = Site->getConfig();
  if (!Cfg || Cfg->getNumArgs() < 1) {
    Why = "a launch site has no visible configuration";
    return false;
  }
  const Expr *G = Cfg->getArg(0);
  for (unsigned I = 0; I < 8; ++I) {
    G = G->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(G))
      G = M->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(G);
             C && !isa<CXXTemporaryObjectExpr>(C) && C->getNumArgs() >= 1 &&
             C->getParenOrBraceRange().isInvalid())
      G = C->getArg(0);
    else
      break;
  }
  std::string GT = sourceText(Ctx, G->getSourceRange());
  std::string EW;
  auto Range = editableRange(
      Ctx, CharSourceRange::getTokenRange(G->getSourceRange()), EW);
  if (GT.empty() || !Range) {
    Why = EW.empty() ? "a grid comes from a macro expansion" : EW;
    return false;
  }
  std::string New;
  if (G->getType()->isIntegralOrEnumerationType())
    New = "(" + GT + ") * 32";
  else if (isa<DeclRefExpr>(G))
    New = "dim3((" + GT + ").x * 32, (" + GT + ").y, (" + GT + ").z)";
  else {
    Why = "the grid '" + GT + "' is not an integer or a dim3 variable";
    return false;
  }
  Edits.push_back(makeTextEdit(Ctx, *Range, New));
  return true;
}

bool systemCallee(const ASTContext &Ctx, const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return false;
  if (FD->getBuiltinID())
    return true;
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
}

/// No stores, no increments, no calls but CUDA's and the C library's.
bool sideEffectFree(const ASTContext &Ctx, const Stmt *S) {
  bool Ok = true;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      Ok &= !B->isAssignmentOp();
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      Ok &= !U->isIncrementDecrementOp();
    if (const auto *CE = dyn_cast<CallExpr>(X))
      Ok &= systemCallee(Ctx, CE) &&
            !containsCallTo(CE, {"atomic*", "__shfl*", "__syncthreads*",
                                 "__syncwarp", "printf", "__ballot*",
                                 "__any*", "__all*", "__activemask",
                                 "__match*", "__reduce*", "clock*",
                                 "__nanosleep"});
  });
  return Ok;
}

/// A local arithmetic variable named by \p E, or null.
const VarDecl *localAcc(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParens());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
                 V->getType()->isArithmeticType()
             ? V
             : nullptr;
}

/// The reduction statement \p B is (`acc += e`, `acc = max(acc, e)`,
/// `acc = max(e, acc)`, the min and fmax/fmaxf/fmin/fminf forms), or
/// std::nullopt.
std::optional<Reduction> reductionOf(ASTContext &Ctx, const Stmt *B) {
  Reduction R;
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(B)) {
    R.Acc = localAcc(CA->getLHS());
    if (!R.Acc || CA->getOpcode() != BO_AddAssign)
      return std::nullopt;
    R.Kind = ReductionKind::Sum;
    R.Value = CA->getRHS();
    return R;
  }
  const auto *BO = dyn_cast<BinaryOperator>(B);
  if (!BO || BO->getOpcode() != BO_Assign)
    return std::nullopt;
  R.Acc = localAcc(BO->getLHS());
  const auto *CE = dyn_cast<CallExpr>(BO->getRHS()->IgnoreParenImpCasts());
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!R.Acc || !FD || CE->getNumArgs() != 2 || !systemCallee(Ctx, CE))
    return std::nullopt;
  std::string N = FD->getNameAsString();
  bool IsMax = N == "max" || N == "fmaxf" || N == "fmax";
  bool IsMin = N == "min" || N == "fminf" || N == "fmin";
  if (!IsMax && !IsMin)
    return std::nullopt;
  const Expr *A0 = CE->getArg(0), *A1 = CE->getArg(1);
  if (localAcc(A0->IgnoreImpCasts()) == R.Acc)
    R.Value = A1;
  else if (localAcc(A1->IgnoreImpCasts()) == R.Acc)
    R.Value = A0;
  else
    return std::nullopt;
  R.Kind = IsMax ? ReductionKind::Max : ReductionKind::Min;
  R.Callee = sourceText(Ctx, CE->getCallee()->getSourceRange());
  if (R.Callee.empty())
    return std::nullopt;
  return R;
}

FixIt reductionFix(bool AnyFloat) {
  FixIt X;
  X.Exact = AnyFloat ? Exactness::Reassociating : Exactness::Bitwise;
  if (AnyFloat) {
    X.Rtol = 1e-4;
    X.Atol = 1e-5;
    X.ScaleRtol = 1e-4;
  }
  return X;
}

std::vector<const Stmt *> loopBodyStatements(const ForStmt *L) {
  if (const auto *CS = dyn_cast<CompoundStmt>(L->getBody()))
    return {CS->body_begin(), CS->body_end()};
  return {L->getBody()};
}

std::optional<std::vector<Reduction>> loopReductions(ASTContext &Ctx,
                                                     const ForStmt *L) {
  std::vector<Reduction> Out;
  std::set<const VarDecl *> Accs;
  for (const Stmt *B : loopBodyStatements(L)) {
    auto R = reductionOf(Ctx, B);
    if (!R || !Accs.insert(R->Acc).second)
      return std::nullopt;
    Out.push_back(*R);
  }
  if (Out.empty())
    return std::nullopt;
  return Out;
}

bool sumStartsElsewhere(ASTContext &Ctx, const Reduction &R) {
  return R.Kind == ReductionKind::Sum &&
         (R.AssignedBefore ||
          !(R.Acc->getInit() &&
            isZeroConstant(Ctx, R.Acc->getInit(),
                           /*RejectNegativeZero=*/true)));
}

std::string launchDimText(ASTContext &Ctx, const Expr *W) {
  std::string T = sourceText(Ctx, W->getSourceRange());
  QualType Ty = W->getType();
  return Ty->isIntegralOrEnumerationType() || Ty->isRealFloatingType()
             ? "dim3(" + T + ")"
             : "(" + T + ")";
}

} // namespace cudal1
