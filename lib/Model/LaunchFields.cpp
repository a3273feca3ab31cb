//===- LaunchFields.cpp - members of host structures and array elements ---===//
//
// `cfg.n`, `domain.ny`, `p->len`, `sizes[i]`: a member of a host structure
// is the value of that member at the point it is needed: its last
// assignment on every path before it (`cfg.n = 1024;`, `cfg = make()`), else
// the structure's initial value (aggregate or designated initialiser,
// in-class initialiser, a constructor's member initialiser with the
// constructor's arguments, a function returning a structure, or, for a
// parameter, the member of the caller's argument). Through a pointer (`p->n`)
// the structure is the one whose address the pointer holds (`&cfg`, a
// parameter given `&cfg`) when nothing writes through the pointer before.
// An element of an array (`sizes[i]`) is the initialiser's element at the
// index's value, when nothing modifies the array before. Anything else that
// modifies the structure or array before (a call given its address, a loop)
// leaves the value unknown, with where.
//
//===----------------------------------------------------------------------===//
#include "DeviceProps.h"
#include "LaunchEval.h"
#include "cudal1/Model/RecordMembers.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::Val;

namespace {
const Expr *skipNoOps(const Expr *E) {
  for (;;) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ConstantExpr>(E))
      E = C->getSubExpr();
    else if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *I = dyn_cast<ImplicitCastExpr>(E);
             I && (I->getCastKind() == CK_NoOp ||
                   I->getCastKind() == CK_LValueToRValue ||
                   I->getCastKind() == CK_UncheckedDerivedToBase ||
                   I->getCastKind() == CK_DerivedToBase))
      E = I->getSubExpr();
    else
      return E;
  }
}

void collectReturnStmts(const Stmt *S, std::vector<const ReturnStmt *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    Out.push_back(R);
  for (const Stmt *C : S->children())
    collectReturnStmts(C, Out);
}

/// \p X (an lvalue) is only read by its parent \p V: converted to a value,
/// copied, bound to a const reference or passed by value, or the object of a
/// const member function.
bool onlyRead(const Stmt *V, const Stmt *X) {
  if (!V)
    return false;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(V))
    return IC->getCastKind() == CK_LValueToRValue ||
           (IC->getCastKind() == CK_NoOp &&
            IC->getType().isConstQualified());
  if (const auto *CE = dyn_cast<CXXConstructExpr>(V))
    return CE->getConstructor()->isCopyConstructor() &&
           CE->getNumArgs() >= 1 && CE->getArg(0) == X;
  if (const auto *Mem = dyn_cast<MemberExpr>(V))
    if (const auto *MD = dyn_cast<CXXMethodDecl>(Mem->getMemberDecl()))
      return MD->isConst();
  if (const auto *C = dyn_cast<CallExpr>(V)) {
    const FunctionDecl *FD = C->getDirectCallee();
    for (unsigned I = 0; FD && I < C->getNumArgs() && I < FD->getNumParams();
         ++I)
      if (C->getArg(I) == X) {
        QualType T = FD->getParamDecl(I)->getType();
        return !T->isReferenceType() ||
               T.getNonReferenceType().isConstQualified();
      }
  }
  return false;
}

std::string pathText(const std::vector<const FieldDecl *> &Path) {
  std::string T;
  for (const FieldDecl *F : Path)
    T += "." + F->getNameAsString();
  return T;
}

bool isDim3Type(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->getName() == "dim3" || RD->getName() == "uint3";
  return false;
}

int dimComponent(const FieldDecl *F) {
  StringRef N = F->getName();
  return N == "x" ? 0 : N == "y" ? 1 : N == "z" ? 2 : -1;
}

/// The index of \p F among the initialisers of an init list of its record
/// (bases come first).
unsigned initIndex(const FieldDecl *F) {
  unsigned I = F->getFieldIndex();
  if (const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent()))
    if (RD->hasDefinition())
      I += RD->getNumBases();
  return I;
}
} // namespace

Val LaunchEvaluator::Impl::evalFieldAccess(const MemberExpr *M,
                                           const Frame &Fr) {
  std::vector<const FieldDecl *> Path;
  const Expr *B = M;
  Val V;
  bool Arrow = false;
  while (const auto *ME = dyn_cast<MemberExpr>(skipNoOps(B))) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD)
      return Val::unknown("'" + text(ME) + "' is not a data member");
    Path.insert(Path.begin(), FD);
    B = ME->getBase();
    if ((Arrow = ME->isArrow()))
      break;
  }
  V = Arrow ? fieldThroughPointer(B, Path, Fr) : fieldOf(B, Path, Fr);
  if (V.Kind != Val::Unknown) {
    if (V.How.empty())
      V.How = "'" + text(M) + "'";
    return V;
  }
  // A member of a local structure that is not known: a name of its own
  // (`cfg.n` -> cfg_n), so that the spec can be completed by naming it.
  const auto *D = dyn_cast<DeclRefExpr>(skipNoOps(B));
  const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  QualType T = M->getType().getNonReferenceType().getCanonicalType();
  if (!VD || !(T->isIntegralOrEnumerationType() || T->isRealFloatingType()))
    return V;
  std::string Base = VD->getNameAsString();
  for (const FieldDecl *F : Path)
    Base += "_" + F->getNameAsString();
  std::string Key = "member|" +
                    std::to_string(reinterpret_cast<uintptr_t>(VD)) + "|" +
                    Base;
  auto It = St->ExtNames.find(Key);
  if (It == St->ExtNames.end()) {
    std::string Name = Base;
    for (unsigned K = 2; St->Used.count(Name); ++K)
      Name = Base + "_" + std::to_string(K);
    St->Used.insert(Name);
    UnknownValue U;
    U.Name = Name;
    U.Where = where(M->getBeginLoc());
    std::string Named = "'" + text(M) + "'";
    U.Why = V.Why.compare(0, Named.size(), Named) == 0
                ? V.Why
                : Named + ": " + (V.Why.empty() ? "not known" : V.Why);
    St->Unknowns.push_back(U);
    It = St->ExtNames.emplace(Key, Name).first;
  }
  return Val::sym(It->second, T->isRealFloatingType());
}

Val LaunchEvaluator::Impl::fieldOfValue(Val V,
                                        const std::vector<const FieldDecl *> &Path,
                                        size_t From) {
  // A launch shape reached by the path: its component.
  if (V.Kind == Val::Dim && From + 1 == Path.size()) {
    int C = dimComponent(Path[From]);
    if (C >= 0)
      return V.D[C];
  }
  if (From == Path.size())
    return V;
  return V.Kind == Val::Unknown ? V : Val::unknown("not a structure");
}

