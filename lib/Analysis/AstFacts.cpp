//===- AstFacts.cpp - facts about kernel code shared by analysis and rules ===//
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/FoldingSet.h"
#include <functional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

std::vector<const Stmt *> stmtAncestors(ASTContext &Ctx, const Stmt *S) {
  std::vector<const Stmt *> Up;
  while (S) {
    Up.push_back(S);
    DynTypedNodeList P = Ctx.getParents(*S);
    // Through a variable's declaration to its DeclStmt.
    while (!P.empty() && !P[0].get<Stmt>() && P[0].get<VarDecl>())
      P = Ctx.getParents(*P[0].get<VarDecl>());
    S = P.empty() ? nullptr : P[0].get<Stmt>();
  }
  return Up;
}

void splitTopLevel(const Expr *C, BinaryOperatorKind Op,
                   std::vector<const Expr *> &Out) {
  const auto *BO = dyn_cast<BinaryOperator>(C->IgnoreParenImpCasts());
  if (BO && BO->getOpcode() == Op) {
    splitTopLevel(BO->getLHS(), Op, Out);
    splitTopLevel(BO->getRHS(), Op, Out);
    return;
  }
  Out.push_back(C->IgnoreParenImpCasts());
}

bool isLoop(const Stmt *S) {
  return isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
         isa<CXXForRangeStmt>(S);
}

const Stmt *loopBody(const Stmt *S) {
  if (const auto *F = dyn_cast_or_null<ForStmt>(S))
    return F->getBody();
  if (const auto *W = dyn_cast_or_null<WhileStmt>(S))
    return W->getBody();
  if (const auto *D = dyn_cast_or_null<DoStmt>(S))
    return D->getBody();
  if (const auto *R = dyn_cast_or_null<CXXForRangeStmt>(S))
    return R->getBody();
  return nullptr;
}

void forEachStmt(const Stmt *S, const std::function<void(const Stmt *)> &Fn) {
  if (!S)
    return;
  Fn(S);
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
    // Only the syntactic form: the semantic copies would be seen twice.
    forEachStmt(PO->getSyntacticForm(), Fn);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (V->getInit())
          forEachStmt(V->getInit(), Fn);
    return;
  }
  for (const Stmt *C : S->children())
    forEachStmt(C, Fn);
}

const VarDecl *varOf(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

std::set<const VarDecl *> varsWrittenIn(const Stmt *Body) {
  std::set<const VarDecl *> W;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        if (const VarDecl *V = varOf(BO->getLHS()))
          W.insert(V);
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
        if (const VarDecl *V = varOf(UO->getSubExpr()))
          W.insert(V);
    } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (OC->isAssignmentOp() && OC->getNumArgs() > 0)
        if (const VarDecl *V = varOf(OC->getArg(0)))
          W.insert(V);
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      // Bound to a non-const reference or to a pointer to non-const: the
      // variable may change through it.
      for (const Decl *D : DS->decls())
        if (const auto *RV = dyn_cast<VarDecl>(D))
          if (RV->getType()->isReferenceType() &&
              !RV->getType().getNonReferenceType().isConstQualified() &&
              RV->getInit())
            if (const VarDecl *V = varOf(RV->getInit()))
              W.insert(V);
    } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      // Passed by non-const reference.
      if (const FunctionDecl *Callee = CE->getDirectCallee())
        for (unsigned I = 0; I < CE->getNumArgs() && I < Callee->getNumParams();
             ++I) {
          QualType T = Callee->getParamDecl(I)->getType();
          if (T->isReferenceType() &&
              !T.getNonReferenceType().isConstQualified())
            if (const VarDecl *V = varOf(CE->getArg(I)))
              W.insert(V);
        }
    }
  });
  return W;
}

std::set<const VarDecl *> varsChangedIn(const Stmt *Loop) {
  std::set<const VarDecl *> Out = varsWrittenIn(Loop);
  forEachStmt(Loop, [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Out.insert(V);
  });
  return Out;
}

bool isLoopInvariant(const Expr *E, const std::set<const VarDecl *> &Changed,
                     bool &HasVar) {
  E = E->IgnoreParens();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      if (V->hasGlobalStorage() && !V->getType().isConstQualified())
        return false;
      HasVar = true;
      return !Changed.count(V);
    }
    return true;
  }
  if (isa<ArraySubscriptExpr>(E) || isa<CallExpr>(E) || isa<MemberExpr>(E) ||
      isa<CXXConstructExpr>(E))
    return isa<PseudoObjectExpr>(E);
  if (isa<PseudoObjectExpr>(E)) // threadIdx.x etc.
    return true;
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->getOpcode() == UO_Deref || UO->isIncrementDecrementOp())
      return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->isAssignmentOp())
      return false;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (!isLoopInvariant(CE, Changed, HasVar))
        return false;
  return true;
}

