//===- LaunchFlow.cpp - the value a host variable has at a point ----------===//
//
// A variable's value at a launch is its initial value followed by the
// assignments that run on every path to the launch, in order: statements of
// the blocks around the launch (`num_items = round_up(num_items);`,
// `block.x = 256;`) and of `if` branches whose condition is known. In a
// loop, the value at the launch's first run: modifications after the launch
// in the loop's body, or in a `for` increment, come later (a loop counter
// has its initial value). Any other modification before the launch (in an
// earlier loop, under an unknown condition, through a reference or its
// address) leaves the value unknown: a name in the spec.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include <functional>

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::Val;

namespace {
void mapParents(const Stmt *S, DenseMap<const Stmt *, const Stmt *> &M) {
  for (const Stmt *C : S->children())
    if (C) {
      M[C] = S;
      mapParents(C, M);
    }
}

/// \p E without parentheses and implicit nodes.
const Stmt *bare(const Stmt *S) {
  if (const auto *E = dyn_cast_or_null<Expr>(S))
    return E->IgnoreParenImpCasts();
  return S;
}

/// The dim3 component a member expression names: 0, 1, 2, or -1.
int component(const MemberExpr *M) {
  StringRef N = M->getMemberDecl()->getName();
  return N == "x" ? 0 : N == "y" ? 1 : N == "z" ? 2 : -1;
}
} // namespace

const DenseMap<const Stmt *, const Stmt *> &
LaunchEvaluator::Impl::parents(const FunctionDecl *F) {
  const Stmt *Body = F->getBody();
  auto It = Parents.find(Body);
  if (It != Parents.end())
    return It->second;
  DenseMap<const Stmt *, const Stmt *> &M = Parents[Body];
  if (Body)
    mapParents(Body, M);
  return M;
}

bool LaunchEvaluator::Impl::encloses(const Stmt *Outer, const Stmt *S,
                                     const FunctionDecl *F) {
  const auto &P = parents(F);
  for (const Stmt *Cur = S; Cur; Cur = P.lookup(Cur))
    if (Cur == Outer)
      return true;
  return false;
}

LaunchEvaluator::Impl::AssignEffect
LaunchEvaluator::Impl::classify(const VarDecl *VD, const Stmt *M,
                                const Frame &Own, const Stmt *At,
                                const Stmt *&Assign, std::string &Why) {
  const auto &P = parents(Own.F);
  std::string Name = "'" + VD->getNameAsString() + "'";
  Why = Name + " is modified at " + where(M->getBeginLoc());
  // The assignment: v = e, v op= e, ++v, v.x = e (dim3), v = dim3(...).
  const Stmt *Target = M, *Up = P.lookup(M);
  while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
    Up = P.lookup(Target = Up);
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Up))
    if (!ME->isArrow() && component(ME) >= 0)
      Up = P.lookup(Target = Up);
  Assign = nullptr;
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(Up)) {
    if (B->isAssignmentOp() && bare(B->getLHS()) == bare(Target))
      Assign = B;
  } else if (const auto *U = dyn_cast_or_null<UnaryOperator>(Up)) {
    if (U->isIncrementDecrementOp())
      Assign = U;
  } else if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Up)) {
    if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
        bare(OC->getArg(0)) == bare(Target))
      Assign = OC;
  }
  if (!Assign) {
    Why += " (not by an assignment the tool follows)";
    return AssignEffect::Unknown;
  }
  return everyPath(Assign, Own, At, Name, M, Why);
}