Val LaunchEvaluator::Impl::fieldOf(const Expr *E,
                                   const std::vector<const FieldDecl *> &Path,
                                   const Frame &Fr, size_t From) {
  if (From == Path.size())
    return eval(E, Fr);
  if (St->Depth > 48)
    return Val::unknown("too deeply nested to follow");
  ++St->Depth;
  struct Guard {
    unsigned &D;
    ~Guard() { --D; }
  } G{St->Depth};
  E = skipNoOps(E);
  std::vector<const FieldDecl *> Rest(Path.begin() + From, Path.end());
  if (isDim3Type(E->getType()))
    return fieldOfValue(eval(E, Fr), Path, From);
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(D->getDecl());
    if (!VD)
      return Val::unknown("'" + text(D) + "' is not a variable");
    return fieldOfVar(VD, D, Rest, Fr);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD)
      return Val::unknown("'" + text(ME) + "' is not a data member");
    Rest.insert(Rest.begin(), FD);
    if (ME->isArrow())
      return fieldThroughPointer(ME->getBase(), Rest, Fr);
    return fieldOf(ME->getBase(), Rest, Fr);
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    if (IL->isSyntacticForm() && IL->getSemanticForm())
      IL = IL->getSemanticForm();
    const FieldDecl *F = Rest.front();
    const Expr *Elt = nullptr;
    if (IL->getType()->isUnionType()) {
      if (IL->getInitializedFieldInUnion() != F)
        return Val::unknown("'" + F->getNameAsString() +
                            "' is not the member of the union initialised");
      Elt = IL->getNumInits() ? IL->getInit(0) : nullptr;
    } else {
      unsigned I = initIndex(F);
      Elt = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
    }
    if (!Elt || isa<ImplicitValueInitExpr>(Elt)) {
      if (Rest.size() == 1 && (F->getType()->isIntegralOrEnumerationType() ||
                               F->getType()->isRealFloatingType()))
        return convert(Val::ofInt64(0), F->getType());
      return Val::unknown("'" + F->getNameAsString() + "' is not initialised");
    }
    return fieldOf(Elt, Path, Fr, From + 1);
  }
  // A lambda: a captured copy is the value of the variable where the
  // lambda is made.
  if (const auto *LE = dyn_cast<LambdaExpr>(E)) {
    const FieldDecl *F = Rest.front();
    const Expr *Init =
        F->getParent() == LE->getLambdaClass() &&
                F->getFieldIndex() < LE->capture_size()
            ? LE->capture_init_begin()[F->getFieldIndex()]
            : nullptr;
    if (!Init)
      return Val::unknown("a capture of the lambda the tool does not follow");
    return fieldOf(Init, Path, Fr, From + 1);
  }
  if (const auto *C = dyn_cast<CXXConstructExpr>(E))
    return fieldOfConstruct(C, Rest, Fr);
  if (const auto *C = dyn_cast<CastExpr>(E))
    if (C->getType().getCanonicalType() ==
        C->getSubExpr()->getType().getCanonicalType())
      return fieldOf(C->getSubExpr(), Path, Fr, From);
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = C->getDirectCallee();
    // CUDA's make_float3(x, y, z), make_int2(x, y)...: component K is
    // argument K.
    if (FD && FD->getIdentifier() && Rest.size() == 1) {
      const RecordDecl *RT = FD->getReturnType()->getAsRecordDecl();
      int K = dimComponent(Rest.front());
      if (K < 0 && Rest.front()->getName() == "w")
        K = 3;
      if (RT && RT->getIdentifier() &&
          FD->getName() == ("make_" + RT->getName()).str() && K >= 0 &&
          unsigned(K) < C->getNumArgs() &&
          C->getNumArgs() == unsigned(std::distance(RT->field_begin(),
                                                    RT->field_end())))
        return convert(eval(C->getArg(K), Fr), Rest.front()->getType());
    }
    // A function returning a structure: its one `return`, in the callee.
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    if (Def && !inSystemHeader(SM, Def->getLocation()) &&
        !isa<CXXMethodDecl>(Def) && !isa<CXXOperatorCallExpr>(C)) {
      for (const Frame *P = &Fr; P; P = P->Parent)
        if (P->F == Def)
          return Val::unknown("'" + Def->getNameAsString() + "' is recursive");
      std::vector<const ReturnStmt *> Rets;
      collectReturnStmts(Def->getBody(), Rets);
      if (Rets.size() == 1 && Rets[0]->getRetValue()) {
        auto Callee = std::make_unique<Frame>();
        Callee->F = Def;
        Callee->Call = C;
        Callee->Parent = &Fr;
        Callee->At = Rets[0];
        Extra.push_back(std::move(Callee));
        return fieldOf(Rets[0]->getRetValue(), Rest, *Extra.back());
      }
    }
    return Val::unknown("'" + text(C) + pathText(Rest) +
                        "': a member of the result of a call");
  }
  return Val::unknown("'" + text(E) + pathText(Rest) +
                      "' is a member the tool does not follow");
}

namespace {
const CXXMemberCallExpr *thisCall(const Stmt *S);

/// `m = e` / `this->m op= e` in a constructor's body: the member assigned.
const FieldDecl *memberStore(const Stmt *S, const BinaryOperator *&B) {
  if (const auto *W = dyn_cast<ExprWithCleanups>(S))
    S = W->getSubExpr();
  B = dyn_cast<BinaryOperator>(S);
  if (!B || !B->isAssignmentOp())
    return nullptr;
  const auto *ME = dyn_cast<MemberExpr>(B->getLHS()->IgnoreParenImpCasts());
  if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

void collectMemberStores(const Stmt *S, const FieldDecl *F,
                         std::vector<const BinaryOperator *> &Out) {
  if (!S || isa<LambdaExpr>(S))
    return;
  const BinaryOperator *B = nullptr;
  if (isa<Expr>(S) && memberStore(S, B) == F)
    Out.push_back(B);
  for (const Stmt *C : S->children())
    collectMemberStores(C, F, Out);
}
} // namespace

const Frame &LaunchEvaluator::Impl::ctorFrame(const CXXConstructExpr *C,
                                              const CXXConstructorDecl *Def,
                                              const Frame &Fr,
                                              const Stmt *At) {
  auto Callee = std::make_unique<Frame>();
  Callee->F = Def;
  Callee->Construct = C;
  Callee->Parent = &Fr;
  Callee->At = At;
  Extra.push_back(std::move(Callee));
  return *Extra.back();
}

Val LaunchEvaluator::Impl::fieldOfConstruct(
    const CXXConstructExpr *C, const std::vector<const FieldDecl *> &Path,
    const Frame &Fr, const Stmt *At) {
  const CXXConstructorDecl *Ctor = C->getConstructor();
  const FieldDecl *F = Path.front();
  if ((Ctor->isCopyOrMoveConstructor() || C->getNumArgs() == 1) &&
      C->getNumArgs() >= 1 &&
      C->getArg(0)->getType()->getAsCXXRecordDecl() == Ctor->getParent())
    return fieldOf(C->getArg(0), Path, Fr); // a copy
  const CXXConstructorDecl *Def =
      dyn_cast_or_null<CXXConstructorDecl>(Ctor->getDefinition());
  // A default constructor the compiler writes (or `= default`); one the
  // user declares but defines in another file is not seen (below).
  if (Ctor->isDefaultConstructor() &&
      (Ctor->isDefaulted() || Ctor->isTrivial() || (Def && Def->isDefaulted()))) {
    if (const Expr *In = F->getInClassInitializer()) {
      Frame G;
      G.At = In;
      return fieldOf(In, Path, G, 1);
    }
    return Val::unknown("'" + F->getNameAsString() +
                        "' is not initialised by the default constructor");
  }
  if (!Def || inSystemHeader(SM, Def->getLocation()))
    return Val::unknown("'" + F->getNameAsString() +
                        "' is set by a constructor the tool cannot see");
  // A body that calls methods of the object (`set_n(16000);` in the
  // constructor): what the body stores last, through them or not (its
  // value before a read in the constructor itself is not followed so).
  std::string CallsWhy;
  if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
      Body && !At && thisCallsMayStore(Body, F, 1, CallsWhy) != 0) {
    bool None = false;
    Val V = methodStore(Def, nullptr, nullptr, Path, Fr, 0, None, C);
    if (V.isNum())
      V.How = "'" + F->getNameAsString() + "' set by the constructor " +
              Def->getNameAsString() + "()";
    if (!None)
      return V;
  }
  // The last statement of the body before At that assigns the member (every
  // path runs it: a statement of the body itself).
  if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody())) {
    std::vector<const BinaryOperator *> All;
    collectMemberStores(Body, F, All);
    // The last statement of the body before At that assigns the member is
    // a loop (an option loop: `while ((opt = getopt(argc, argv, "g:")) >= 0)
    // switch (opt) { case 'g': n_gpu_blocks = atoi(optarg); ... }`): run it.
    const Stmt *LastS = nullptr;
    for (const Stmt *S : Body->body()) {
      if (At && !before(S, At))
        break;
      std::vector<const BinaryOperator *> In;
      collectMemberStores(S, F, In);
      if (!In.empty())
        LastS = S;
    }
    if (LastS && (isa<ForStmt>(LastS) || isa<WhileStmt>(LastS) ||
                  isa<DoStmt>(LastS))) {
      PathMark PM = mark();
      Val V = interpretCtorLoop(LastS, C, ctorFrame(C, Def, Fr, LastS), Fr,
                                Path);
      if (V.isNum()) {
        V.How = "after the loop at " + where(LastS->getBeginLoc()) +
                " in the constructor " + Def->getNameAsString() +
                "(), run by the tool";
        return V;
      }
      restore(PM);
      return Val::unknown("'" + F->getNameAsString() + "' is assigned in the "
                          "loop at " + where(LastS->getBeginLoc()) +
                          " in the constructor " + Def->getNameAsString() +
                          "() (run by the tool, it stopped: " + V.Why + ")");
    }
    const BinaryOperator *Last = nullptr;
    for (const Stmt *S : Body->body()) {
      if (At && !before(S, At))
        break;
      const BinaryOperator *B = nullptr;
      if (memberStore(S, B) == F)
        Last = B;
    }
    for (const BinaryOperator *B : All)
      if ((!At || before(B, At)) && (!Last || before(Last, B)) && B != Last)
        return Val::unknown("'" + F->getNameAsString() + "' is assigned at " +
                            where(B->getBeginLoc()) + " in the constructor " +
                            Def->getNameAsString() +
                            "(), not on every path");
    if (Last) {
      const Frame &CF = ctorFrame(C, Def, Fr, Last);
      if (Last->getOpcode() == BO_Assign)
        return fieldOf(Last->getRHS(), Path, CF, 1);
      if (Path.size() != 1)
        return Val::unknown("'" + text(Last) + "'");
      const auto *CA = cast<CompoundAssignOperator>(Last);
      Val Old = fieldOfConstruct(C, Path, Fr, Last);
      return convert(
          combine(BinaryOperator::getOpForCompoundAssignment(CA->getOpcode()),
                  convert(Old, CA->getComputationLHSType()),
                  eval(CA->getRHS(), CF), CA->getComputationResultType(),
                  CA->getComputationLHSType(), CA),
          F->getType());
    }
  }
  for (const CXXCtorInitializer *I : Def->inits()) {
    if (I->getMember() != F)
      continue;
    return fieldOf(I->getInit(), Path, ctorFrame(C, Def, Fr, I->getInit()),
                   1);
  }
  if (const Expr *In = F->getInClassInitializer()) {
    Frame G;
    G.At = In;
    return fieldOf(In, Path, G, 1);
  }
  return Val::unknown("'" + F->getNameAsString() +
                      "' is not initialised by the constructor " +
                      Def->getNameAsString() + "()");
}