FunctionFacts FunctionFacts::compute(const FunctionDecl *FD) {
  FunctionFacts F;
  F.FD = FD;
  if (FD && FD->getBody())
    F.Mutated = varsWrittenIn(FD->getBody());
  return F;
}

/// The member name and base of a built-in variable access in any of the
/// forms Clang builds for it: the property reference of the syntactic form
/// (threadIdx.x), a member expression, or the __fetch_builtin_x() call of
/// the semantic form.
static bool builtinParts(const Expr *E, const Expr *&Base, StringRef &Member) {
  E = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E)) {
    if (builtinParts(PO->getSyntacticForm(), Base, Member))
      return true;
    return PO->getResultExpr() &&
           builtinParts(PO->getResultExpr(), Base, Member);
  }
  if (const auto *P = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = P->getBaseExpr();
    Member = P->getPropertyDecl()->getName();
    return true;
  }
  if (const auto *M = dyn_cast<MemberExpr>(E)) {
    Base = M->getBase();
    const auto *ND = M->getMemberDecl();
    if (!ND || !ND->getIdentifier())
      return false;
    Member = ND->getName();
    Member.consume_front("__fetch_builtin_");
    return true;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    // __fetch_builtin_x(), as a member call.
    if (const auto *ME =
            dyn_cast<MemberExpr>(C->getCallee()->IgnoreParenImpCasts()))
      if (const auto *ND = ME->getMemberDecl(); ND && ND->getIdentifier()) {
        Member = ND->getName();
        if (!Member.consume_front("__fetch_builtin_"))
          return false;
        Base = ME->getBase();
        return true;
      }
  }
  return false;
}

std::string builtinName(const Expr *E) {
  if (!E)
    return "";
  const Expr *Base = nullptr;
  StringRef Member;
  if (!builtinParts(E, Base, Member) || !Base || Member.size() != 1)
    return "";
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    if (OVE->getSourceExpr())
      Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE || !DRE->getDecl()->getIdentifier())
    return "";
  StringRef Var = DRE->getDecl()->getName();
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
      Var != "gridDim")
    return "";
  if (Member != "x" && Member != "y" && Member != "z")
    return "";
  return (Var + "." + Member).str();
}

static bool isLocalVar(const VarDecl *V) {
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V);
}

AffineExpr toAffine(const Expr *E, const FunctionFacts &F,
                    const std::map<const VarDecl *, std::string> &Syms) {
  if (!E)
    return AffineExpr::unknown();
  E = E->IgnoreParens();
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    if (!CE->getType()->isIntegralOrEnumerationType() ||
        !CE->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return AffineExpr::unknown();
    return toAffine(CE->getSubExpr(), F, Syms);
  }
  std::string B = builtinName(E);
  if (!B.empty())
    return AffineExpr::symbol(B);
  if (const auto *IL = dyn_cast<IntegerLiteral>(E))
    return AffineExpr::constant(IL->getValue().getSExtValue());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return AffineExpr::unknown();
    auto It = Syms.find(V);
    if (It != Syms.end())
      return AffineExpr::symbol(It->second);
    if (F.isMutated(V))
      return AffineExpr::unknown();
    if (isa<ParmVarDecl>(V))
      return V->getType()->isIntegralOrEnumerationType()
                 ? AffineExpr::symbol(V->getName().str())
                 : AffineExpr::unknown();
    if (isLocalVar(V) && V->getInit() &&
        V->getType()->isIntegralOrEnumerationType())
      return toAffine(V->getInit(), F, Syms);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    AffineExpr L = toAffine(BO->getLHS(), F, Syms);
    AffineExpr R = toAffine(BO->getRHS(), F, Syms);
    if (!L.isKnown() || !R.isKnown())
      return AffineExpr::unknown();
    switch (BO->getOpcode()) {
    case BO_Add:
      return L + R;
    case BO_Sub:
      return L - R;
    case BO_Mul:
      return L * R;
    case BO_Shl:
      if (auto C = R.constantValue(); C && *C >= 0 && *C < 31)
        return L * AffineExpr::constant(int64_t(1) << *C);
      return AffineExpr::unknown();
    default:
      break;
    }
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Minus) {
      AffineExpr S = toAffine(UO->getSubExpr(), F, Syms);
      return S.isKnown() ? -S : S;
    }
    if (UO->getOpcode() == UO_Plus)
      return toAffine(UO->getSubExpr(), F, Syms);
  }
  if (E->getType()->isIntegralOrEnumerationType() && !E->isValueDependent()) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, F.FD->getASTContext()))
      return AffineExpr::constant(R.Val.getInt().getSExtValue());
  }
  return AffineExpr::unknown();
}