LaunchEvaluator::Impl::AssignEffect
LaunchEvaluator::Impl::everyPath(const Stmt *Assign, const Frame &Own,
                                 const Stmt *At, const std::string &Name,
                                 const Stmt *M, std::string &Why) {
  const auto &P = parents(Own.F);
  // Does every path to At run it?
  const Stmt *Node = Assign;
  for (const Stmt *Parent = P.lookup(Node); Parent;
       Node = Parent, Parent = P.lookup(Node)) {
    if (isa<ExprWithCleanups>(Parent) || isa<ParenExpr>(Parent) ||
        isa<ImplicitCastExpr>(Parent) || isa<CStyleCastExpr>(Parent) ||
        isa<UnaryOperator>(Parent))
      continue;
    // Parts that run whenever their statement runs: the initialiser of a
    // local declaration (`cudaError_t e = call(&v);`, error-check macros),
    // an argument of a call (`check(call(&v))`), the left operand of a
    // binary operator and both operands of one that is not && or ||
    // (`call(&v) != cudaSuccess`), the condition of an if, and the body of
    // a `do { ... } while (0)`.
    if (isa<DeclStmt>(Parent) || isa<CallExpr>(Parent))
      continue;
    if (const auto *B = dyn_cast<BinaryOperator>(Parent)) {
      if (Node == B->getLHS() || !B->isLogicalOp())
        continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(Parent); If && Node == If->getCond())
      continue;
    // A try block runs whenever its statement does (up to a throw; an
    // assignment in a handler is not followed, so a value a handler may
    // set instead stays unknown): `try { n = std::stoi(argv[1]); }`.
    if (const auto *T = dyn_cast<CXXTryStmt>(Parent);
        T && Node == T->getTryBlock())
      continue;
    if (const auto *Do = dyn_cast<DoStmt>(Parent); Do && Node == Do->getBody()) {
      Val C = convert(eval(Do->getCond(), Own.at(Do)), Ctx.BoolTy);
      if (C.Kind == Val::Int && C.I == 0)
        continue;
    }
    if (isa<CompoundStmt>(Parent)) {
      if (encloses(Parent, At, Own.F))
        return AssignEffect::Effective;
      continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(Parent)) {
      if (Node != If->getThen() && Node != If->getElse())
        break;
      if (If->getInit() || If->getConditionVariable() || If->isConsteval())
        break;
      Val C = convert(eval(If->getCond(), Own.at(If)), Ctx.BoolTy);
      if (C.Kind != Val::Int) {
        Why = Name + " is assigned at " + where(M->getBeginLoc()) +
              " under the condition '" + text(If->getCond()) +
              "', which is not known";
        return AssignEffect::Unknown;
      }
      bool Taken = (Node == If->getThen()) == (C.I != 0);
      if (!Taken)
        return AssignEffect::Skipped;
      continue;
    }
    Why = Name + " is assigned at " + where(M->getBeginLoc()) + ", inside a " +
          std::string(Parent->getStmtClassName()) +
          (isa<ForStmt>(Parent) || isa<WhileStmt>(Parent) ||
                   isa<DoStmt>(Parent) || isa<CXXForRangeStmt>(Parent)
               ? " (a loop) before the launch"
               : "");
    return AssignEffect::Unknown;
  }
  Why = Name + " is assigned at " + where(M->getBeginLoc()) +
        ", not on every path to the launch";
  return AssignEffect::Unknown;
}

Val LaunchEvaluator::Impl::applyAssignment(const VarDecl *VD,
                                           const Stmt *Assign,
                                           const Stmt *Target,
                                           const Frame &Own) {
  Frame Here = Own.at(Assign);
  QualType T = VD->getType();
  // The value before this assignment (compound forms and dim3 components).
  auto Before = [&] { return valueAt(VD, Own, Assign); };
  // A dim3 component (`block.x = 256`): the member around the reference.
  const auto &P = parents(Own.F);
  const Stmt *Up = P.lookup(Target);
  while (Up && (isa<ParenExpr>(Up) || isa<ImplicitCastExpr>(Up)))
    Up = P.lookup(Up);
  const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
  if (ME && (ME->isArrow() || component(ME) < 0))
    ME = nullptr;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Assign))
    return eval(OC->getArg(1), Here);
  if (const auto *U = dyn_cast<UnaryOperator>(Assign)) {
    BinaryOperatorKind Op = U->isIncrementOp() ? BO_Add : BO_Sub;
    if (ME)
      return Val::unknown("a dim3 component incremented at " +
                          where(U->getBeginLoc()));
    return convert(combine(Op, Before(), convert(Val::ofInt64(1), T), T, T, U),
                   T);
  }
  const auto *B = cast<BinaryOperator>(Assign);
  Val R = eval(B->getRHS(), Here);
  Val Old = B->getOpcode() == BO_Assign && !ME ? Val() : Before();
  Val New = R;
  if (B->getOpcode() != BO_Assign) {
    const auto *CA = cast<CompoundAssignOperator>(B);
    QualType CT = CA->getComputationResultType();
    Val Cur = ME ? (Old.Kind == Val::Dim ? Old.D[component(ME)] : Val())
                 : Old;
    New = combine(BinaryOperator::getOpForCompoundAssignment(B->getOpcode()),
                  convert(Cur, CA->getComputationLHSType()), R, CT,
                  CA->getComputationLHSType(), B);
  }
  if (!ME)
    return convert(New, T);
  if (Old.Kind != Val::Dim)
    return Old.Kind == Val::Unknown ? Old : Val::unknown("not a dim3");
  New = convert(New, Ctx.UnsignedIntTy);
  if (!New.isScalar() || New.Kind == Val::Float)
    return New.Kind == Val::Unknown ? New : Val::unknown("not an integer");
  Old.D[component(ME)] = New;
  return Old;
}

