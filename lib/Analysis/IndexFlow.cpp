//===- IndexFlow.cpp - values loaded from buffers used as indices ---------===//
//
// For every global access of a kernel whose base is a pointer parameter, the
// element index as an IndexExpr (cudal1/Model/KernelInfo.h): loads from
// integer pointer parameters become Load leaves, loop variables Range leaves
// (their first and last value), local variables are followed to their only
// definition, device-function parameters to the caller's argument (along
// the access's call chain). Accesses whose index depends on a load are
// recorded in the loaded buffer's BufferUse::IndexUses, so the harness can
// choose the values of that buffer (a membership array, CSR column indices,
// scanned positions) that keep every index in bounds.
//
// Everything is read from the AST; what is not followed is an Opaque node
// with the reason, never a guess.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Analysis/BufferRoles.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <map>

using namespace clang;

namespace cudal1 {

namespace {

/// Per function: the statements that modify each local variable, whether
/// its address escapes, and the for loop whose variable it is.
struct FunctionMods {
  std::map<const VarDecl *, std::vector<const Stmt *>> Mods;
  std::set<const VarDecl *> Escapes;
  std::map<const VarDecl *, const ForStmt *> LoopOf;
};

const VarDecl *assignedVar(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

FunctionMods collectMods(const FunctionDecl *F) {
  FunctionMods M;
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        if (const VarDecl *V = assignedVar(BO->getLHS()))
          M.Mods[V].push_back(BO);
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp()) {
        if (const VarDecl *V = assignedVar(UO->getSubExpr()))
          M.Mods[V].push_back(UO);
      } else if (UO->getOpcode() == UO_AddrOf) {
        if (const VarDecl *V = assignedVar(UO->getSubExpr()))
          M.Escapes.insert(V);
      }
    } else if (const auto *FS = dyn_cast<ForStmt>(S)) {
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(FS->getInit()))
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D))
            M.LoopOf[V] = FS;
    }
  });
  // References bound to locals, and by-reference arguments, escape too.
  for (const VarDecl *V : varsWrittenIn(F->getBody()))
    if (!M.Mods.count(V))
      M.Escapes.insert(V);
  return M;
}

bool isIntegerPointee(QualType T) {
  if (!T->isPointerType())
    return false;
  QualType P = T->getPointeeType();
  return P->isIntegerType() && !P->isBooleanType();
}

class IndexFlowBuilder {
public:
  IndexFlowBuilder(ASTContext &Ctx, const KernelAnalysis &KA)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), KA(KA) {}

  void run(KernelInfo &K) {
    const FunctionDecl *Kern = KA.Kernel;
    for (const MemAccess &A : KA.Accesses) {
      if (A.Space != MemSpace::Global)
        continue;
      const auto *Q = dyn_cast_or_null<ParmVarDecl>(A.Base);
      if (!Q || Q->getDeclContext() != Kern)
        continue;
      Chain = A.CallChain;
      Steps = 0;
      LoadWork = 0;
      std::optional<Located> Loc;
      if (A.IsAtomic)
        Loc = pointer(A.Index, Chain.size());
      else
        Loc = lvalue(A.E, Chain.size());
      if (!Loc || Loc->Base != Q)
        continue;
      std::set<unsigned> Sources;
      Loc->Index.loadedParams(Sources);
      if (Sources.empty())
        continue;
      IndexUse U;
      U.Target = Q->getFunctionScopeIndex();
      U.Index = std::move(Loc->Index);
      U.Atomic = A.IsAtomic;
      U.Write = A.IsWrite && !A.IsAtomic;
      U.Access = A.Text;
      U.Where = A.Loc.brief();
      for (unsigned S : Sources) {
        auto It = std::find_if(K.BufferUses.begin(), K.BufferUses.end(),
                               [&](const BufferUse &B) { return B.Param == S; });
        if (It == K.BufferUses.end())
          continue;
        bool Seen = false;
        for (const IndexUse &Old : It->IndexUses)
          Seen |= Old.Where == U.Where && Old.Target == U.Target &&
                  Old.Write == U.Write;
        if (!Seen)
          It->IndexUses.push_back(U);
      }
    }
  }