Val LaunchEvaluator::Impl::fieldOfVar(const VarDecl *VD, const Expr *Use,
                                      const std::vector<const FieldDecl *> &Path,
                                      const Frame &Fr) {
  std::string Name = "'" + VD->getNameAsString() + pathText(Path) + "'";
  if (VD->hasGlobalStorage() && !VD->isStaticLocal()) {
    if (VD->getType().isVolatileQualified())
      return Val::unknown(Name + ": volatile");
    if (!VD->getType().isConstQualified())
      for (const FunctionDecl *F : globalUsers(VD))
        if (!mutations(VD, F).empty())
          return Val::unknown(Name + ": '" + VD->getNameAsString() +
                              "' is modified at " +
                              where(mutations(VD, F).front()->getBeginLoc()));
    const Expr *Init = VD->getAnyInitializer();
    if (!Init)
      return Val::unknown(Name + ": '" + VD->getNameAsString() +
                          "' has no initialiser here");
    Frame G;
    G.At = Init;
    return fieldOf(Init, Path, G);
  }
  if (VD->isStaticLocal() && !VD->getType().isConstQualified())
    return Val::unknown(Name + ": a static local");
  const Frame &Own = ownerFrame(VD, Use, Fr);
  const Stmt *At = Own.F == Fr.F ? Fr.At : Own.At;
  if (!Own.F)
    return Val::unknown(Name + " is not followed");
  return fieldAt(VD, Path, Own, At);
}

Val LaunchEvaluator::Impl::fieldAt(const VarDecl *VD,
                                   const std::vector<const FieldDecl *> &Path,
                                   const Frame &Own, const Stmt *At) {
  const auto &P = parents(Own.F);
  std::string Name = "'" + VD->getNameAsString() + pathText(Path) + "'";
  const std::vector<const Stmt *> &Ms = mutations(VD, Own.F);
  for (auto It = Ms.rbegin(); It != Ms.rend(); ++It) {
    const Stmt *M = *It;
    if (At && (!before(M, At) || afterFirstRun(M, At, Own.F)))
      continue;
    // The members written: v.a.b = e.
    std::vector<const FieldDecl *> Chain;
    const Stmt *Target = M, *Up = P.lookup(M);
    for (;;) {
      while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
        Up = P.lookup(Target = Up);
      const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
      const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
      if (!FD || ME->isArrow())
        break;
      Chain.push_back(FD);
      Up = P.lookup(Target = Up);
    }
    size_t Common = 0;
    while (Common < Chain.size() && Common < Path.size() &&
           Chain[Common] == Path[Common])
      ++Common;
    if (Common < Chain.size() && Common < Path.size())
      continue; // another member
    // Modified in a loop that ends before At (an option loop over argv
    // storing `cfg.n = atoi(argv[++i])`).
    std::string LoopWhy;
    Val LV;
    switch (loopBeforeValue(M, At, VD, Own, &Path, LV, LoopWhy)) {
    case AssignEffect::Skipped:
      continue;
    case AssignEffect::Effective:
      return LV;
    case AssignEffect::Unknown:
      break;
    }
    if (!LoopWhy.empty())
      LoopWhy = " (run by the tool, it stopped: " + LoopWhy + ")";
    // An assignment of the member, of a structure holding it, or of a part.
    const Stmt *Assign = nullptr;
    const Expr *RHS = nullptr;
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(Up)) {
      if (B->isAssignmentOp() && skipNoOps(B->getLHS()) == skipNoOps(cast<Expr>(Target))) {
        Assign = B;
        RHS = B->getRHS();
      }
    } else if (const auto *U = dyn_cast_or_null<UnaryOperator>(Up)) {
      if (U->isIncrementDecrementOp())
        Assign = U;
    } else if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Up)) {
      if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
          skipNoOps(OC->getArg(0)) == skipNoOps(cast<Expr>(Target))) {
        Assign = OC;
        RHS = OC->getArg(1);
      }
    }
    std::string Why;
    if (!Assign) {
      // A call given the structure's (or the member's) address or a
      // reference: what the callee stores, when it always does.
      bool Skip = false;
      Val V = storedByCall(M, VD, Path, Own, At, Skip);
      if (Skip)
        continue;
      return V.Kind == Val::Unknown ? Val::unknown(Name + ": " + V.Why) : V;
    }
    switch (everyPath(Assign, Own, At, "'" + VD->getNameAsString() + "'", M,
                      Why)) {
    case AssignEffect::Skipped:
      continue;
    case AssignEffect::Unknown:
      return Val::unknown(Name + ": " + Why + LoopWhy);
    case AssignEffect::Effective:
      break;
    }
    Frame Here = Own.at(Assign);
    if (Chain.size() < Path.size()) {
      // The whole structure or a part holding the member: its member.
      if (!RHS || (isa<BinaryOperator>(Assign) &&
                   cast<BinaryOperator>(Assign)->getOpcode() != BO_Assign))
        return Val::unknown(Name + ": '" + text(Assign) +
                            "' is not an assignment the tool follows");
      std::vector<const FieldDecl *> Rest(Path.begin() + Chain.size(),
                                          Path.end());
      return fieldOf(RHS, Rest, Here);
    }
    if (Chain.size() > Path.size()) {
      // A component of a dim3 member (`cfg.grid.x = 4`).
      if (Chain.size() == Path.size() + 1 && isDim3Type(Path.back()->getType()) &&
          dimComponent(Chain.back()) >= 0 && RHS &&
          cast<Expr>(Assign)->getStmtClass() == Stmt::BinaryOperatorClass &&
          cast<BinaryOperator>(Assign)->getOpcode() == BO_Assign) {
        Val Old = fieldAt(VD, Path, Own, Assign);
        if (Old.Kind != Val::Dim)
          return Old;
        Val New = convert(eval(RHS, Here), Ctx.UnsignedIntTy);
        if (!New.isScalar() || New.Kind == Val::Float)
          return Val::unknown(Name + ": '" + text(Assign) + "'");
        Old.D[dimComponent(Chain.back())] = New;
        return Old;
      }
      return Val::unknown(Name + " is modified part by part at " +
                          where(M->getBeginLoc()));
    }
    QualType T = Path.back()->getType();
    if (const auto *U = dyn_cast<UnaryOperator>(Assign)) {
      Val Old = fieldAt(VD, Path, Own, Assign);
      return convert(combine(U->isIncrementOp() ? BO_Add : BO_Sub, Old,
                             convert(Val::ofInt64(1), T), T, T, U),
                     T);
    }
    if (const auto *CA = dyn_cast<CompoundAssignOperator>(Assign)) {
      Val Old = fieldAt(VD, Path, Own, Assign);
      return convert(
          combine(BinaryOperator::getOpForCompoundAssignment(CA->getOpcode()),
                  convert(Old, CA->getComputationLHSType()),
                  eval(CA->getRHS(), Here), CA->getComputationResultType(),
                  CA->getComputationLHSType(), CA),
          T);
    }
    if (isDim3Type(T))
      return eval(RHS, Here);
    return convert(eval(RHS, Here), T);
  }
  // The initial value.
  if (const auto *PV = dyn_cast<ParmVarDecl>(VD)) {
    if (!Own.Parent || (!Own.Call && !Own.Construct)) {
      if (Own.Ext)
        return externalMember(PV, Path, *Own.Ext, Own.Step, Name);
      if (Own.RootWhy.empty())
        noteUnreached(Own.F);
      return Val::unknown(Name + ": a parameter of " +
                          (Own.F ? Own.F->getNameAsString() : "") +
                          "(), which no call in the files given reaches");
    }
    unsigned I = PV->getFunctionScopeIndex();
    if (Own.Call && isa<CXXOperatorCallExpr>(Own.Call) &&
        isa<CXXMethodDecl>(Own.F) && !cast<CXXMethodDecl>(Own.F)->isStatic())
      ++I;
    unsigned N = Own.Call ? Own.Call->getNumArgs() : Own.Construct->getNumArgs();
    if (I >= N)
      return Val::unknown(Name + " is not passed by the call");
    if (Own.Step >= 0)
      St->MaxStep = std::max(St->MaxStep, Own.Step);
    const Expr *Arg =
        Own.Call ? Own.Call->getArg(I) : Own.Construct->getArg(I);
    return fieldOf(Arg, Path, *Own.Parent);
  }
  const Expr *Init = VD->getInit();
  if (!Init)
    return Val::unknown(Name + ": '" + VD->getNameAsString() +
                        "' is declared without a value");
  return fieldOf(Init, Path, Own.at(Init));
}