Val LaunchEvaluator::Impl::initialValue(const VarDecl *VD, const Frame &Own,
                                        const Stmt *At) {
  if (const auto *P = dyn_cast<ParmVarDecl>(VD))
    return evalParam(P, Own.at(At));
  const Expr *Init = VD->getInit();
  if (!Init)
    return root(VD, "'" + VD->getNameAsString() +
                        "' is declared without a value");
  // Its initialiser, evaluated where the variable is declared.
  Val V = convert(eval(Init, Own.at(Init)), VD->getType());
  if (V.Kind == Val::Unknown) {
    std::string T = text(Init);
    // Nothing to add when the reason only names the initialiser again; a
    // call's reason that says which argument is missing is kept.
    std::string Call = "the result of '" + T + "' (";
    if (StringRef(V.Why).starts_with(Call))
      return root(VD, "initialised from '" + T + "' (" +
                          V.Why.substr(Call.size()));
    bool Says = V.Why.empty() || V.Why.find("'" + T + "'") != std::string::npos;
    return root(VD, "initialised from '" + T + "'" +
                        (Says ? "" : " (" + V.Why + ")"));
  }
  return V;
}

const Stmt *LaunchEvaluator::Impl::loopBefore(const Stmt *M, const Stmt *At,
                                              const FunctionDecl *F) {
  if (!At)
    return nullptr;
  const auto &P = parents(F);
  const Stmt *Outer = nullptr;
  for (const Stmt *S = P.lookup(M); S; S = P.lookup(S)) {
    if (!(isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)))
      continue;
    if (encloses(S, At, F))
      break;
    Outer = S;
  }
  return Outer;
}

