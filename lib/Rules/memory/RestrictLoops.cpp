//===- RestrictLoops.cpp - loops that store and load through two pointers -===//
#include "RestrictLoops.h"
#include "../LaunchConstants.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <vector>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// What a pointer parameter of a called function points into, from its
/// call's argument: a kernel parameter (P), the thread's or the block's own
/// memory (Local), or memory the analysis cannot name (neither).
struct Target {
  const ParmVarDecl *P = nullptr;
  bool Local = false;
};
/// The targets of a called function's pointer and reference parameters;
/// the null key holds `this`'s of a member function.
using Bindings = llvm::DenseMap<const ParmVarDecl *, Target>;

Target lvalueTarget(const Expr *E, const Bindings &B, unsigned Depth = 0);
Target localPointerTarget(const VarDecl *V, const Bindings &B, unsigned Depth);

/// What an address points into: `p`, `p + k`, `&p[k]`, a local pointer
/// initialised from one (`const float *row = A + i * n;`), a parameter of a
/// called function through \p B.
Target addressTarget(const Expr *E, const Bindings &B, unsigned Depth = 0) {
  E = E->IgnoreParenCasts();
  if (Depth > 6)
    return {};
  // A null pointer (`f(&x, 0)`, `T *out = nullptr;`): nothing the kernel
  // shares is stored or loaded through it (secp256k1's `rzr`, ans's
  // `out_ptr`, handed to a decoder told not to write).
  if (const auto *Lit = dyn_cast<IntegerLiteral>(E); Lit && Lit->getValue() == 0)
    return {nullptr, true};
  if (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E))
    return {nullptr, true};
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
    return lvalueTarget(U->getSubExpr(), B, Depth + 1);
  // `*dst++ = c`, `*(p += k)`: the pointer stepped through its array.
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->isIncrementDecrementOp())
    return addressTarget(U->getSubExpr(), B, Depth + 1);
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(E);
      CA && CA->getLHS()->getType()->isPointerType())
    return addressTarget(CA->getLHS(), B, Depth + 1);
  // `p + k`, `k + p`; in a template, on a pointer of a dependent type, also
  // as an operator call the instantiation resolves (`src + k` with `const
  // T *src`, `dst + i * n + k`): the operand that is a pointer, else the one
  // of a dependent type.
  auto Pointer = [](const Expr *L, const Expr *R) -> const Expr * {
    for (const Expr *X : {L, R})
      if (X->IgnoreParenImpCasts()->getType()->isPointerType())
        return X;
    for (const Expr *X : {L, R})
      if (X->isTypeDependent())
        return X;
    return nullptr;
  };
  if (const auto *Bin = dyn_cast<BinaryOperator>(E);
      Bin && (Bin->getOpcode() == BO_Add || Bin->getOpcode() == BO_Sub)) {
    const Expr *X = Pointer(Bin->getLHS(), Bin->getRHS());
    return X ? addressTarget(X, B, Depth + 1) : Target{};
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && !OC->getDirectCallee() && OC->getNumArgs() == 2 &&
      (OC->getOperator() == OO_Plus || OC->getOperator() == OO_Minus)) {
    const Expr *X = Pointer(OC->getArg(0), OC->getArg(1));
    return X ? addressTarget(X, B, Depth + 1) : Target{};
  }
  // An array member or row, decayed to a pointer (`a->n` of `uint32_t
  // n[10]`, `A[i]` of a 2-D array): where the object holding it is.
  if ((isa<MemberExpr>(E) || isa<ArraySubscriptExpr>(E)) &&
      E->getType()->isArrayType())
    return lvalueTarget(E, B, Depth + 1);
  if (isa<CXXThisExpr>(E)) {
    if (auto It = B.find(nullptr); It != B.end())
      return It->second;
    return {};
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
      if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
        if (!P->getType()->isPointerType() && !P->getType()->isReferenceType())
          return {nullptr, true}; // passed by value: the thread's own copy
        if (auto It = B.find(P); It != B.end())
          return It->second;
        // A parameter of a function the walk entered without binding it.
        return isa<FunctionDecl>(P->getDeclContext()) &&
                       cast<FunctionDecl>(P->getDeclContext())->hasAttr<CUDAGlobalAttr>()
                   ? Target{P, false}
                   : Target{};
      }
      if (V->hasLocalStorage() && !V->getType()->isPointerType() &&
          !V->getType()->isReferenceType())
        return {nullptr, true}; // a local variable or array
      // __shared__ memory is the block's; __constant__ memory and const
      // globals are never stored to.
      if (V->hasAttr<CUDASharedAttr>() || V->hasAttr<CUDAConstantAttr>() ||
          (V->hasGlobalStorage() && V->getType().isConstQualified()))
        return {nullptr, true};
      if (V->hasLocalStorage() && V->getType()->isPointerType())
        return localPointerTarget(V, B, Depth);
      if (V->hasLocalStorage() && V->getInit())
        return addressTarget(V->getInit(), B, Depth + 1);
    }
  return {};
}