// A member of a structure parameter whose function is called from another
// file (`perlin.calculate(pixels, params, ...)` in main.cu, the method in
// noise.cu): the member's value the call gives, when the structure (the
// same definition in both units) was passed with its members as numbers.
// The callee's own assignments were looked for before this.
Val LaunchEvaluator::Impl::externalMember(
    const ParmVarDecl *PV, const std::vector<const FieldDecl *> &Path,
    const ExternalCall &X, int Step, const std::string &Name) {
  std::string Passed = Name + ": a structure passed by the call at " + X.Where;
  unsigned I = PV->getFunctionScopeIndex();
  auto Import = [&](const ValueInfo &VI, QualType T,
                    const std::string &Member) -> Val {
    if (Step >= 0)
      St->MaxStep = std::max(St->MaxStep, Step);
    Val V = importValue(VI, X, T);
    if (V.Kind == Val::Unknown)
      return Val::unknown(Passed + " (" + V.Why + ")");
    V.How = "member '" + Member + "' of the structure given by the call at " +
            X.Where;
    return V;
  };
  // A structure with pointer members too: its number members by name.
  if (I < X.ArgMembers.size() && !X.ArgMembers[I].empty() && Path.size() == 1) {
    for (const auto &KV : X.ArgMembers[I])
      if (KV.first == Path.front()->getNameAsString() &&
          KV.second.Type ==
              Path.front()->getType().getAsString(Ctx.getPrintingPolicy()))
        return Import(KV.second, Path.front()->getType(), KV.first);
    return Val::unknown(Passed);
  }
  if (I >= X.Args.size() || X.Args[I].Kind != ValueInfo::Record)
    return Val::unknown(Passed);
  const ValueInfo &A = X.Args[I];
  QualType T = PV->getType().getNonReferenceType();
  std::vector<RecordLeaf> Leaves;
  std::string WhyNot;
  // The call was matched to this function by its parameter types, so the
  // structure is this one (its spelling may differ: `const struct grid_t`
  // here, a copy of a `struct grid_t` there); its numbers line up one to one.
  if (!recordLeaves(Ctx, T, Leaves, WhyNot) ||
      Leaves.size() != A.Members.size())
    return Val::unknown(Passed);
  for (size_t K = 0; K < Leaves.size(); ++K)
    if (A.Members[K].Type !=
        Leaves[K].Type.getAsString(Ctx.getPrintingPolicy()))
      return Val::unknown(Passed);
  for (size_t K = 0; K < Leaves.size(); ++K) {
    if (Leaves[K].Path == Path)
      return Import(A.Members[K], Leaves[K].Type, Leaves[K].PathText);
  }
  return Val::unknown(Passed);
}

Val LaunchEvaluator::Impl::fieldThroughPointer(
    const Expr *E, const std::vector<const FieldDecl *> &Path,
    const Frame &Fr) {
  std::string Name = "'" + text(E) + "->" +
                     pathText(Path).substr(1) + "'";
  const Expr *S = E->IgnoreParenCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    if (U->getOpcode() == UO_AddrOf)
      return fieldOf(U->getSubExpr(), Path, Fr);
  // A member read in a constructor (`blocks = (end - start) / N;`): its
  // value at that statement.
  if (isa<CXXThisExpr>(S) && Fr.Construct && Fr.Parent)
    return fieldOfConstruct(Fr.Construct, Path, *Fr.Parent, Fr.At);
  // A member read in a method called from another file (`sim.Start()` in
  // main.cu): the member's value at that call, when this method and the
  // object's methods it calls cannot have changed it before.
  if (isa<CXXThisExpr>(S) && !Fr.Object && !Fr.Construct && Fr.Ext &&
      !Fr.Ext->Members.empty() && Path.size() == 1)
    if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Fr.F)) {
      const ExternalCall &X = *Fr.Ext;
      const FieldDecl *F = Path.front();
      auto It = llvm::find_if(X.Members, [&](const auto &KV) {
        return KV.first == F->getNameAsString();
      });
      if (It == X.Members.end())
        return Val::unknown(Name + ": not a number member the call at " +
                            X.Where + " gives");
      std::string Why;
      switch (mayStore(MD, F, 0, Why)) {
      case 2:
        return Val::unknown(Name + ": " + Why);
      case 1:
        return Val::unknown(Name + ": " + MD->getNameAsString() +
                            "() may change it before");
      default:
        break;
      }
      if (Fr.Step >= 0)
        St->MaxStep = std::max(St->MaxStep, Fr.Step);
      Val V = importValue(It->second, X, F->getType());
      if (V.Kind == Val::Unknown)
        return Val::unknown(Name + ": " + V.Why);
      V.How = "'" + F->getNameAsString() + "' of the object at the call at " +
              X.Where;
      return V;
    }
  // The same in a method that no call of this file reaches: calls in other
  // files may give its object.
  if (isa<CXXThisExpr>(S) && !Fr.Object && !Fr.Construct && !Fr.Ext &&
      !Fr.Parent && isa_and_nonnull<CXXMethodDecl>(Fr.F) && Fr.RootWhy.empty()) {
    noteUnreached(Fr.F);
    return Val::unknown(Name + ": a member of the object " +
                        Fr.F->getNameAsString() +
                        "() runs on, which no call in the files given reaches");
  }
  // A member read in a method: that of the object it was called on.
  if (isa<CXXThisExpr>(S) && Fr.Object && Fr.Parent) {
    const Expr *O = Fr.Object;
    return O->getType()->isPointerType()
               ? fieldThroughPointer(O, Path, *Fr.Parent)
               : fieldOf(O, Path, *Fr.Parent);
  }
  const auto *D = dyn_cast<DeclRefExpr>(S);
  const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!VD || !VD->getType()->isPointerType() ||
      (VD->hasGlobalStorage() && !VD->isStaticLocal()))
    return Val::unknown(Name + ": the tool follows pointers to local "
                               "structures only");
  const Frame &Own = ownerFrame(VD, D, Fr);
  const Stmt *At = Own.F == Fr.F ? Fr.At : Own.At;
  if (!Own.F)
    return Val::unknown(Name + " is not followed");
  std::string Why;
  if (!constantAt(VD, Own.F, At, Why))
    return Val::unknown(Name + ": " + Why);
  if (const Stmt *W = writesThrough(VD, Path, Own, At))
    return Val::unknown(Name + ": the structure may be modified through '" +
                        VD->getNameAsString() + "' at " +
                        where(W->getBeginLoc()));
  if (const auto *PV = dyn_cast<ParmVarDecl>(VD)) {
    unsigned I = PV->getFunctionScopeIndex();
    if (!Own.Parent || !Own.Call || I >= Own.Call->getNumArgs()) {
      if (Own.Ext)
        return Val::unknown(Name + ": a structure in the caller at " +
                            Own.Ext->Where);
      if (!Own.Parent || !Own.Call)
        noteUnreached(Own.F);
      return Val::unknown(Name + ": a pointer parameter of " +
                          Own.F->getNameAsString() +
                          "(), which no call in the files given reaches");
    }
    if (Own.Step >= 0)
      St->MaxStep = std::max(St->MaxStep, Own.Step);
    return fieldThroughPointer(Own.Call->getArg(I), Path, *Own.Parent);
  }
  const Expr *Init = VD->getInit();
  if (!Init)
    return Val::unknown(Name + ": '" + VD->getNameAsString() +
                        "' is declared without a value");
  return fieldThroughPointer(Init, Path, Own.at(Init));
}