Val LaunchEvaluator::Impl::middleIteration(const VarDecl *VD,
                                           const Frame &Own, const Stmt *At) {
  if (!At || !Own.F)
    return Val::unknown("");
  auto IsVD = [&](const Expr *E) {
    const auto *D = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts())
                      : nullptr;
    return D && D->getDecl()->getCanonicalDecl() == VD->getCanonicalDecl();
  };
  // The variables \p S reads.
  auto VarsIn = [](const Stmt *S) {
    std::vector<const VarDecl *> Out;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
      if (!X)
        return;
      if (const auto *D = dyn_cast<DeclRefExpr>(X))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          Out.push_back(V);
      for (const Stmt *Ch : X->children())
        Walk(Ch);
    };
    Walk(S);
    return Out;
  };
  // The launch sees the same values at every iteration of the loop but
  // the counter's when the counter changes only by the loop itself and the
  // other values the launch reads do not change in \p Body (`p -= n`
  // beside the counter: the first run's values would not match the middle
  // iteration's counter). Empty when so; else why not.
  auto ChangesInLoop = [&](const Stmt *Body) -> std::string {
    for (const Stmt *M : mutations(VD, Own.F))
      if (encloses(Body, M, Own.F))
        return "it is changed at " + where(M->getBeginLoc());
    for (const VarDecl *LV : VarsIn(At))
      if (LV != VD)
        for (const Stmt *M : mutations(LV, Own.F))
          if (encloses(Body, M, Own.F))
            return "'" + LV->getNameAsString() + "', which the launch reads, changes at " +
                   where(M->getBeginLoc());
    return "";
  };
  // A condition on the counter between \p Loop and the launch (`if (i ==
  // 0)`, `if (i % 2)`): the launch need not run at a given iteration.
  // Empty when none; else the condition.
  auto CounterCondition = [&](const Stmt *Loop) -> std::string {
    const auto &Par = parents(Own.F);
    for (const Stmt *X = Par.lookup(At); X && X != Loop; X = Par.lookup(X))
      if (const auto *If = dyn_cast<IfStmt>(X);
          If && !launcheval::refsTo(If->getCond(), VD).empty())
        return "the launch runs only when '" + text(If->getCond()) + "'";
    return "";
  };
  for (const Stmt *L : loopsAround(At, Own.F)) {
    // `for (int bs : {64, 128, 256})`, or over a local array of constants
    // no statement changes: the middle value.
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(L)) {
      if (!RF->getLoopVariable() ||
          RF->getLoopVariable()->getCanonicalDecl() != VD->getCanonicalDecl())
        continue;
      const Expr *R = RF->getRangeInit() ? RF->getRangeInit()->IgnoreImplicit()
                                         : nullptr;
      if (const auto *SIL = dyn_cast_or_null<CXXStdInitializerListExpr>(R))
        R = SIL->getSubExpr()->IgnoreImplicit();
      // Its reasons are the variable's own (its initialiser, `*__begin1`,
      // says nothing to a reader).
      std::string Loop = "the loop at " + where(RF->getBeginLoc());
      const auto *IL = dyn_cast_or_null<InitListExpr>(R);
      if (const auto *D = R ? dyn_cast<DeclRefExpr>(R->IgnoreParens()) : nullptr) {
        const auto *AV = dyn_cast<VarDecl>(D->getDecl());
        if (!AV || !AV->getType()->isConstantArrayType() || !AV->getInit())
          return root(VD, Loop + " ranges over '" + text(R) +
                              "', not a list or an array of constants");
        if (const std::vector<const Stmt *> &Ms = mutations(AV, Own.F); !Ms.empty())
          return root(VD, Loop + " ranges over '" + AV->getNameAsString() +
                              "', which is changed at " + where(Ms.front()->getBeginLoc()));
        IL = dyn_cast<InitListExpr>(AV->getInit()->IgnoreImplicit());
      }
      if (!IL || IL->getNumInits() == 0)
        return root(VD, Loop + " ranges over '" + (R ? text(R) : std::string()) +
                            "', not a list or an array of constants");
      std::string Why = ChangesInLoop(RF->getBody());
      if (Why.empty())
        Why = CounterCondition(RF);
      if (!Why.empty())
        return root(VD, Loop + " sets it, but " + Why);
      std::vector<int64_t> Vs;
      PathMark Mk = mark();
      for (const Expr *E : IL->inits()) {
        Val X = eval(E, Own.at(RF));
        std::optional<int64_t> XV =
            X.Kind == Val::Int ? X.I.tryExtValue() : std::nullopt;
        if (!XV) {
          restore(Mk);
          return root(VD, Loop + ": its value '" + text(E) + "' is not a known integer");
        }
        Vs.push_back(*XV);
      }
      size_t N = Vs.size();
      Val V = convert(Val::ofInt64(Vs[N / 2]), VD->getType());
      V.How = N == 1 ? "the one value of " + Loop
                     : "the middle of the " + std::to_string(N) + " values of " +
                           Loop +
                           " (first " + std::to_string(Vs.front()) + ", last " +
                           std::to_string(Vs.back()) + ")";
      return V;
    }
    const auto *For = dyn_cast<ForStmt>(L);
    if (!For || !For->getCond() || !For->getInc() || !For->getInit())
      continue;
    // The start: `T v = A` or `v = A`.
    const Expr *Start = nullptr;
    if (const auto *DS = dyn_cast<DeclStmt>(For->getInit())) {
      if (DS->isSingleDecl() && DS->getSingleDecl() == VD)
        Start = VD->getInit();
    } else if (const auto *BO = dyn_cast<BinaryOperator>(For->getInit());
               BO && BO->getOpcode() == BO_Assign && IsVD(BO->getLHS())) {
      Start = BO->getRHS();
    }
    if (!Start)
      continue;
    // The step.
    int64_t Step = 0;
    const Expr *Inc = cast<Expr>(For->getInc())->IgnoreParens();
    if (const auto *U = dyn_cast<UnaryOperator>(Inc);
        U && U->isIncrementDecrementOp() && IsVD(U->getSubExpr())) {
      Step = U->isIncrementOp() ? 1 : -1;
    } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Inc);
               CA && IsVD(CA->getLHS()) &&
               (CA->getOpcode() == BO_AddAssign ||
                CA->getOpcode() == BO_SubAssign)) {
      Expr::EvalResult R;
      if (CA->getRHS()->isValueDependent() ||
          !CA->getRHS()->EvaluateAsInt(R, Ctx))
        return Val::unknown("");
      std::optional<int64_t> SV = R.Val.getInt().tryExtValue();
      if (!SV || *SV > (int64_t(1) << 40) || *SV < -(int64_t(1) << 40))
        return Val::unknown("");
      Step = *SV;
      if (CA->getOpcode() == BO_SubAssign)
        Step = -Step;
    }
    if (Step == 0)
      return Val::unknown("");
    // The test: v < B, v <= B, v > B, v >= B (or B > v ...).
    const auto *C = dyn_cast<BinaryOperator>(For->getCond()->IgnoreParens());
    if (!C)
      return Val::unknown("");
    BinaryOperatorKind Op = C->getOpcode();
    const Expr *Bound = nullptr;
    if (IsVD(C->getLHS())) {
      Bound = C->getRHS();
    } else if (IsVD(C->getRHS())) {
      Bound = C->getLHS();
      Op = Op == BO_LT   ? BO_GT
           : Op == BO_GT ? BO_LT
           : Op == BO_LE ? BO_GE
           : Op == BO_GE ? BO_LE
                         : Op;
    }
    if (!Bound || !(Op == BO_LT || Op == BO_LE || Op == BO_GT || Op == BO_GE))
      return Val::unknown("");
    if ((Step > 0) != (Op == BO_LT || Op == BO_LE))
      return Val::unknown("");
    // The bound's variables not changed in the loop.
    for (const VarDecl *BV : VarsIn(Bound))
      for (const Stmt *M : mutations(BV, Own.F))
        if (encloses(For, M, Own.F))
          return Val::unknown("");
    // When the launch does not see the same values at every iteration, it
    // takes the first run's, the counter's too. Under a condition on the
    // counter alone the first run need not launch: the first run's value
    // of the counter as the evaluator finds it (its declaration's).
    std::string Why = ChangesInLoop(For->getBody());
    if (Why.empty() && !CounterCondition(For).empty())
      return Val::unknown("");
    PathMark Mk = mark();
    Val A = convert(eval(Start, Own.at(For)), VD->getType());
    Val B = eval(Bound, Own.at(For));
    if (A.Kind != Val::Int || B.Kind != Val::Int) {
      restore(Mk);
      return Val::unknown("");
    }
    std::optional<int64_t> AO = A.I.tryExtValue(), BO = B.I.tryExtValue();
    if (!AO || !BO || *AO > (int64_t(1) << 40) || *AO < -(int64_t(1) << 40) ||
        *BO > (int64_t(1) << 40) || *BO < -(int64_t(1) << 40))
      return Val::unknown("");
    int64_t AV = *AO, BVal = *BO;
    int64_t Span = Step > 0 ? BVal - AV : AV - BVal;
    int64_t S = Step > 0 ? Step : -Step;
    bool Incl = Op == BO_LE || Op == BO_GE;
    int64_t N = Span < 0 || (Span == 0 && !Incl)
                    ? 0
                    : (Incl ? Span / S + 1 : (Span + S - 1) / S);
    if (!Why.empty()) {
      if (N < 1)
        return Val::unknown("");
      Val V = A;
      V.How = "the first of the " + std::to_string(N) +
              " iterations of the loop at " + where(For->getBeginLoc()) +
              " (" + Why + ": the launch takes the first run's values)";
      return V;
    }
    if (N < 3)
      return Val::unknown("");
    int64_t Mid = AV + Step * (N / 2);
    Val V = convert(Val::ofInt64(Mid), VD->getType());
    V.How = "the middle of the " + std::to_string(N) +
            " iterations of the loop at " + where(For->getBeginLoc()) +
            " (first " + std::to_string(AV) + ", last " +
            std::to_string(AV + Step * (N - 1)) + ")";
    return V;
  }
  return Val::unknown("");
}