/// The values the local \p V is given in its function: its initialiser
/// and the right side of every `V = e`. \p Steps is set for any other
/// change (`V += k`, `++V`), \p AddressTaken for `&V`.
struct LocalValues {
  std::vector<const Expr *> Values;
  bool Steps = false, AddressTaken = false;
};
LocalValues localValues(const VarDecl *V) {
  LocalValues R;
  if (V->getInit())
    R.Values.push_back(V->getInit());
  if (const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
      FD && FD->getBody())
    forEachStmt(FD->getBody(), [&](const Stmt *X) {
      if (const auto *B = dyn_cast<BinaryOperator>(X);
          B && B->isAssignmentOp() && varOf(B->getLHS()) == V) {
        if (B->getOpcode() == BO_Assign)
          R.Values.push_back(B->getRHS());
        else
          R.Steps = true;
      } else if (const auto *U = dyn_cast<UnaryOperator>(X);
                 U && varOf(U->getSubExpr()) == V) {
        R.Steps = R.Steps || U->isIncrementDecrementOp();
        R.AddressTaken = R.AddressTaken || U->getOpcode() == UO_AddrOf;
      }
    });
  return R;
}

/// What the local pointer \p V points into: the target its initialiser and
/// every value assigned to it share (`key = (Key *)&keyInts[k];` after a
/// bare declaration); stepping it (`p += k`, `p++`, `p = p + k`) keeps it.
/// Nothing when two values differ, or when its address is taken.
Target localPointerTarget(const VarDecl *V, const Bindings &B, unsigned Depth) {
  LocalValues LV = localValues(V);
  if (LV.AddressTaken || LV.Values.empty())
    return {};
  std::optional<Target> Common;
  for (const Expr *E : LV.Values) {
    // `p = p + k`: a step through the pointer's own array.
    const Expr *X = E->IgnoreParenCasts();
    while (const auto *Bin = dyn_cast<BinaryOperator>(X)) {
      if (Bin->getOpcode() != BO_Add && Bin->getOpcode() != BO_Sub)
        break;
      X = (Bin->getLHS()->getType()->isPointerType() ? Bin->getLHS()
                                                     : Bin->getRHS())
              ->IgnoreParenCasts();
    }
    if (varOf(X) == V)
      continue;
    Target T = addressTarget(E, B, Depth + 1);
    if (!T.P && !T.Local)
      return {};
    if (Common && (Common->P != T.P || Common->Local != T.Local))
      return {};
    Common = T;
  }
  return Common ? *Common : Target{};
}

/// One access to memory outside the thread and the block, in a loop.
/// Pinned: a load no qualifier can move or keep in a register (a volatile
/// one, the read of an atomic): it stays where it is with __restrict__ too.
struct LoopAccess {
  Target T;
  bool Write = false;
  bool Pinned = false;
};

/// The array or pointer \p AS indexes. getBase() takes the side whose
/// partner is an integer, which in a template may be of a dependent type:
/// the side that is a pointer or an array is taken first.
const Expr *subscriptBase(const ArraySubscriptExpr *AS) {
  QualType L = AS->getLHS()->getType();
  return L->isPointerType() || L->isArrayType() ? AS->getLHS() : AS->getBase();
}

/// The base of an element access (`p[i]`, `*p`, `p->f`, `A[i][j]` on a
/// pointer to arrays), or null when \p E is none.
const Expr *accessBase(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *M = dyn_cast<MemberExpr>(E)) {
    if (M->isArrow())
      return M->getBase();
    E = M->getBase()->IgnoreParenImpCasts();
  }
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    const Expr *Base = subscriptBase(AS)->IgnoreParenImpCasts();
    if (Base->getType()->isArrayType()) {
      // `A[i][j]`: the access is through what the row `A[i]` is in.
      if (const Expr *Inner = accessBase(Base))
        return Inner;
      return Base;
    }
    return subscriptBase(AS);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Deref)
    return U->getSubExpr();
  if (const auto *D = dyn_cast<DeclRefExpr>(E);
      D && isa<ParmVarDecl>(D->getDecl()) &&
      cast<ParmVarDecl>(D->getDecl())->getType()->isReferenceType())
    return D; // a reference parameter: what it refers to
  return nullptr;
}