const Stmt *LaunchEvaluator::Impl::writesThrough(
    const VarDecl *VD, const std::vector<const FieldDecl *> &Path,
    const Frame &Own, const Stmt *At) {
  // Every use of the pointer before At (or in a loop around it): a read of
  // another member, or of this one, is harmless; a write of it, a call given
  // the pointer or the member's address, or a copy of the pointer, is not.
  const auto &P = parents(Own.F);
  std::vector<const DeclRefExpr *> Refs =
      launcheval::refsTo(Own.F->getBody(), VD);
  for (const DeclRefExpr *R : Refs) {
    if (At && (!before(R, At) || afterFirstRun(R, At, Own.F)))
      continue;
    const Stmt *Target = R, *Up = P.lookup(R);
    while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
      Up = P.lookup(Target = Up);
    const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
    if (!ME || !ME->isArrow()) {
      // The pointer itself: passed to a function taking a pointer to const,
      // or compared, is harmless.
      if (const auto *C = dyn_cast_or_null<CallExpr>(Up)) {
        const FunctionDecl *FD = C->getDirectCallee();
        bool Const = false;
        for (unsigned I = 0; FD && I < C->getNumArgs() && I < FD->getNumParams();
             ++I)
          if (C->getArg(I) == Target)
            Const = FD->getParamDecl(I)->getType()->getPointeeType()
                        .isConstQualified();
        if (Const)
          continue;
      }
      if (const auto *B = dyn_cast_or_null<BinaryOperator>(Up))
        if (B->isComparisonOp())
          continue;
      return R;
    }
    // p->a.b...: the members used.
    std::vector<const FieldDecl *> Chain;
    const Stmt *Top = Up;
    Target = Up;
    for (;;) {
      const auto *M = dyn_cast_or_null<MemberExpr>(Target);
      const auto *FD = M ? dyn_cast<FieldDecl>(M->getMemberDecl()) : nullptr;
      if (!FD)
        break;
      Chain.push_back(FD);
      Top = Target;
      Up = P.lookup(Target);
      while (Up && (isa<ParenExpr>(Up) ||
                    (isa<ImplicitCastExpr>(Up) &&
                     cast<ImplicitCastExpr>(Up)->getCastKind() == CK_NoOp)))
        Up = P.lookup(Up);
      if (!isa_and_nonnull<MemberExpr>(Up) ||
          cast<MemberExpr>(Up)->isArrow())
        break;
      Target = Up;
    }
    size_t Common = 0;
    while (Common < Chain.size() && Common < Path.size() &&
           Chain[Common] == Path[Common])
      ++Common;
    if (Common < Chain.size() && Common < Path.size())
      continue; // another member
    // Read (an rvalue) or written?
    const Stmt *U = P.lookup(Top);
    while (U && isa<ParenExpr>(U))
      U = P.lookup(U);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(U))
      if (IC->getCastKind() == CK_LValueToRValue)
        continue;
    if (const auto *Mem = dyn_cast_or_null<MemberExpr>(U))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(Mem->getMemberDecl()))
        if (MD->isConst())
          continue;
    return R;
  }
  return nullptr;
}

Val LaunchEvaluator::Impl::evalSubscript(const ArraySubscriptExpr *A,
                                         const Frame &Fr) {
  return evalSubscript(A, Fr, [&](const Expr *I) { return eval(I, Fr); });
}