bool isPureNoMemory(const Expr *E) {
  bool Ok = true;
  forEachStmt(E, [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<ArraySubscriptExpr>(S) || isa<CXXNewExpr>(S) ||
        isa<CXXDeleteExpr>(S) || isa<StmtExpr>(S) || isa<LambdaExpr>(S)) {
      Ok = false;
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(S))
      if (UO->getOpcode() == UO_Deref || UO->isIncrementDecrementOp())
        Ok = false;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      if (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma)
        Ok = false;
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      if (ME->isArrow())
        Ok = false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (!V->hasLocalStorage() && !V->isConstexpr() &&
            !(V->getType().isConstQualified() &&
              V->getType()->isIntegralOrEnumerationType()))
          Ok = false; // a global variable: a memory read
  });
  // Built-ins are pseudo-objects whose syntactic form has no call.
  return Ok;
}

bool isBlockUniform(const Expr *E, const FunctionFacts &F) {
  if (!E)
    return false;
  E = E->IgnoreParenCasts();
  std::string B = builtinName(E);
  if (!B.empty())
    return !StringRef(B).starts_with("threadIdx");
  if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
      isa<CXXBoolLiteralExpr>(E) || isa<CharacterLiteral>(E) ||
      isa<UnaryExprOrTypeTraitExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    if (F.isMutated(V))
      return false;
    if (isa<ParmVarDecl>(V))
      return true;
    if (V->isConstexpr() ||
        (!V->hasLocalStorage() && V->getType().isConstQualified() &&
         V->getType()->isIntegralOrEnumerationType()))
      return true;
    if (isLocalVar(V) && V->getInit() && !V->isStaticLocal())
      return isBlockUniform(V->getInit(), F);
    return false;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && BO->getOpcode() != BO_Comma &&
           isBlockUniform(BO->getLHS(), F) && isBlockUniform(BO->getRHS(), F);
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() != UO_Deref && !UO->isIncrementDecrementOp() &&
           UO->getOpcode() != UO_AddrOf && isBlockUniform(UO->getSubExpr(), F);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return isBlockUniform(CO->getCond(), F) &&
           isBlockUniform(CO->getTrueExpr(), F) &&
           isBlockUniform(CO->getFalseExpr(), F);
  return false;
}

const ParmVarDecl *rootPointerParam(const Expr *E, const FunctionFacts &F) {
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    E = E->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V || F.isMutated(V))
        return nullptr;
      if (const auto *P = dyn_cast<ParmVarDecl>(V))
        return P->getType()->isPointerType() ? P : nullptr;
      if (isLocalVar(V) && V->getInit() && V->getType()->isPointerType()) {
        E = V->getInit();
        continue;
      }
      return nullptr;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub)
        return nullptr;
      E = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                   : BO->getRHS();
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      // &p[i]
      if (UO->getOpcode() != UO_AddrOf)
        return nullptr;
      const Expr *S = UO->getSubExpr()->IgnoreParens();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
        E = AS->getBase();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

bool sameExpr(const ASTContext &Ctx, const Expr *A, const Expr *B) {
  if (!A || !B)
    return false;
  llvm::FoldingSetNodeID IA, IB;
  A->IgnoreParenImpCasts()->Profile(IA, Ctx, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

bool containsCallTo(const Stmt *S, std::initializer_list<StringRef> Names) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *CE = dyn_cast<CallExpr>(X))
      if (const FunctionDecl *FD = CE->getDirectCallee())
        if (FD->getIdentifier())
          for (StringRef N : Names) {
            StringRef Name = FD->getName();
            // "atomic*" also names nvcc's scoped atomics (__nv_atomic_load_n,
            // CUDA 12.8) and the __atomic built-ins.
            if (N == "atomic*" && (Name.starts_with("__nv_atomic") ||
                                   Name.starts_with("__atomic")))
              Found = true;
            if (Name == N ||
                (N.ends_with("*") && Name.starts_with(N.drop_back())))
              Found = true;
          }
  });
  return Found;
}