/// What the object \p E names is in: `s.f`, `a[i]` of a local array and
/// `x` itself are the thread's, `p[i].f` and `p->f` are where p points.
Target lvalueTarget(const Expr *E, const Bindings &B, unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  while (true) {
    if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow()) {
      E = M->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E);
        AS && subscriptBase(AS)->IgnoreParenImpCasts()->getType()->isArrayType()) {
      E = subscriptBase(AS)->IgnoreParenImpCasts();
      continue;
    }
    break;
  }
  if (const Expr *Base = accessBase(E))
    return addressTarget(Base, B, Depth + 1);
  return addressTarget(E, B, Depth + 1);
}

void noteAccess(const Expr *Base, bool Write, const Bindings &B,
                std::vector<LoopAccess> &Out, bool Pinned = false) {
  Target T = addressTarget(Base, B);
  if (!T.Local)
    Out.push_back({T, Write, Pinned && !Write});
}

/// \p E (an lvalue that is read) is volatile: the compiler loads it where
/// it is written, whatever it knows about aliasing.
bool volatileRead(const Expr *E) {
  return E->getType().isVolatileQualified();
}

/// `key->hash(t)` in a template, on an object of a dependent type: the
/// member access the call names (null for other calls, and for members of
/// the enclosing class named without an object).
const CXXDependentScopeMemberExpr *dependentMemberCall(const CallExpr *CE) {
  const auto *ME = dyn_cast<CXXDependentScopeMemberExpr>(
      CE->getCallee()->IgnoreParenImpCasts());
  return ME && !ME->isImplicitAccess() ? ME : nullptr;
}

/// \p Def's parameters bound to \p CE's arguments (evaluated through \p B).
Bindings bindCall(const CallExpr *CE, const FunctionDecl *Def,
                  const Bindings &B) {
  // A lambda's body names the enclosing function's variables it captures:
  // they keep the caller's bindings.
  Bindings Inner;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def); MD && MD->getParent()->isLambda())
    Inner = B;
  unsigned Shift = 0;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
      OC && isa<CXXMethodDecl>(Def) && CE->getNumArgs() == Def->getNumParams() + 1)
    Shift = 1; // `rng()`: the object is the first argument
  auto Object = [&](const Expr *Obj) {
    Obj = Obj->IgnoreParenImpCasts();
    return Obj->getType()->isPointerType() ? addressTarget(Obj, B)
                                           : lvalueTarget(Obj, B);
  };
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
    Inner[nullptr] = Object(MC->getImplicitObjectArgument());
  else if (const CXXDependentScopeMemberExpr *ME = dependentMemberCall(CE))
    Inner[nullptr] = Object(ME->getBase());
  else if (Shift)
    Inner[nullptr] = Object(CE->getArg(0));
  for (unsigned I = 0; I < Def->getNumParams() && I + Shift < CE->getNumArgs(); ++I) {
    const ParmVarDecl *Q = Def->getParamDecl(I);
    const Expr *Arg = CE->getArg(I + Shift)->IgnoreParenImpCasts();
    if (Q->getType()->isPointerType())
      Inner[Q] = addressTarget(Arg, B);
    else if (Q->getType()->isReferenceType())
      Inner[Q] = Object(Arg);
  }
  return Inner;
}

/// The loads and stores of \p S (a loop) through memory the kernel shares
/// with other threads, following calls to the user's functions (3 deep)
/// with their pointer parameters bound to the arguments; a call the tool
/// cannot follow that is passed a pointer counts as a store and a load of
/// memory it cannot name.
void loopAccesses(const Stmt *S, const SourceManager &SM, unsigned Depth,
                  const Bindings &B, std::vector<LoopAccess> &Out);