Val LaunchEvaluator::Impl::evalSubscript(
    const ArraySubscriptExpr *A, const Frame &Fr,
    const std::function<Val(const Expr *)> &Index) {
  // a[i][j]: the array variable and the indices, outermost first.
  std::vector<const Expr *> Idx;
  const Expr *B = A;
  while (const auto *S = dyn_cast<ArraySubscriptExpr>(B->IgnoreParenImpCasts())) {
    Idx.insert(Idx.begin(), S->getIdx());
    B = S->getBase();
  }
  const auto *D = dyn_cast<DeclRefExpr>(B->IgnoreParenImpCasts());
  // Not "'a[i]'": the caller quotes the expression already.
  std::string Name = "an element of '" + text(B) + "'";
  const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!VD || !(VD->getType()->isConstantArrayType() ||
               (isa<ParmVarDecl>(VD) && VD->getType()->isPointerType())))
    return Val::unknown(Name + " is not an element of an array the tool "
                               "follows (a local or global array with an "
                               "initialiser)");
  std::vector<uint64_t> Is;
  for (const Expr *I : Idx) {
    Val V = Index(I);
    if (V.Kind != Val::Int)
      return Val::unknown(Name + ": the index '" + text(I) + "' is not known" +
                          (V.Why.empty() ? "" : " (" + V.Why + ")"));
    if (V.I.isNegative())
      return Val::unknown(Name + ": a negative index");
    Is.push_back(V.I.getZExtValue());
  }
  // An array passed to the function (`void f(int sizes[4])`): the caller's
  // array, when the function writes nothing through the parameter before.
  const Frame *Cur = &Fr;
  while (const auto *PV = dyn_cast<ParmVarDecl>(VD)) {
    if (!PV->getType()->isPointerType())
      return Val::unknown(Name + " is not followed");
    const Frame &Own = ownerFrame(PV, D, *Cur);
    const Stmt *At = Own.F == Cur->F ? Cur->At : Own.At;
    unsigned I = PV->getFunctionScopeIndex();
    if (!Own.F || !Own.Parent || !Own.Call || I >= Own.Call->getNumArgs()) {
      if (Own.F && (!Own.Parent || !Own.Call) && !Own.Ext &&
          Own.RootWhy.empty())
        noteUnreached(Own.F);
      return Val::unknown(Name + ": '" + PV->getNameAsString() +
                          "' is a pointer parameter of " +
                          (Own.F ? Own.F->getNameAsString() : "") +
                          "(), which no call in the files given reaches");
    }
    std::string W;
    if (!constantAt(PV, Own.F, At, W))
      return Val::unknown(Name + ": " + W);
    // Every use before At reads an element.
    const auto &P = parents(Own.F);
    std::vector<const DeclRefExpr *> Refs =
        launcheval::refsTo(Own.F->getBody(), PV);
    for (const DeclRefExpr *R : Refs) {
      if (At && (!before(R, At) || afterFirstRun(R, At, Own.F)))
        continue;
      const Stmt *U = P.lookup(R);
      while (U && isa<ParenExpr>(U))
        U = P.lookup(U);
      const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(
          U && isa<ImplicitCastExpr>(U) ? P.lookup(U) : nullptr);
      const Stmt *X = AS, *V = AS ? P.lookup(AS) : nullptr;
      while (V && isa<ParenExpr>(V))
        V = P.lookup(X = V);
      if (!AS || !onlyRead(V, X))
        return Val::unknown(Name + ": the array may be modified through '" +
                            PV->getNameAsString() + "' at " +
                            where(R->getBeginLoc()));
    }
    if (Own.Step >= 0)
      St->MaxStep = std::max(St->MaxStep, Own.Step);
    const Expr *Arg = Own.Call->getArg(I)->IgnoreParenImpCasts();
    D = dyn_cast<DeclRefExpr>(Arg);
    VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!VD || !(VD->getType()->isConstantArrayType() ||
                 (isa<ParmVarDecl>(VD) && VD->getType()->isPointerType())))
      return Val::unknown(Name + ": '" + PV->getNameAsString() +
                          "' is given '" + text(Arg) + "' at " +
                          where(Own.Call->getBeginLoc()) +
                          ", not an array the tool follows");
    Cur = Own.Parent;
  }
  // Nothing modifies the array before.
  std::string Why;
  const Expr *Init = nullptr;
  Frame G;
  const Frame *InitFr = &G;
  if (VD->hasGlobalStorage() && !VD->isStaticLocal()) {
    if (!VD->getType().isConstQualified())
      for (const FunctionDecl *F : globalUsers(VD))
        if (!mutations(VD, F).empty())
          return Val::unknown(Name + ": '" + VD->getNameAsString() +
                              "' is modified at " +
                              where(mutations(VD, F).front()->getBeginLoc()));
    Init = VD->getAnyInitializer();
    G.At = Init;
  } else {
    if (VD->isStaticLocal() && !VD->getType().isConstQualified())
      return Val::unknown(Name + ": a static local");
    const Frame &Own = ownerFrame(VD, D, *Cur);
    const Stmt *At = Own.F == Cur->F ? Cur->At : Own.At;
    if (!Own.F || isa<ParmVarDecl>(VD))
      return Val::unknown(Name + " is not followed");
    // Elements assigned before (`sizes[0] = n * 2;`): the last store of
    // this element on every path; stores of other elements do not matter.
    const auto &P = parents(Own.F);
    const std::vector<const Stmt *> &Ms = mutations(VD, Own.F);
    for (auto It = Ms.rbegin(); It != Ms.rend(); ++It) {
      const Stmt *M = *It;
      if (At && (!before(M, At) || afterFirstRun(M, At, Own.F)))
        continue;
      std::string Mod = "'" + VD->getNameAsString() + "' is modified at " +
                        where(M->getBeginLoc());
      const Stmt *X = M, *Up = P.lookup(M);
      std::vector<Val> At2;
      bool Other = false, Unknown = false;
      for (;;) {
        while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
          Up = P.lookup(X = Up);
        const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Up);
        if (!AS || AS->getBase()->IgnoreParenImpCasts() !=
                       cast<Expr>(X)->IgnoreParenImpCasts())
          break;
        Val IV = eval(AS->getIdx(), Own.at(M));
        size_t K = At2.size();
        At2.push_back(IV);
        if (IV.Kind != Val::Int)
          Unknown = true;
        else if (K < Is.size() && IV.I.getZExtValue() != Is[K])
          Other = true;
        Up = P.lookup(X = AS);
      }
      if (At2.empty())
        return Val::unknown(Name + ": " + Mod);
      if (Other && !Unknown)
        continue; // another element
      const auto *B = dyn_cast_or_null<BinaryOperator>(Up);
      if (Unknown || At2.size() != Is.size() || !B ||
          B->getOpcode() != BO_Assign || B->getLHS()->IgnoreParens() != X)
        return Val::unknown(Name + ": " + Mod +
                            (Unknown ? " (at an index not known)" : ""));
      switch (everyPath(B, Own, At, "'" + VD->getNameAsString() + "'", M,
                        Why)) {
      case AssignEffect::Skipped:
        continue;
      case AssignEffect::Unknown:
        return Val::unknown(Name + ": " + Why);
      case AssignEffect::Effective:
        break;
      }
      Val V = convert(eval(B->getRHS(), Own.at(B)), A->getType());
      if (V.Kind == Val::Unknown)
        return Val::unknown(Name + ": assigned at " +
                            where(B->getBeginLoc()) + " from '" +
                            text(B->getRHS()) + "'" +
                            (V.Why.empty() ? "" : " (" + V.Why + ")"));
      return V;
    }
    Init = VD->getInit();
    auto F = std::make_unique<Frame>(Own.at(Init ? (const Stmt *)Init : At));
    Extra.push_back(std::move(F));
    InitFr = Extra.back().get();
  }
  if (!Init)
    return Val::unknown(Name + ": '" + VD->getNameAsString() +
                        "' has no initialiser");
  const Expr *E = skipNoOps(Init);
  for (uint64_t I : Is) {
    const auto *IL = dyn_cast<InitListExpr>(skipNoOps(E));
    if (IL && IL->isSyntacticForm() && IL->getSemanticForm())
      IL = IL->getSemanticForm();
    if (!IL)
      return Val::unknown(Name + ": '" + VD->getNameAsString() +
                          "' is not initialised by a list");
    const auto *AT = Ctx.getAsConstantArrayType(IL->getType());
    if (AT && I >= AT->getSize().getZExtValue())
      return Val::unknown(Name + ": the index " + std::to_string(I) +
                          " is out of bounds");
    if (I >= IL->getNumInits()) {
      if (IL->hasArrayFiller() && !isa<ImplicitValueInitExpr>(IL->getArrayFiller()))
        E = IL->getArrayFiller();
      else
        return convert(Val::ofInt64(0), A->getType());
    } else {
      E = IL->getInit(I);
    }
    if (isa<ImplicitValueInitExpr>(E))
      return convert(Val::ofInt64(0), A->getType());
  }
  Val V = convert(eval(E, *InitFr), A->getType());
  if (V.Kind != Val::Unknown && V.How.empty())
    V.How = "'" + text(A) + "'";
  return V;
}

} // namespace cudal1