static bool escapes(const Stmt *S, bool InLoop, bool InSwitch,
                    bool AllowContinue) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  if (isa<BreakStmt>(S))
    return !InLoop && !InSwitch;
  if (isa<ContinueStmt>(S))
    return !InLoop && !AllowContinue;
  if (isa<LambdaExpr>(S))
    return false;
  bool Loop = isLoop(S);
  bool Sw = isa<SwitchStmt>(S);
  for (const Stmt *C : S->children())
    if (escapes(C, InLoop || Loop, InSwitch || Sw, AllowContinue))
      return true;
  return false;
}

bool containsEscape(const Stmt *S, bool AllowContinue) {
  return escapes(S, false, false, AllowContinue);
}

/// In a template's pattern, ExprMutationAnalyzer counts every use of \p V
/// inside a type-dependent expression as a possible change: `l[i]` on a
/// local array `double l[R * R]` sized by a template argument. True when
/// the body of such a pattern (\p Body) only reads \p V: it is never
/// assigned, incremented, has its address or a reference taken, nor is
/// passed to a call (which might take it by reference).
static bool onlyReadInTemplate(const Stmt *Body, const VarDecl *V) {
  const DeclContext *DC = V->getDeclContext();
  if (!DC || !DC->isDependentContext())
    return false;
  // V itself, or an lvalue that may be V: through casts (`(int &)i`), a
  // conditional (`c ? i : j`) or a comma (`(0, i)`).
  std::function<bool(const Expr *)> IsV = [&](const Expr *E) -> bool {
    if (!E)
      return false;
    E = E->IgnoreParenCasts();
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      return D->getDecl() == V;
    if (const auto *C = dyn_cast<AbstractConditionalOperator>(E))
      return IsV(C->getTrueExpr()) || IsV(C->getFalseExpr());
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isCommaOp())
      return IsV(B->getRHS());
    return false;
  };
  auto Mentions = [&](const Stmt *S) {
    bool M = false;
    forEachStmt(S, [&](const Stmt *X) {
      if (const auto *D = dyn_cast<DeclRefExpr>(X))
        M |= D->getDecl() == V;
    });
    return M;
  };
  bool Changed = false;
  std::function<void(const Stmt *)> W = [&](const Stmt *S) {
    if (!S || Changed)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && IsV(B->getLHS()))
      Changed = true;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
        IsV(U->getSubExpr()))
      Changed = true;
    if (const auto *C = dyn_cast<CallExpr>(S))
      for (const Expr *A : C->arguments())
        Changed |= IsV(A);
    if (const auto *C = dyn_cast<CXXUnresolvedConstructExpr>(S))
      for (const Expr *A : C->arguments())
        Changed |= IsV(A);
    if (const auto *C = dyn_cast<CXXConstructExpr>(S))
      for (const Expr *A : C->arguments())
        Changed |= IsV(A);
    if (const auto *PL = dyn_cast<ParenListExpr>(S))
      for (unsigned I = 0; I < PL->getNumExprs(); ++I)
        Changed |= IsV(PL->getExpr(I));
    if (const auto *IL = dyn_cast<InitListExpr>(S))
      for (const Expr *A : IL->inits())
        Changed |= IsV(A);
    // A reference (or a variable whose type may be one) bound to anything
    // that mentions V.
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *X = dyn_cast<VarDecl>(D);
            X && (X->getType()->isReferenceType() ||
                  X->getType()->isDependentType()) &&
            X->getInit() && Mentions(X->getInit()))
          Changed = true;
    if (isa<LambdaExpr>(S) || isa<AsmStmt>(S))
      Changed = true; // a capture by reference, an asm output
    for (const Stmt *C : S->children())
      W(C);
  };
  W(Body);
  return !Changed;
}