/// The function \p CE calls: its direct callee, or in a template the
/// function (template) its unresolved name finds that takes as many
/// arguments as the call passes.
const FunctionDecl *calleeOf(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    return FD;
  if (const auto *U = dyn_cast<UnresolvedLookupExpr>(
          CE->getCallee()->IgnoreParenImpCasts()))
    for (const NamedDecl *D : U->decls()) {
      const NamedDecl *N = D->getUnderlyingDecl();
      const FunctionDecl *F = nullptr;
      if (const auto *T = dyn_cast<FunctionTemplateDecl>(N))
        F = T->getTemplatedDecl();
      else
        F = dyn_cast<FunctionDecl>(N);
      if (F && F->getMinRequiredArguments() <= CE->getNumArgs() &&
          CE->getNumArgs() <= F->getNumParams())
        return F; // defaulted parameters too
    }
  // `key->hash(t)` in a template, on an object of a class template's
  // dependent specialization (`Key<N> *key`): the member of the class
  // template's pattern of that name that takes as many arguments.
  if (const CXXDependentScopeMemberExpr *ME = dependentMemberCall(CE)) {
    QualType T = ME->getBaseType();
    if (ME->isArrow() && !T->getPointeeType().isNull())
      T = T->getPointeeType();
    const CXXRecordDecl *RD = nullptr;
    if (const auto *TS = T->getAs<TemplateSpecializationType>()) {
      if (const auto *CT = dyn_cast_or_null<ClassTemplateDecl>(
              TS->getTemplateName().getAsTemplateDecl()))
        RD = CT->getTemplatedDecl();
    } else {
      RD = T->getAsCXXRecordDecl();
    }
    if (RD && RD->hasDefinition() && ME->getMember().isIdentifier()) {
      const FunctionDecl *Found = nullptr;
      for (const NamedDecl *D : RD->getDefinition()->lookup(ME->getMember())) {
        const auto *F = dyn_cast<CXXMethodDecl>(D->getUnderlyingDecl());
        if (F && !F->isStatic() && F->getMinRequiredArguments() <= CE->getNumArgs() &&
            CE->getNumArgs() <= F->getNumParams()) {
          if (Found)
            return nullptr; // overloads: which one is not known here
          Found = F;
        }
      }
      return Found;
    }
  }
  return nullptr;
}

/// A store to the element \p L (and a load of it with \p Reads: `+=`,
/// `++`), and the loads of its index and base (the element itself is not
/// read by a plain store). False when \p L is no element access.
bool storeTo(const Expr *L, bool Reads, const SourceManager &SM,
             unsigned Depth, const Bindings &B, std::vector<LoopAccess> &Out) {
  L = L->IgnoreParenImpCasts();
  const Expr *Base = accessBase(L);
  if (!Base)
    return false;
  noteAccess(Base, true, B, Out);
  if (Reads)
    noteAccess(Base, false, B, Out, volatileRead(L));
  for (const Stmt *C : L->children())
    loopAccesses(C, SM, Depth, B, Out);
  return true;
}

/// A call in a template to a static member of a library class template
/// instantiated with the template's types (`std::numeric_limits<T>::
/// infinity()`): the library's, like a direct call to it.
bool dependentLibraryCall(const CallExpr *CE, const SourceManager &SM) {
  const auto *DS = dyn_cast<DependentScopeDeclRefExpr>(
      CE->getCallee()->IgnoreParenImpCasts());
  if (!DS)
    return false;
  NestedNameSpecifier Q = DS->getQualifier();
  if (Q.getKind() != NestedNameSpecifier::Kind::Type)
    return false;
  const Type *T = Q.getAsType();
  const Decl *D = nullptr;
  if (const auto *TS = T->getAs<TemplateSpecializationType>())
    D = TS->getTemplateName().getAsTemplateDecl();
  else
    D = T->getAsCXXRecordDecl();
  return D && SM.isInSystemHeader(D->getLocation());
}