namespace cudal1 {

namespace {
/// The members a use of an object names: from \p Obj (the object itself,
/// an lvalue) up through `.f` accesses; \p Top is the outermost.
void memberChain(const Stmt *Obj, const DenseMap<const Stmt *, const Stmt *> &P,
                 std::vector<const FieldDecl *> &Chain, const Stmt *&Top) {
  Top = Obj;
  for (;;) {
    const Stmt *Up = P.lookup(Top);
    while (Up && (isa<ParenExpr>(Up) ||
                  (isa<ImplicitCastExpr>(Up) &&
                   cast<ImplicitCastExpr>(Up)->getCastKind() == CK_NoOp)))
      Up = P.lookup(Up);
    const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
    const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    if (!FD || ME->isArrow())
      return;
    Chain.push_back(FD);
    Top = Up;
  }
}

/// How \p Chain (members written or read) relates to \p Path (members
/// wanted): 0 another member, 1 the same or one holding it, 2 a part of it.
int overlap(const std::vector<const FieldDecl *> &Chain,
            const std::vector<const FieldDecl *> &Path) {
  size_t C = 0;
  while (C < Chain.size() && C < Path.size() && Chain[C] == Path[C])
    ++C;
  if (C < Chain.size() && C < Path.size())
    return 0;
  return Chain.size() <= Path.size() ? 1 : 2;
}
} // namespace

Val LaunchEvaluator::Impl::storedByCall(const Stmt *M, const VarDecl *VD,
                                        const std::vector<const FieldDecl *> &Path,
                                        const Frame &Own, const Stmt *At,
                                        bool &Skip) {
  Skip = false;
  const auto &P = parents(Own.F);
  std::string Mod = "'" + VD->getNameAsString() + "' is modified at " +
                    where(M->getBeginLoc());
  std::string NotFollowed = Mod + " (not by an assignment the tool follows)";
  // v.a.b passed as `&v.a.b` or by non-const reference to a call.
  const Stmt *Obj = M;
  {
    const Stmt *Up = P.lookup(Obj);
    while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
      Up = P.lookup(Obj = Up);
  }
  std::vector<const FieldDecl *> Chain;
  const Stmt *Top = Obj;
  memberChain(Obj, P, Chain, Top);
  int Rel = overlap(Chain, Path);
  if (Rel == 0) {
    Skip = true;
    return Val();
  }
  const Stmt *Arg = Top, *Up = P.lookup(Top);
  while (Up && isa<ParenExpr>(Up))
    Up = P.lookup(Arg = Up);
  // Whether call \p Call runs on every path to \p At: nothing when it does,
  // else the value to answer (skipped: an earlier store counts; unknown).
  auto OnEveryPath = [&](const Stmt *Call) -> std::optional<Val> {
    std::string Why;
    switch (everyPath(Call, Own, At, "'" + VD->getNameAsString() + "'", M, Why)) {
    case AssignEffect::Skipped:
      Skip = true;
      return Val();
    case AssignEffect::Unknown:
      return Val::unknown(Why);
    case AssignEffect::Effective:
      break;
    }
    return std::nullopt;
  };
  // A method of the object called on it (`sim.set_n(n)`, a setter): what
  // its body stores in the member.
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
      ME && !ME->isArrow() && isa<CXXMethodDecl>(ME->getMemberDecl()))
    if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(P.lookup(ME));
        MC && MC->getCallee()->IgnoreParens() == ME) {
      const auto *MD = cast<CXXMethodDecl>(ME->getMemberDecl());
      if (Rel == 2 || Chain.size() >= Path.size())
        return Val::unknown(NotFollowed);
      const auto *Def =
          dyn_cast_or_null<CXXMethodDecl>(MD->getDefinition());
      std::string By = " by '" + text(MC) + "'";
      if (MD->isConst()) {
        Skip = true; // a const method changes no member it may not
        return Val();
      }
      if (std::optional<Val> NotEvery = OnEveryPath(MC))
        return *NotEvery;
      if (!Def || inSystemHeader(SM, Def->getLocation()) || MD->isVirtual())
        return Val::unknown(Mod + By + ", whose definition the tool does not see");
      std::vector<const FieldDecl *> Want(Path.begin() + Chain.size(), Path.end());
      bool None = false;
      Val R = methodStore(Def, MC, MC->getImplicitObjectArgument(), Want,
                          Own.at(MC), 0, None);
      if (None) {
        Skip = true;
        return Val();
      }
      if (R.Kind == Val::Unknown)
        return Val::unknown(Mod + By + ": " + R.Why);
      QualType T = Path.back()->getType();
      if (!isDim3Type(T))
        R = convert(R, T);
      R.How = "'" + VD->getNameAsString() + pathText(Path) + "' set by '" +
              text(MC) + "' at " + where(MC->getBeginLoc());
      return R;
    }
  bool ByAddress = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Up)) {
    if (U->getOpcode() != UO_AddrOf)
      return Val::unknown(NotFollowed);
    ByAddress = true;
    Arg = U;
    Up = P.lookup(U);
  }
  while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up) ||
                isa<CStyleCastExpr>(Up)))
    Up = P.lookup(Arg = Up);
  const auto *C = dyn_cast_or_null<CallExpr>(Up);
  if (!C || isa<CXXOperatorCallExpr>(C) || isa<CXXMemberCallExpr>(C))
    return Val::unknown(NotFollowed);
  unsigned K = 0;
  while (K < C->getNumArgs() && C->getArg(K) != Arg)
    ++K;
  const FunctionDecl *FD = C->getDirectCallee();
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  std::string By = " by '" + text(C) + "'";
  // The runtime's answers about the GPU (docs/harness.md, "Device
  // properties"): cudaGetDeviceProperties(&prop, dev) then prop.member,
  // cudaDeviceGetAttribute(&v, attribute, dev), cuDeviceGetAttribute.
  if (FD && K == 0 && ByAddress && FD->getIdentifier()) {
    StringRef Name = FD->getName();
    std::string What;
    std::optional<int64_t> PV;
    if (Name == "cudaGetDeviceProperties" ||
        Name == "cudaGetDeviceProperties_v2") {
      if (Path.size() == Chain.size() + 1) {
        What = Path.back()->getNameAsString();
        PV = devicePropField(What);
      } else {
        What = "cudaDeviceProp";
      }
    } else if ((Name == "cudaDeviceGetAttribute" ||
                Name == "cuDeviceGetAttribute") &&
               Path.empty() && Chain.empty() && C->getNumArgs() >= 2) {
      const auto *DRE =
          dyn_cast<DeclRefExpr>(C->getArg(1)->IgnoreParenImpCasts());
      const auto *EC =
          DRE ? dyn_cast<EnumConstantDecl>(DRE->getDecl()) : nullptr;
      What = EC ? EC->getNameAsString() : text(C->getArg(1));
      if (EC)
        PV = deviceAttribute(What);
    }
    if (!What.empty()) {
      if (!PV)
        return Val::unknown(Mod + By + ": the tool knows no value of '" +
                            What + "' (the device properties it knows: "
                            "docs/harness.md)");
      if (std::optional<Val> NotEvery = OnEveryPath(C))
        return *NotEvery;
      Val R = Val::ofInt64(*PV);
      R.How = "'" + What + "' from '" + text(C) + "' at " +
              where(C->getBeginLoc()) + ": " + std::to_string(*PV) + " on " +
              DevicePropsGpu;
      return R;
    }
  }
  // sscanf(argv[k], "%d", &n): the number the C library reads from a
  // program argument.
  if (ByAddress && Rel == 1 && Chain.size() == Path.size() &&
      K < C->getNumArgs()) {
    bool Handled = false;
    Val V = scannedArg(C, K, Own,
                       C->getArg(K)->IgnoreParenImpCasts()->getType()
                           ->getPointeeType(),
                       Handled);
    if (Handled) {
      if (V.Kind == Val::Unknown)
        return Val::unknown(Mod + By + ": " + V.Why);
      if (std::optional<Val> NotEvery = OnEveryPath(C))
        return *NotEvery;
      return V;
    }
  }
  if (K == C->getNumArgs() || !Def || inSystemHeader(SM, Def->getLocation()) ||
      K >= Def->getNumParams())
    return Val::unknown(Mod + By + ", whose definition the tool does not see");
  for (const Frame *F = &Own; F; F = F->Parent)
    if (F->F == Def)
      return Val::unknown(Mod + By + ", which is recursive");
  const ParmVarDecl *PV = Def->getParamDecl(K);
  if (ByAddress != PV->getType()->isPointerType())
    return Val::unknown(NotFollowed);
  if (std::optional<Val> NotEvery = OnEveryPath(C))
    return *NotEvery;
  if (Rel == 2)
    return Val::unknown(Mod + By + " (a part of it)");
  std::vector<const FieldDecl *> Want(Path.begin() + Chain.size(), Path.end());
  // Every use of the parameter in the callee: a read, a store of the
  // object or of one of its members, or something the tool does not follow.
  const auto &CP = parents(Def);
  std::vector<const DeclRefExpr *> Refs;
  if (ByAddress) {
    Refs = launcheval::refsTo(Def->getBody(), PV);
  } else {
    // A reference: only the uses that may modify it (mutation analysis).
    for (const Stmt *S : mutations(PV, Def))
      if (const auto *D = dyn_cast<DeclRefExpr>(S))
        Refs.push_back(D);
  }
  std::string In = " in " + Def->getNameAsString() + "()";
  const BinaryOperator *Store = nullptr;
  std::vector<const FieldDecl *> StoreChain;
  for (const DeclRefExpr *R : Refs) {
    const Stmt *O = R, *U = CP.lookup(R);
    while (U && isa<ParenExpr>(U))
      U = CP.lookup(O = U);
    std::vector<const FieldDecl *> Ch;
    const Stmt *T = nullptr;
    if (ByAddress) {
      // *p, p[0], p->f
      if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(U);
          !IC || IC->getCastKind() != CK_LValueToRValue)
        return Val::unknown(Mod + By + ": '" + PV->getNameAsString() +
                            "' is used" + In + " in a way the tool does not "
                            "follow (at " + where(R->getBeginLoc()) + ")");
      O = U;
      U = CP.lookup(U);
      while (U && isa<ParenExpr>(U))
        U = CP.lookup(O = U);
      if (const auto *D = dyn_cast_or_null<UnaryOperator>(U);
          D && D->getOpcode() == UO_Deref) {
        O = D;
      } else if (const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(U)) {
        Expr::EvalResult ER;
        if (A->getBase()->IgnoreParenImpCasts() != R ||
            !A->getIdx()->EvaluateAsInt(ER, Ctx) || ER.Val.getInt() != 0)
          return Val::unknown(Mod + By + ": '" + text(A) + "'" + In +
                              " is not the object passed");
        O = A;
      } else if (const auto *ME = dyn_cast_or_null<MemberExpr>(U);
                 ME && ME->isArrow() && isa<FieldDecl>(ME->getMemberDecl())) {
        Ch.push_back(cast<FieldDecl>(ME->getMemberDecl()));
        O = ME;
      } else {
        return Val::unknown(Mod + By + ": '" + PV->getNameAsString() +
                            "' is passed on or copied" + In + " (at " +
                            where(R->getBeginLoc()) + ")");
      }
    }
    memberChain(O, CP, Ch, T);
    if (overlap(Ch, Want) == 0)
      continue;
    const Stmt *X = T, *V = CP.lookup(T);
    while (V && isa<ParenExpr>(V))
      V = CP.lookup(X = V);
    if (onlyRead(V, X))
      continue; // a read
    const auto *B = dyn_cast_or_null<BinaryOperator>(V);
    if (!B || B->getOpcode() != BO_Assign || B->getLHS()->IgnoreParens() != X ||
        overlap(Ch, Want) == 2)
      return Val::unknown(Mod + By + ": '" + text(V ? V : T) + "'" + In +
                          " is not an assignment the tool follows");
    if (!Store || before(Store, B)) {
      Store = B;
      StoreChain = Ch;
    }
  }
  if (!Store) {
    Skip = true; // the callee does not write this member
    return Val();
  }
  // The last store must run on every path through the callee: a statement
  // of its body, with no return before it.
  const Stmt *Parent = CP.lookup(Store);
  while (Parent && isa<ExprWithCleanups>(Parent))
    Parent = CP.lookup(Parent);
  std::vector<const ReturnStmt *> Rets;
  collectReturnStmts(Def->getBody(), Rets);
  bool EarlyReturn = std::any_of(Rets.begin(), Rets.end(), [&](const ReturnStmt *R) {
    return before(R, Store);
  });
  if (Parent != Def->getBody() || EarlyReturn)
    return Val::unknown(Mod + By + ", which assigns it at " +
                        where(Store->getBeginLoc()) +
                        " only on some paths");
  auto Callee = std::make_unique<Frame>();
  Callee->F = Def;
  Callee->Call = C;
  Extra.push_back(std::make_unique<Frame>(Own.at(C)));
  Callee->Parent = Extra.back().get();
  Callee->At = Store;
  Extra.push_back(std::move(Callee));
  const Frame &CF = *Extra.back();
  std::vector<const FieldDecl *> Rest(Want.begin() + StoreChain.size(),
                                      Want.end());
  Val R = Rest.empty() ? eval(Store->getRHS(), CF)
                       : fieldOf(Store->getRHS(), Rest, CF);
  if (R.Kind == Val::Unknown)
    return Val::unknown(Mod + By + ", which stores '" +
                        text(Store->getRHS()) + "'" +
                        (R.Why.empty() ? "" : " (" + R.Why + ")"));
  QualType T = Path.empty() ? VD->getType() : Path.back()->getType();
  if (!isDim3Type(T))
    R = convert(R, T);
  R.How = "'" + VD->getNameAsString() + pathText(Path) + "' set by '" +
          text(C) + "' at " + where(C->getBeginLoc());
  return R;
}