private:
  struct Located {
    const ParmVarDecl *Base = nullptr;
    IndexExpr Index; ///< in elements of Base
  };

  ASTContext &Ctx;
  const SourceManager &SM;
  const KernelAnalysis &KA;
  std::vector<const CallExpr *> Chain;
  std::map<const FunctionDecl *, FunctionMods> ModCache;
  unsigned Steps = 0;
  unsigned LoadWork = 0;

  /// The function whose body holds expressions of call level \p L (0: the
  /// kernel; L: the callee of Chain[L-1]).
  const FunctionDecl *functionAt(unsigned L) const {
    if (L == 0)
      return KA.Kernel;
    const FunctionDecl *F = Chain[L - 1]->getDirectCallee();
    return F ? F->getDefinition() : nullptr;
  }
  const FunctionMods &modsOf(const FunctionDecl *F) {
    auto It = ModCache.find(F);
    if (It == ModCache.end())
      It = ModCache.emplace(F, collectMods(F)).first;
    return It->second;
  }
  std::string text(const Expr *E) {
    std::string T = oneLineText(Ctx, E->getSourceRange());
    if (T.size() > 40)
      T = T.substr(0, 37) + "...";
    return T;
  }
  unsigned sizeOf(QualType T) {
    if (T.isNull() || T->isDependentType() || T->isIncompleteType() ||
        T->isVoidType() || T->isFunctionType())
      return 0;
    return Ctx.getTypeSizeInChars(T).getQuantity();
  }

  /// A pointer parameter of the kernel a pointer expression points into,
  /// with the element offset (elements of the parameter's pointee).
  std::optional<Located> pointer(const Expr *E, unsigned L) {
    if (!E || ++Steps > 400)
      return std::nullopt;
    E = E->IgnoreParens();
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      switch (CE->getCastKind()) {
      case CK_LValueToRValue:
        if (const auto *DRE =
                dyn_cast<DeclRefExpr>(CE->getSubExpr()->IgnoreParens()))
          return pointerVar(DRE, L);
        return std::nullopt;
      case CK_NoOp:
      case CK_BitCast:
      case CK_AddressSpaceConversion: {
        QualType From = CE->getSubExpr()->getType(), To = CE->getType();
        if (From->isPointerType() && To->isPointerType() &&
            sizeOf(From->getPointeeType()) != sizeOf(To->getPointeeType()))
          return std::nullopt; // reinterpreted: another element size
        return pointer(CE->getSubExpr(), L);
      }
      default:
        return std::nullopt;
      }
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return pointerVar(DRE, L);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
        const Expr *PE = BO->getLHS(), *IE = BO->getRHS();
        if (!PE->getType()->isPointerType())
          std::swap(PE, IE);
        if (!PE->getType()->isPointerType() ||
            !IE->getType()->isIntegralOrEnumerationType())
          return std::nullopt;
        std::optional<Located> P = pointer(PE, L);
        if (!P)
          return std::nullopt;
        P->Index = IndexExpr::op(BO->getOpcode() == BO_Add ? IndexExpr::Add
                                                            : IndexExpr::Sub,
                                 std::move(P->Index), value(IE, L));
        return P;
      }
      if (BO->getOpcode() == BO_Comma)
        return pointer(BO->getRHS(), L);
      return std::nullopt;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->getOpcode() == UO_AddrOf)
        return lvalue(UO->getSubExpr(), L);
    return std::nullopt;
  }

  std::optional<Located> pointerVar(const DeclRefExpr *DRE, unsigned L) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->getType()->isPointerType())
      return std::nullopt;
    const FunctionDecl *F = functionAt(L);
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      if (L == 0 && P->getDeclContext() == KA.Kernel) {
        const FunctionMods &M = modsOf(KA.Kernel);
        if (M.Mods.count(P) || M.Escapes.count(P))
          return std::nullopt;
        Located R;
        R.Base = P;
        R.Index = IndexExpr::constant(0);
        return R;
      }
      if (L > 0 && F && P->getDeclContext() == F) {
        const FunctionMods &M = modsOf(F);
        unsigned I = P->getFunctionScopeIndex();
        if (M.Mods.count(P) || M.Escapes.count(P) ||
            I >= Chain[L - 1]->getNumArgs())
          return std::nullopt;
        return pointer(Chain[L - 1]->getArg(I), L - 1);
      }
      return std::nullopt;
    }
    if (!F || !V->hasLocalStorage())
      return std::nullopt;
    const FunctionMods &M = modsOf(F);
    if (M.Escapes.count(V))
      return std::nullopt;
    auto It = M.Mods.find(V);
    if (It == M.Mods.end())
      return V->getInit() ? pointer(V->getInit(), L) : std::nullopt;
    if (!V->getInit() && It->second.size() == 1)
      if (const auto *BO = dyn_cast<BinaryOperator>(It->second.front()))
        if (BO->getOpcode() == BO_Assign)
          return pointer(BO->getRHS(), L);
    return std::nullopt;
  }

  /// The buffer and element index of an lvalue (`p[i]`, `*(p + i)`).
  std::optional<Located> lvalue(const Expr *E, unsigned L) {
    if (!E || ++Steps > 400)
      return std::nullopt;
    E = E->IgnoreParens();
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
      if (ICE->getCastKind() == CK_NoOp)
        return lvalue(ICE->getSubExpr(), L);
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      if (!ASE->getBase()->getType()->isPointerType())
        return std::nullopt;
      std::optional<Located> P = pointer(ASE->getBase(), L);
      if (!P)
        return std::nullopt;
      P->Index =
          IndexExpr::op(IndexExpr::Add, std::move(P->Index), value(ASE->getIdx(), L));
      return P;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->getOpcode() == UO_Deref)
        return pointer(UO->getSubExpr(), L);
    return std::nullopt;
  }

  /// \p Why, with the loads of integer buffers found in \p E as operands
  /// (so the harness knows whose values it could not follow).
  IndexExpr opaque(const std::string &Why, const Expr *E, unsigned L) {
    IndexExpr O = IndexExpr::opaque(Why);
    std::set<unsigned> Seen;
    addLoads(E, L, O, Seen, 0);
    return O;
  }
  void addLoads(const Expr *E, unsigned L, IndexExpr &O,
                std::set<unsigned> &Seen, unsigned Depth) {
    // LoadWork bounds the whole search for one access: each lvalue() below
    // restores Steps (its budget is the main value's), and definitions that
    // read loads whose indices read loads... branch exponentially (seen on
    // a third-party graph kernel: minutes for one file).
    if (!E || Depth > 6 || ++LoadWork > 2000)
      return;
    forEachStmt(E, [&](const Stmt *S) {
      const auto *X = dyn_cast<Expr>(S);
      if (!X || LoadWork > 2000)
        return;
      if (isa<ArraySubscriptExpr>(X) ||
          (isa<UnaryOperator>(X) &&
           cast<UnaryOperator>(X)->getOpcode() == UO_Deref)) {
        unsigned Saved = Steps;
        std::optional<Located> Loc = lvalue(X, L);
        Steps = Saved;
        if (Loc && isIntegerPointee(Loc->Base->getType()) &&
            Seen.insert(Loc->Base->getFunctionScopeIndex()).second) {
          IndexExpr Ld;
          Ld.Kind = IndexExpr::Load;
          Ld.Buffer = Loc->Base->getFunctionScopeIndex();
          O.Ops.push_back(Ld);
        }
      } else if (const auto *DRE = dyn_cast<DeclRefExpr>(X)) {
        const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
          addLoads(V->getInit(), L, O, Seen, Depth + 1);
      }
    });
  }

  IndexExpr value(const Expr *E, unsigned L) {
    if (!E || ++Steps > 400)
      return IndexExpr::opaque("too complex to follow");
    E = E->IgnoreParens();
    if (E->isValueDependent() || E->isTypeDependent())
      return IndexExpr::opaque("dependent expression");
    if (E->getType()->isIntegralOrEnumerationType() && !E->HasSideEffects(Ctx)) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx) && R.Val.isInt() &&
          R.Val.getInt().getSignificantBits() <= 63)
        return IndexExpr::constant(R.Val.getInt().getExtValue());
    }
    std::string B = builtinName(E);
    if (!B.empty()) {
      IndexExpr X;
      X.Kind = IndexExpr::Builtin;
      X.Name = B;
      return X;
    }
    if (const auto *CE = dyn_cast<ConstantExpr>(E))
      return value(CE->getSubExpr(), L);
    if (const auto *ST = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
      return value(ST->getReplacement(), L);
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      switch (CE->getCastKind()) {
      case CK_LValueToRValue: {
        const Expr *Sub = CE->getSubExpr()->IgnoreParens();
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
          return variable(DRE, L);
        return load(Sub, L);
      }
      case CK_IntegralCast:
      case CK_NoOp:
        return value(CE->getSubExpr(), L);
      case CK_IntegralToBoolean:
        return IndexExpr::op(IndexExpr::Select, IndexExpr::constant(0),
                             IndexExpr::constant(1));
      case CK_FloatingToIntegral:
        return opaque("converted from a floating-point value '" +
                          text(CE->getSubExpr()) + "'",
                      E, L);
      default:
        return opaque("'" + text(E) + "' not followed", E, L);
      }
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return variable(DRE, L);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      IndexExpr::KindT K;
      switch (BO->getOpcode()) {
      case BO_Add: K = IndexExpr::Add; break;
      case BO_Sub: K = IndexExpr::Sub; break;
      case BO_Mul: K = IndexExpr::Mul; break;
      case BO_Div: K = IndexExpr::Div; break;
      case BO_Rem: K = IndexExpr::Rem; break;
      case BO_Shl: K = IndexExpr::Shl; break;
      case BO_Shr: K = IndexExpr::Shr; break;
      case BO_And: K = IndexExpr::And; break;
      case BO_Comma:
        return value(BO->getRHS(), L);
      default:
        if (BO->isComparisonOp() || BO->isLogicalOp()) {
          IndexExpr S = IndexExpr::op(IndexExpr::Select, IndexExpr::constant(0),
                                      IndexExpr::constant(1));
          return S;
        }
        return opaque("'" + text(E) + "' not followed", E, L);
      }
      if (BO->getLHS()->getType()->isPointerType() ||
          BO->getRHS()->getType()->isPointerType())
        return opaque("pointer arithmetic '" + text(E) + "'", E, L);
      return IndexExpr::op(K, value(BO->getLHS(), L), value(BO->getRHS(), L));
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_Minus)
        return IndexExpr::op(IndexExpr::Sub, IndexExpr::constant(0),
                             value(UO->getSubExpr(), L));
      if (UO->getOpcode() == UO_Plus)
        return value(UO->getSubExpr(), L);
      if (UO->getOpcode() == UO_LNot)
        return IndexExpr::op(IndexExpr::Select, IndexExpr::constant(0),
                             IndexExpr::constant(1));
      return opaque("'" + text(E) + "' not followed", E, L);
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return IndexExpr::op(IndexExpr::Select, value(CO->getTrueExpr(), L),
                           value(CO->getFalseExpr(), L));
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      StringRef N = FD && FD->getIdentifier() ? FD->getName() : "";
      if ((N == "min" || N == "max" || N == "umin" || N == "umax" ||
           N == "llmin" || N == "llmax" || N == "ullmin" || N == "ullmax") &&
          CE->getNumArgs() == 2 &&
          CE->getArg(0)->getType()->isIntegralOrEnumerationType() &&
          CE->getArg(1)->getType()->isIntegralOrEnumerationType())
        return IndexExpr::op(N.ends_with("min") ? IndexExpr::Min : IndexExpr::Max,
                             value(CE->getArg(0), L), value(CE->getArg(1), L));
      if (N.starts_with("__ld") && CE->getNumArgs() == 1) {
        const Expr *Arg = CE->getArg(0);
        if (std::optional<Located> P = pointer(Arg, L))
          return loadOf(*P, E, L);
      }
      return opaque("the result of '" + text(E) + "'", E, L);
    }
    return opaque("'" + text(E) + "' not followed", E, L);
  }

  IndexExpr loadOf(const Located &P, const Expr *E, unsigned L) {
    if (!isIntegerPointee(P.Base->getType()))
      return opaque("a value loaded from the non-integer buffer '" +
                        P.Base->getNameAsString() + "'",
                    E, L);
    IndexExpr X;
    X.Kind = IndexExpr::Load;
    X.Buffer = P.Base->getFunctionScopeIndex();
    return X;
  }

  /// A load of the integer lvalue \p LV.
  IndexExpr load(const Expr *LV, unsigned L) {
    if (std::optional<Located> P = lvalue(LV, L))
      return loadOf(*P, LV, L);
    if (const auto *ME = dyn_cast<MemberExpr>(LV->IgnoreParens())) {
      (void)ME;
      return opaque("a member '" + text(LV) + "'", LV, L);
    }
    return opaque("a value loaded from '" + text(LV) + "'", LV, L);
  }

  IndexExpr variable(const DeclRefExpr *DRE, unsigned L) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return IndexExpr::opaque("'" + text(DRE) + "' not followed");
    std::string Name = V->getNameAsString();
    if (!V->getType()->isIntegralOrEnumerationType())
      return IndexExpr::opaque("'" + Name + "' is not an integer");
    const FunctionDecl *F = functionAt(L);
    if (!F)
      return IndexExpr::opaque("'" + Name + "' not followed");
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      const FunctionMods &M = modsOf(F);
      if (P->getDeclContext() != F)
        return IndexExpr::opaque("'" + Name + "' not followed");
      if (M.Mods.count(P) || M.Escapes.count(P) ||
          P->getType()->isReferenceType())
        return IndexExpr::opaque("the parameter '" + Name +
                                 "' is assigned in the function");
      if (L == 0) {
        IndexExpr X;
        X.Kind = IndexExpr::Param;
        X.Name = Name;
        return X;
      }
      unsigned I = P->getFunctionScopeIndex();
      if (I >= Chain[L - 1]->getNumArgs())
        return IndexExpr::opaque("'" + Name + "' has no argument");
      return value(Chain[L - 1]->getArg(I), L - 1);
    }
    if (!V->hasLocalStorage() || V->getType()->isReferenceType())
      return IndexExpr::opaque("the variable '" + Name + "' (not local)");
    const FunctionMods &M = modsOf(F);
    if (M.Escapes.count(V))
      return IndexExpr::opaque("the address of '" + Name + "' is taken");
    auto It = M.Mods.find(V);
    if (It == M.Mods.end()) {
      if (V->getInit())
        return value(V->getInit(), L);
      return IndexExpr::opaque("'" + Name + "' is never assigned");
    }
    IndexExpr R;
    auto LI = M.LoopOf.find(V);
    if (LI != M.LoopOf.end()) {
      R = loopRange(V, LI->second, It->second, L);
      if (R.Kind != IndexExpr::Opaque)
        return R;
    } else if (It->second.size() == 1 && !V->getInit()) {
      if (const auto *BO = dyn_cast<BinaryOperator>(It->second.front()))
        if (BO->getOpcode() == BO_Assign)
          return value(BO->getRHS(), L);
      R = IndexExpr::opaque("'" + Name + "' is changed by '" +
                            text(cast<Expr>(It->second.front())) + "'");
    } else {
      R = IndexExpr::opaque("'" + Name + "' is assigned more than once");
    }
    // The loads its definitions read, so the harness can say whose values
    // it could not follow.
    std::set<unsigned> Seen;
    addLoads(V->getInit(), L, R, Seen, 0);
    for (const Stmt *S : It->second)
      if (const auto *BO = dyn_cast<BinaryOperator>(S))
        addLoads(BO->getRHS(), L, R, Seen, 0);
    return R;
  }

  /// The values the variable \p V of the loop \p FS takes.
  IndexExpr loopRange(const VarDecl *V, const ForStmt *FS,
                      const std::vector<const Stmt *> &Mods, unsigned L) {
    std::string Name = V->getNameAsString();
    auto Fail = [&](const std::string &Why) {
      return IndexExpr::opaque("the loop variable '" + Name + "': " + Why);
    };
    const Expr *Inc = FS->getInc();
    if (!Inc || Mods.size() != 1 || Mods.front() != Inc->IgnoreParens())
      return Fail("changed outside its increment");
    if (!V->getInit())
      return Fail("no initial value");
    // Direction and unit step.
    int Dir = 0;
    bool Unit = false;
    const Expr *I = Inc->IgnoreParens();
    if (const auto *UO = dyn_cast<UnaryOperator>(I)) {
      Dir = UO->isIncrementOp() ? 1 : -1;
      Unit = true;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(I)) {
      switch (BO->getOpcode()) {
      case BO_AddAssign:
      case BO_MulAssign:
      case BO_ShlAssign:
        Dir = 1;
        break;
      case BO_SubAssign:
      case BO_DivAssign:
      case BO_ShrAssign:
        Dir = -1;
        break;
      default:
        break;
      }
      if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) {
        IndexExpr Step = value(BO->getRHS(), L);
        if (Step.Kind == IndexExpr::Const) {
          if (Step.Value <= 0)
            return Fail("a step that is not positive");
          Unit = Step.Value == 1;
        } else {
          std::set<unsigned> Ld;
          Step.loadedParams(Ld);
          if (Step.Kind == IndexExpr::Opaque || !Ld.empty())
            return Fail("a step not followed");
        }
      }
    }
    if (!Dir)
      return Fail("an increment not followed");
    // The condition: V op E, or a conjunct of it.
    const Expr *Cond = FS->getCond();
    const BinaryOperator *Cmp = nullptr;
    bool VarLeft = true;
    std::vector<const Expr *> Work;
    if (Cond)
      Work.push_back(Cond);
    while (!Work.empty() && !Cmp) {
      const Expr *C = Work.back()->IgnoreParenImpCasts();
      Work.pop_back();
      const auto *BO = dyn_cast<BinaryOperator>(C);
      if (!BO)
        continue;
      if (BO->getOpcode() == BO_LAnd) {
        Work.push_back(BO->getRHS());
        Work.push_back(BO->getLHS());
        continue;
      }
      if (!BO->isComparisonOp())
        continue;
      if (assignedVar(BO->getLHS()) == V) {
        Cmp = BO;
        VarLeft = true;
      } else if (assignedVar(BO->getRHS()) == V) {
        Cmp = BO;
        VarLeft = false;
      }
    }
    if (!Cmp)
      return Fail("no bound in its condition");
    BinaryOperatorKind Op = Cmp->getOpcode();
    if (!VarLeft)
      Op = BinaryOperator::reverseComparisonOp(Op);
    IndexExpr Bound = value(VarLeft ? Cmp->getRHS() : Cmp->getLHS(), L);
    IndexExpr Init = value(V->getInit(), L);
    auto Plus = [](IndexExpr E, int64_t C) {
      return IndexExpr::op(IndexExpr::Add, std::move(E), IndexExpr::constant(C));
    };
    IndexExpr R;
    R.Kind = IndexExpr::Range;
    if (Dir > 0) {
      if (Op == BO_LT || (Op == BO_NE && Unit))
        R.Ops = {Init, Plus(Bound, -1)};
      else if (Op == BO_LE)
        R.Ops = {Init, Bound};
      else
        return Fail("its condition does not bound it from above");
    } else {
      if (Op == BO_GT || (Op == BO_NE && Unit))
        R.Ops = {Plus(Bound, 1), Init};
      else if (Op == BO_GE)
        R.Ops = {Bound, Init};
      else
        return Fail("its condition does not bound it from below");
    }
    return R;
  }
};

} // namespace

void addIndexUses(ASTContext &Ctx, const KernelAnalysis &KA, KernelInfo &K) {
  IndexFlowBuilder(Ctx, KA).run(K);
}

} // namespace cudal1