void callAccesses(const CallExpr *CE, const SourceManager &SM, unsigned Depth,
                  const Bindings &B, std::vector<LoopAccess> &Out) {
  const FunctionDecl *FD = calleeOf(CE);
  // An operator on operands of a template's dependent types: the built-in
  // one as a rule (a user's operator on a class is a direct callee).
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE); OC && !FD) {
    OverloadedOperatorKind K = OC->getOperator();
    if ((OC->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus) &&
        OC->getNumArgs() > 0) {
      storeTo(OC->getArg(0), K != OO_Equal, SM, Depth, B, Out);
      for (unsigned I = 1; I < OC->getNumArgs(); ++I)
        loopAccesses(OC->getArg(I), SM, Depth, B, Out);
      return;
    }
    for (const Expr *A : OC->arguments())
      loopAccesses(A, SM, Depth, B, Out);
    return;
  }
  // A record assigned by its implicit or defaulted operator (`*out = t;`,
  // `dst[i] = src[i]` of float4s or of the user's structs): a store to the
  // left side and a load of the right, like the built-in assignment.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
      OC && FD && OC->getNumArgs() == 2 && OC->getOperator() == OO_Equal)
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator()) &&
        (MD->isImplicit() || MD->isDefaulted())) {
      storeTo(OC->getArg(0), false, SM, Depth, B, Out);
      if (const Expr *Base = accessBase(OC->getArg(1)))
        noteAccess(Base, false, B, Out);
      loopAccesses(OC->getArg(1), SM, Depth, B, Out);
      return;
    }
  std::string N = FD && FD->getIdentifier() ? FD->getName().lower() : "";
  if (FD && N.find("atomic") != std::string::npos && CE->getNumArgs() > 0) {
    noteAccess(CE->getArg(0), true, B, Out);
    noteAccess(CE->getArg(0), false, B, Out, /*Pinned=*/true);
    // The address's index may load (`&hist[in[i] % bins]`).
    for (const Stmt *C : CE->getArg(0)->IgnoreParenImpCasts()->children())
      loopAccesses(C, SM, Depth, B, Out);
    for (unsigned I = 1; I < CE->getNumArgs(); ++I)
      loopAccesses(CE->getArg(I), SM, Depth, B, Out);
    return;
  }
  for (const Expr *A : CE->arguments())
    loopAccesses(A, SM, Depth, B, Out);
  if ((FD && SM.isInSystemHeader(FD->getLocation())) ||
      (!FD && dependentLibraryCall(CE, SM)))
    return; // a library function (math; sincosf's outputs are locals)
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  if (Def && Def->hasBody() && Depth < 3) {
    loopAccesses(Def->getBody(), SM, Depth + 1, bindCall(CE, Def, B), Out);
    return;
  }
  // A function template declared without a body, defined only by its
  // explicit specializations, called in a template with dependent
  // arguments (`copy_vector<T, N>(tmp, src + k)`): what any of them does.
  if (const FunctionTemplateDecl *FT =
          FD && !Def ? FD->getDescribedFunctionTemplate() : nullptr;
      FT && Depth < 3) {
    bool Any = false, All = true;
    for (const FunctionDecl *Spec : FT->specializations()) {
      const FunctionDecl *SD = Spec->getDefinition();
      if (!SD || !SD->hasBody() ||
          SD->getNumParams() != CE->getNumArgs()) {
        All = false;
        continue;
      }
      Any = true;
      loopAccesses(SD->getBody(), SM, Depth + 1, bindCall(CE, SD, B), Out);
    }
    if (Any && All)
      return;
  }
  // A call of the thread's own function object of a template's type
  // (`ReduceOp<T> r; ... r(sum[i], b)`) on the thread's own values: it can
  // reach no other memory through them.
  if (!FD)
    if (const VarDecl *Obj = varOf(CE->getCallee()->IgnoreParenImpCasts());
        Obj && Obj->hasLocalStorage() && !isa<ParmVarDecl>(Obj) &&
        !Obj->getType()->isPointerType() && !Obj->getType()->isReferenceType() &&
        llvm::all_of(CE->arguments(), [&](const Expr *A) {
          A = A->IgnoreParenImpCasts();
          if (A->getType()->isPointerType())
            return addressTarget(A, B).Local;
          return !A->isGLValue() || lvalueTarget(A, B).Local;
        }))
      return;
  if (!FD || FD->getBuiltinID() == 0)
    if (!FD || llvm::any_of(CE->arguments(), [](const Expr *A) {
          return A->getType()->isPointerType() || A->isGLValue();
        })) {
      Out.push_back({Target{}, true});
      Out.push_back({Target{}, false});
    }
}

void loopAccesses(const Stmt *S, const SourceManager &SM, unsigned Depth,
                  const Bindings &B, std::vector<LoopAccess> &Out) {
  if (!S)
    return;
  if (isa<PseudoObjectExpr>(S))
    return; // threadIdx.x and the like
  if (const auto *Bin = dyn_cast<BinaryOperator>(S); Bin && Bin->isAssignmentOp()) {
    storeTo(Bin->getLHS(), Bin->isCompoundAssignmentOp(), SM, Depth, B, Out);
    loopAccesses(Bin->getRHS(), SM, Depth, B, Out);
    return;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(S);
      U && U->isIncrementDecrementOp() &&
      storeTo(U->getSubExpr(), true, SM, Depth, B, Out))
    return;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    callAccesses(CE, SM, Depth, B, Out);
    return;
  }
  // A load: the value of an element access, or a record copied from one;
  // in a template, an element access of a dependent type (no conversion is
  // written there; stores were taken above).
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(S);
      IC && IC->getCastKind() == CK_LValueToRValue)
    if (const Expr *Base = accessBase(IC->getSubExpr()))
      noteAccess(Base, false, B, Out, volatileRead(IC->getSubExpr()));
  if (const auto *E = dyn_cast<Expr>(S);
      E && E->isTypeDependent() && !isa<MemberExpr>(E))
    if (const Expr *Base = accessBase(E))
      noteAccess(Base, false, B, Out, volatileRead(E));
  if (const auto *CC = dyn_cast<CXXConstructExpr>(S))
    for (const Expr *A : CC->arguments())
      if (A->isGLValue())
        if (const Expr *Base = accessBase(A))
          noteAccess(Base, false, B, Out, volatileRead(A));
  for (const Stmt *C : S->children())
    loopAccesses(C, SM, Depth, B, Out);
}