namespace {
/// A call of a method on the object the caller runs on (`set_n(n)`,
/// `this->set_n(n)`), or null.
const CXXMemberCallExpr *thisCall(const Stmt *S) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(S);
  const Expr *O = MC ? MC->getImplicitObjectArgument() : nullptr;
  return O && isa<CXXThisExpr>(O->IgnoreParenImpCasts()) ? MC : nullptr;
}

/// Whether \p S mentions `this` other than to read or assign a member or to
/// call a method (it passes the object on: `init(this)`, `*this`).
bool thisEscapes(const Stmt *S, const DenseMap<const Stmt *, const Stmt *> &P) {
  if (!S || isa<LambdaExpr>(S))
    return S != nullptr;
  if (isa<CXXThisExpr>(S)) {
    const Stmt *Up = P.lookup(S);
    while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
      Up = P.lookup(Up);
    return !isa_and_nonnull<MemberExpr>(Up);
  }
  for (const Stmt *C : S->children())
    if (thisEscapes(C, P))
      return true;
  return false;
}
} // namespace

int LaunchEvaluator::Impl::mayStore(const CXXMethodDecl *M, const FieldDecl *F,
                                    unsigned D, std::string &Why) {
  if (M->isConst())
    return 0;
  const auto *MDef = dyn_cast_or_null<CXXMethodDecl>(M->getDefinition());
  if (!MDef || !MDef->getBody() || inSystemHeader(SM, MDef->getLocation()) ||
      M->isVirtual() || D >= 3) {
    Why = "'" + M->getNameAsString() + "()' is a method of the object the "
          "tool does not follow";
    return 2;
  }
  if (thisEscapes(MDef->getBody(), parents(MDef))) {
    Why = "the object is passed on in " + M->getNameAsString() + "()";
    return 2;
  }
  std::vector<const BinaryOperator *> Direct;
  collectMemberStores(MDef->getBody(), F, Direct);
  return std::max(Direct.empty() ? 0 : 1,
                  thisCallsMayStore(MDef->getBody(), F, D + 1, Why));
}

int LaunchEvaluator::Impl::thisCallsMayStore(const Stmt *S, const FieldDecl *F,
                                             unsigned D, std::string &Why) {
  int Out = 0;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
    if (!X || Out == 2 || isa<LambdaExpr>(X))
      return;
    if (const CXXMemberCallExpr *TC = thisCall(X))
      Out = std::max(Out, mayStore(TC->getMethodDecl(), F, D, Why));
    for (const Stmt *C : X->children())
      Walk(C);
  };
  Walk(S);
  return Out;
}

Val LaunchEvaluator::Impl::methodStore(const CXXMethodDecl *Def,
                                       const CallExpr *Call,
                                       const Expr *Object,
                                       const std::vector<const FieldDecl *> &Want,
                                       const Frame &Caller, unsigned Depth,
                                       bool &None,
                                       const CXXConstructExpr *Construct) {
  None = false;
  std::string In = " in " + Def->getNameAsString() + "()";
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body)
    return Val::unknown("the body of " + Def->getNameAsString() +
                        "() is not one the tool follows");
  for (const Frame *F = &Caller; F; F = F->Parent)
    if (F->F == Def)
      return Val::unknown(Def->getNameAsString() + "() is recursive");
  const FieldDecl *F = Want.front();
  if (thisEscapes(Body, parents(Def)))
    return Val::unknown("the object is passed on" + In);
  // The last statement of the body that stores the member: an assignment
  // or a call of a method of the object that stores it. A store anywhere
  // else (under a condition, in a loop) leaves the value unknown.
  const BinaryOperator *LastStore = nullptr;
  const CXXMemberCallExpr *LastCall = nullptr;
  for (const Stmt *S : Body->body()) {
    const Stmt *E = S;
    if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      E = W->getSubExpr();
    const BinaryOperator *B = nullptr;
    if (memberStore(E, B) == F) {
      if (B->getOpcode() != BO_Assign)
        return Val::unknown("'" + text(B) + "'" + In +
                            " is not an assignment the tool follows");
      LastStore = B;
      LastCall = nullptr;
      continue;
    }
    if (const CXXMemberCallExpr *TC = thisCall(E)) {
      std::string Why;
      int R = mayStore(TC->getMethodDecl(), F, Depth + 1, Why);
      if (R == 2)
        return Val::unknown(Why);
      if (R == 1) {
        LastCall = TC;
        LastStore = nullptr;
      }
      continue;
    }
    std::vector<const BinaryOperator *> Nested;
    collectMemberStores(S, F, Nested);
    if (!Nested.empty())
      return Val::unknown("'" + F->getNameAsString() + "' is assigned at " +
                          where(Nested.front()->getBeginLoc()) + In +
                          ", not on every path");
    std::string Why;
    int R = thisCallsMayStore(S, F, Depth + 1, Why);
    if (R == 2)
      return Val::unknown(Why);
    if (R == 1)
      return Val::unknown("'" + F->getNameAsString() + "' may be set at " +
                          where(S->getBeginLoc()) + In + ", not on every path");
  }
  if (!LastStore && !LastCall) {
    None = true;
    return Val();
  }
  const Stmt *Last = LastStore ? static_cast<const Stmt *>(LastStore) : LastCall;
  std::vector<const ReturnStmt *> Rets;
  collectReturnStmts(Body, Rets);
  if (llvm::any_of(Rets, [&](const ReturnStmt *R) { return before(R, Last); }))
    return Val::unknown("'" + F->getNameAsString() + "' is set at " +
                        where(Last->getBeginLoc()) + In +
                        " after a return, not on every path");
  auto Callee = std::make_unique<Frame>();
  Callee->F = Def;
  Callee->Call = Call;
  Callee->Construct = Construct;
  Callee->Parent = &Caller;
  Callee->Object = Object;
  Callee->At = Last;
  Extra.push_back(std::move(Callee));
  const Frame &CF = *Extra.back();
  if (LastCall) {
    const auto *Next = cast<CXXMethodDecl>(LastCall->getMethodDecl()->getDefinition());
    Extra.push_back(std::make_unique<Frame>(CF.at(LastCall)));
    return methodStore(Next, LastCall, LastCall->getImplicitObjectArgument(),
                       Want, *Extra.back(), Depth + 1, None);
  }
  std::vector<const FieldDecl *> Rest(Want.begin() + 1, Want.end());
  return Rest.empty() ? eval(LastStore->getRHS(), CF)
                      : fieldOf(LastStore->getRHS(), Rest, CF);
}

} // namespace cudal1