LaunchEvaluator::Impl::AssignEffect LaunchEvaluator::Impl::loopBeforeValue(
    const Stmt *M, const Stmt *At, const VarDecl *VD, const Frame &Own,
    const std::vector<const FieldDecl *> *Path, Val &Out,
    std::string &LoopWhy) {
  const Stmt *L = loopBefore(M, At, Own.F);
  if (!L)
    return AssignEffect::Unknown;
  std::string LWhy;
  AssignEffect E = everyPath(L, Own, At, "'" + VD->getNameAsString() + "'",
                             M, LWhy);
  if (E != AssignEffect::Effective || !St || St->Depth >= 40)
    return E == AssignEffect::Skipped ? E : AssignEffect::Unknown;
  PathMark PM = mark();
  Val V = interpretLoop(L, VD, Own, Path);
  bool Known = V.isNum();
  if (V.Kind == Val::Dim && V.D.size() == 3) // a dim3 the loop sets
    Known = V.D[0].isNum() && V.D[1].isNum() && V.D[2].isNum();
  if (!Known) {
    restore(PM);
    LoopWhy = V.Why;
    return AssignEffect::Unknown;
  }
  V.How = "after the loop at " + where(L->getBeginLoc()) + ", run by the tool";
  Out = V;
  return AssignEffect::Effective;
}