/// \p E is the block's or the grid's size, or a multiple of it: a product of
/// blockDim.*, gridDim.* and integer constants (`blockDim.x * gridDim.x`,
/// `4 * blockDim.x`), also through locals all of whose values are
/// (`int stride = blockDim.x * gridDim.x;`, `count = blockDim.x;` after the
/// declaration). \p Size is set when a blockDim or gridDim is read.
bool launchSizeMultiple(const Expr *E, bool &Size, unsigned Depth = 0);

bool localLaunchSizeMultiple(const VarDecl *V, bool &Size, unsigned Depth) {
  if (Depth > 3 || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      !V->getType()->isIntegerType())
    return false;
  LocalValues LV = localValues(V);
  return !LV.Steps && !LV.AddressTaken && !LV.Values.empty() &&
         llvm::all_of(LV.Values, [&](const Expr *E) {
           return launchSizeMultiple(E, Size, Depth + 1);
         });
}

bool launchSizeMultiple(const Expr *E, bool &Size, unsigned Depth) {
  E = E->IgnoreParenCasts();
  std::string N = builtinName(E);
  if (StringRef(N).starts_with("blockDim") || StringRef(N).starts_with("gridDim"))
    return Size = true;
  if (isa<IntegerLiteral>(E))
    return true;
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    // A named constant: a template parameter, an enumerator, a const or
    // constexpr variable with a constant value (`kThreadsPerBlock`).
    const ValueDecl *VD = D->getDecl();
    if (isa<NonTypeTemplateParmDecl>(VD) || isa<EnumConstantDecl>(VD))
      return true;
    if (!E->isValueDependent() &&
        E->isIntegerConstantExpr(VD->getASTContext()))
      return true;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Mul)
    return launchSizeMultiple(B->getLHS(), Size, Depth) &&
           launchSizeMultiple(B->getRHS(), Size, Depth);
  // The block's or the grid's warps (`blockDim.x / 32`, `>> 5`, `/
  // warpSize`): iterations dealt out to warps, measured like those dealt
  // out to threads (utils/experiments/restrict-stride.cu, warp-rows).
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && (B->getOpcode() == BO_Div || B->getOpcode() == BO_Shr)) {
    const Expr *R = B->getRHS()->IgnoreParenImpCasts();
    const auto *Lit = dyn_cast<IntegerLiteral>(R);
    bool Warp = Lit ? Lit->getValue() == (B->getOpcode() == BO_Div ? 32 : 5)
                    : B->getOpcode() == BO_Div && isa<DeclRefExpr>(R) &&
                          cast<DeclRefExpr>(R)->getDecl()->getNameAsString() == "warpSize";
    bool Inner = false;
    return Warp && launchSizeMultiple(B->getLHS(), Inner, Depth) && Inner &&
           (Size = true);
  }
  if (const VarDecl *V = varOf(E))
    return localLaunchSizeMultiple(V, Size, Depth);
  return false;
}