std::optional<LoopShape> analyzeFor(ASTContext &Ctx, const ForStmt *F) {
  LoopShape S;
  // init
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (!DS->isSingleDecl())
      return std::nullopt;
    const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!VD || !VD->getInit())
      return std::nullopt;
    S.IV = VD;
    S.Init = VD->getInit();
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (BO->getOpcode() != BO_Assign)
      return std::nullopt;
    S.IV = varOf(BO->getLHS());
    S.Init = BO->getRHS();
  }
  if (!S.IV || !S.IV->getType()->isIntegerType())
    return std::nullopt;
  // condition
  const auto *C = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ)
    return std::nullopt;
  if (varOf(C->getLHS()) == S.IV) {
    S.Bound = C->getRHS();
    S.Cmp = C->getOpcode();
  } else if (varOf(C->getRHS()) == S.IV) {
    S.Bound = C->getLHS();
    S.Cmp = BinaryOperator::reverseComparisonOp(C->getOpcode());
  } else {
    return std::nullopt;
  }
  // increment
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (varOf(U->getSubExpr()) != S.IV || !U->isIncrementDecrementOp())
      return std::nullopt;
    S.Step = U->isIncrementOp() ? 1 : -1;
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    Expr::EvalResult R;
    if (varOf(CA->getLHS()) != S.IV || !CA->getRHS()->EvaluateAsInt(R, Ctx))
      return std::nullopt;
    int64_t V = R.Val.getInt().getExtValue();
    if (CA->getOpcode() == BO_AddAssign)
      S.Step = V;
    else if (CA->getOpcode() == BO_SubAssign)
      S.Step = -V;
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (S.Step == 0)
    return std::nullopt;
  // the body must not change the induction variable
  if (F->getBody()) {
    ExprMutationAnalyzer EMA(*F->getBody(), Ctx);
    if (EMA.isMutated(S.IV) && !onlyReadInTemplate(F->getBody(), S.IV))
      return std::nullopt;
  }
  return S;
}

bool containsLoop(const Stmt *S) {
  if (!S)
    return false;
  for (const Stmt *C : S->children())
    if (C && (isLoop(C) || containsLoop(C)))
      return true;
  return false;
}

unsigned countStmts(const Stmt *S) {
  if (!S)
    return 0;
  // An expression in a statement's place (`a[i] = x;`) is a statement.
  if (isa<Expr>(S))
    return 1;
  unsigned N = isa<CompoundStmt>(S) ? 0 : 1;
  auto Sub = [&](const Stmt *C) { N += countStmts(C); };
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    for (const Stmt *C : CS->body())
      Sub(C);
  else if (const auto *F = dyn_cast<ForStmt>(S))
    Sub(F->getBody());
  else if (const auto *W = dyn_cast<WhileStmt>(S))
    Sub(W->getBody());
  else if (const auto *D = dyn_cast<DoStmt>(S))
    Sub(D->getBody());
  else if (const auto *I = dyn_cast<IfStmt>(S)) {
    Sub(I->getThen());
    Sub(I->getElse());
  } else if (const auto *Sw = dyn_cast<SwitchStmt>(S))
    Sub(Sw->getBody());
  else if (const auto *Ca = dyn_cast<SwitchCase>(S))
    Sub(Ca->getSubStmt());
  else if (const auto *L = dyn_cast<LabelStmt>(S))
    Sub(L->getSubStmt());
  else if (const auto *A = dyn_cast<AttributedStmt>(S))
    Sub(A->getSubStmt());
  return N;
}

bool isZeroConstant(ASTContext &Ctx, const Expr *E, bool RejectNegativeZero) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsRValue(R, Ctx))
    return false;
  if (R.Val.isInt())
    return R.Val.getInt() == 0;
  if (R.Val.isFloat())
    return R.Val.getFloat().isZero() &&
           !(RejectNegativeZero && R.Val.getFloat().isNegative());
  return false;
}

std::optional<int64_t> evalInt(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

std::optional<int64_t> tripCount(int64_t Init, int64_t Bound,
                                 BinaryOperatorKind Cmp, int64_t Step) {
  int64_t Span;
  switch (Cmp) {
  case BO_LT:
    if (Step <= 0)
      return std::nullopt;
    Span = Bound - Init;
    break;
  case BO_LE:
    if (Step <= 0)
      return std::nullopt;
    Span = Bound - Init + 1;
    break;
  case BO_GT:
    if (Step >= 0)
      return std::nullopt;
    Span = Init - Bound;
    Step = -Step;
    break;
  case BO_GE:
    if (Step >= 0)
      return std::nullopt;
    Span = Init - Bound + 1;
    Step = -Step;
    break;
  case BO_NE:
    if (Step > 0 && Bound >= Init && (Bound - Init) % Step == 0)
      return (Bound - Init) / Step;
    if (Step < 0 && Init >= Bound && (Init - Bound) % -Step == 0)
      return (Init - Bound) / -Step;
    return std::nullopt;
  default:
    return std::nullopt;
  }
  if (Span <= 0)
    return 0;
  return (Span + Step - 1) / Step;
}

} // namespace cudal1