Val LaunchEvaluator::Impl::valueAt(const VarDecl *VD, const Frame &Own,
                                   const Stmt *At) {
  // A range-based for's variable has only the loop's values (its reason
  // when they are not known).
  if (Val M = middleIteration(VD, Own, At); M.isNum() || !M.Why.empty())
    return M;
  // The value at the first run of At: modifications later in a loop around
  // it (after it in the body, or in a `for` increment) come after.
  const std::vector<const Stmt *> &Ms = mutations(VD, Own.F);
  std::string LoopWhy; // why the loop holding a modification did not run
  for (auto It = Ms.rbegin(); It != Ms.rend(); ++It) {
    if (At && (!before(*It, At) || afterFirstRun(*It, At, Own.F)))
      continue;
    LoopWhy.clear();
    // Modified in a loop that ends before At (`while (n % 32) n++;`).
    Val V;
    switch (loopBeforeValue(*It, At, VD, Own, nullptr, V, LoopWhy)) {
    case AssignEffect::Skipped:
      continue;
    case AssignEffect::Effective:
      return V;
    case AssignEffect::Unknown:
      break;
    }
    const Stmt *Assign = nullptr;
    std::string Why;
    switch (classify(VD, *It, Own, At, Assign, Why)) {
    case AssignEffect::Skipped:
      continue;
    case AssignEffect::Unknown:
      if (!Assign) {
        // Given to a call by address or reference: what it stores.
        bool Skip = false;
        Val V = storedByCall(*It, VD, {}, Own, At, Skip);
        if (Skip)
          continue;
        if (V.Kind != Val::Unknown)
          return V;
        return root(VD, V.Why);
      }
      if (!LoopWhy.empty())
        Why += " (run by the tool, it stopped: " + LoopWhy + ")";
      return root(VD, Why);
    case AssignEffect::Effective: {
      Val V = applyAssignment(VD, Assign, *It, Own);
      if (V.Kind == Val::Unknown)
        return root(VD, "assigned at " + where(Assign->getBeginLoc()) +
                            " from '" + text(Assign) + "'" +
                            (V.Why.empty() ? "" : " (" + V.Why + ")"));
      return V;
    }
    }
  }
  return initialValue(VD, Own, At);
}

} // namespace cudal1