/// A loop that deals its iterations out to the block's or the grid's
/// threads: its variable steps by the block's or the grid's size (`for (i =
/// tid; i < n; i += blockDim.x * gridDim.x)`, also as the last statement of
/// a while loop's body). Its iterations are other threads' work, not one
/// thread's sequence: the threads of the block and the grid overlap their
/// loads and stores already: on an H100 the qualifier changed no time in
/// such loops (utils/experiments/restrict-stride.cu; HeCBench's mask, silu,
/// qrg, bincount, histogram; docs/PERFORMANCE.md section 4).
bool stridesOverThreads(const Stmt *S) {
  auto StepOf = [](const Expr *Inc, const Expr *Cond) -> const Expr * {
    const auto *B = Inc ? dyn_cast<BinaryOperator>(Inc->IgnoreParenImpCasts())
                        : nullptr;
    const VarDecl *IV = B ? varOf(B->getLHS()) : nullptr;
    if (!IV)
      return nullptr;
    if (Cond) { // the variable must be the one the condition tests
      bool Tested = false;
      forEachStmt(Cond, [&](const Stmt *X) {
        if (const auto *E = dyn_cast<DeclRefExpr>(X))
          Tested = Tested || E->getDecl() == IV;
      });
      if (!Tested)
        return nullptr;
    }
    if (B->getOpcode() == BO_AddAssign)
      return B->getRHS();
    if (B->getOpcode() == BO_Assign)
      if (const auto *Add = dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParenImpCasts());
          Add && Add->getOpcode() == BO_Add) {
        if (varOf(Add->getLHS()) == IV)
          return Add->getRHS();
        if (varOf(Add->getRHS()) == IV)
          return Add->getLHS();
      }
    return nullptr;
  };
  auto Strides = [](const Expr *Step) {
    bool Size = false;
    return Step && launchSizeMultiple(Step, Size) && Size;
  };
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (Strides(StepOf(F->getInc(), F->getCond())))
      return true;
    // A count of the block's rounds: `for (r = k; r * blockDim.x + tid < n;
    // r++)` (qtclustering): the index moves by the block's size.
    const auto *U = F->getInc() ? dyn_cast<UnaryOperator>(F->getInc()->IgnoreParenImpCasts())
                                : nullptr;
    const VarDecl *IV = U && U->isIncrementOp() ? varOf(U->getSubExpr()) : nullptr;
    bool Rounds = false;
    if (IV && F->getCond())
      forEachStmt(F->getCond(), [&](const Stmt *X) {
        const auto *M = dyn_cast<BinaryOperator>(X);
        if (!M || M->getOpcode() != BO_Mul)
          return;
        const Expr *Other = varOf(M->getLHS()) == IV   ? M->getRHS()
                            : varOf(M->getRHS()) == IV ? M->getLHS()
                                                       : nullptr;
        Rounds = Rounds || Strides(Other);
      });
    return Rounds;
  }
  // A while loop: the steps that end its body (`window += range; i +=
  // range;`), one of them of the variable its condition tests.
  if (const auto *W = dyn_cast<WhileStmt>(S))
    if (const auto *Body = dyn_cast_or_null<CompoundStmt>(W->getBody()))
      for (auto It = Body->body_rbegin(); It != Body->body_rend(); ++It) {
        const auto *E = dyn_cast<Expr>(*It);
        const auto *B = E ? dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts())
                          : nullptr;
        if (!B || !B->isAssignmentOp())
          break;
        if (Strides(StepOf(E, W->getCond())))
          return true;
      }
  return false;
}

/// A barrier of the block (or the grid) that every iteration of the loop
/// \p S runs: `__syncthreads()` and its _count/_and/_or forms, a
/// cooperative group's `sync()`, as a statement of the loop's body or of a
/// function the body calls as a statement (3 calls deep). No load of a
/// later iteration can move above it, whatever the pointers: the qualifier
/// could only reorder within one iteration's stretch between barriers, as
/// in code outside loops (HeCBench's qtclustering and ans: 1.00x).
bool barrierEveryIteration(const Stmt *Body, const SourceManager &SM,
                           unsigned Depth = 0) {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS || Depth > 3)
    return false;
  for (const Stmt *X : CS->body()) {
    const auto *E = dyn_cast<Expr>(X);
    const auto *CE = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
    if (!CE)
      continue;
    const FunctionDecl *FD = calleeOf(CE);
    if (!FD || !FD->getIdentifier())
      continue;
    StringRef N = FD->getName();
    if (N == "__syncthreads" || N == "__syncthreads_count" ||
        N == "__syncthreads_and" || N == "__syncthreads_or")
      return true;
    if (N == "sync" && isa<CXXMemberCallExpr>(CE)) {
      const CXXRecordDecl *RD =
          cast<CXXMemberCallExpr>(CE)->getRecordDecl();
      if (RD && RD->getIdentifier() &&
          (RD->getName() == "thread_block" || RD->getName() == "grid_group" ||
           RD->getName() == "cluster_group"))
        return true;
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (Def && Def->hasBody() && !SM.isInSystemHeader(Def->getLocation()) &&
        barrierEveryIteration(Def->getBody(), SM, Depth + 1))
      return true;
  }
  return false;
}

/// loopStoresAndLoads below \p S, with \p B binding the parameters of
/// the function \p S is in (depth \p Depth); \p KernelLoc is the
/// kernel's, for naming the loop's file when it is another.
bool findLoop(const Stmt *S, const SourceManager &SM, unsigned Depth,
              const Bindings &B, const ParmVarDecl *LoadsThrough,
              SourceLocation KernelLoc, std::string &Why) {
  if (!S)
    return false;
  // `do { ... } while (0)`, a macro's statement wrapper, runs once.
  bool Once = false;
  if (const auto *D = dyn_cast<DoStmt>(S))
    if (const auto *L = dyn_cast<IntegerLiteral>(D->getCond()->IgnoreParenImpCasts()))
      Once = L->getValue() == 0;
  if (isLoop(S) && !Once && !stridesOverThreads(S) &&
      !barrierEveryIteration(loopBody(S), SM)) {
    std::vector<LoopAccess> A;
    loopAccesses(S, SM, Depth, B, A);
    auto Separated = [](const Target &T) {
      return T.P && T.P->getType().isRestrictQualified();
    };
    auto Name = [](const Target &T) {
      return T.P ? "'" + T.P->getName().str() + "'"
                 : std::string("memory it cannot name");
    };
    for (const LoopAccess &W : A) {
      if (!W.Write || Separated(W.T))
        continue;
      for (const LoopAccess &L : A) {
        if (L.Write || L.Pinned || Separated(L.T) || (W.T.P && L.T.P == W.T.P) ||
            (LoadsThrough && L.T.P != LoadsThrough))
          continue;
        // The loop's line; with its file's name when it is in another
        // file than the kernel (a helper in a header).
        PresumedLoc PL = SM.getPresumedLoc(S->getBeginLoc());
        std::string Where = "line " + std::to_string(PL.isValid() ? PL.getLine() : 0);
        if (PL.isValid() && SM.getFileID(SM.getExpansionLoc(S->getBeginLoc())) !=
                                SM.getFileID(SM.getExpansionLoc(KernelLoc)))
          Where = llvm::sys::path::filename(PL.getFilename()).str() + ":" +
                  std::to_string(PL.getLine());
        Why = "the loop at " + Where + " stores through " + Name(W.T) +
              " and loads through " + Name(L.T);
        return true;
      }
    }
    return false;
  }
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *FD = calleeOf(CE);
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    if (Def && Def->hasBody() && Depth < 3 &&
        !SM.isInSystemHeader(Def->getLocation()) &&
        findLoop(Def->getBody(), SM, Depth + 1, bindCall(CE, Def, B),
                 LoadsThrough, KernelLoc, Why))
      return true;
  }
  for (const Stmt *C : S->children())
    if (findLoop(C, SM, Depth, B, LoadsThrough, KernelLoc, Why))
      return true;
  return false;
}
} // namespace

bool loopStoresAndLoads(const FunctionDecl *FD, const SourceManager &SM,
                        std::string &Why, const ParmVarDecl *LoadsThrough) {
  return FD->getBody() &&
         findLoop(FD->getBody(), SM, 0, Bindings(), LoadsThrough,
                  FD->getLocation(), Why);
}

bool sameBufferSomewhere(ASTContext &C, const FunctionDecl *Fn, const Expr *A,
                         const Expr *B, unsigned Depth) {
  if (A && B && sameExpr(C, A->IgnoreParenImpCasts(), B->IgnoreParenImpCasts()))
    return true; // `b[0]` for both, `s.u` for both
  const VarDecl *VA = varOf(A), *VB = varOf(B);
  if (!VA || !VB)
    return false;
  if (VA == VB)
    return true;
  const auto *PA = dyn_cast<ParmVarDecl>(VA), *PB = dyn_cast<ParmVarDecl>(VB);
  if (!PA || !PB || Depth >= 3 || !Fn || PA->getDeclContext() != Fn ||
      PB->getDeclContext() != Fn)
    return false;
  unsigned IA = PA->getFunctionScopeIndex(), IB = PB->getFunctionScopeIndex();
  for (const CallExpr *Call : callsOf(C, Fn)) {
    if (Call->getNumArgs() <= std::max(IA, IB))
      continue;
    const FunctionDecl *G = enclosingFunction(C, DynTypedNode::create(*Call));
    if (sameBufferSomewhere(C, G, Call->getArg(IA), Call->getArg(IB),
                            Depth + 1))
      return true;
  }
  return false;
}

bool sameBufferAtSomeLaunch(ASTContext &C, const CheckContext &CC,
                            const FunctionDecl *K, const ParmVarDecl *P,
                            const ParmVarDecl *Q) {
  unsigned IP = P->getFunctionScopeIndex(), IQ = Q->getFunctionScopeIndex();
  for (const CUDAKernelCallExpr *Site : launchSitesOf(C, CC, K)) {
    const FunctionDecl *Host = enclosingFunction(C, DynTypedNode::create(*Site));
    if (P != Q && Site->getNumArgs() > std::max(IP, IQ) &&
        sameBufferSomewhere(C, Host, Site->getArg(IP), Site->getArg(IQ), 0))
      return true;
  }
  return false;
}

} // namespace cudal1
