//===- LaunchInterp.cpp - host code run with known values ------------------===//
//
// The evaluator follows values symbolically; this file runs host code with
// concrete numbers where that is the only way to know a value:
//   - helper functions with loops and branches, called with known
//     arguments (`PowTwoDivider(height)`, `roundToPowerOf2(n)`,
//     `isPowerOf2(len)`);
//   - a loop before the launch that modifies a value the launch needs
//     (`while ((nnodes & 31) != 0) nnodes++;`), run from the values its
//     variables have before it.
// Only scalar locals, arithmetic, comparisons, assignments, if/while/do/for,
// break/continue/return and calls of such helpers (or of library math and
// min/max/abs) are run; anything else (memory, pointers, library calls with
// effects) stops the run and the value stays unknown, as before. At most
// kMaxSteps expression evaluations per run.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include "clang/AST/Expr.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <functional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::Val;

namespace {

constexpr unsigned kMaxSteps = 200000;
constexpr unsigned kMaxCallDepth = 8;

bool scalar(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isIntegralOrEnumerationType() || T->isRealFloatingType() ||
         T->isBooleanType();
}

struct HostInterp {
  LaunchEvaluator::Impl &I;
  /// The value of a variable the code reads but does not declare.
  std::function<Val(const VarDecl *)> Outside;
  /// The frame of the function the code is in (loops before a launch):
  /// program arguments read there (`atoi(argv[1])`) are known through it.
  const Frame *Fr = nullptr;
  std::map<const VarDecl *, Val> Env;
  std::set<const VarDecl *> Declared; ///< declared here (maybe no value yet)
  unsigned *Steps;
  unsigned Depth = 0;
  /// A helper's run: it may store only to its own parameters and locals
  /// (a store to a global would be lost when the run ends).
  bool OwnStoresOnly = false;
  bool Failed = false;
  std::string Why;
  Val Ret;
  enum class Flow { Next, Return, Break, Continue, Fail };

  HostInterp(LaunchEvaluator::Impl &I, unsigned *Steps) : I(I), Steps(Steps) {}

  Val fail(const std::string &W) {
    if (!Failed) {
      Failed = true;
      Why = W;
    }
    return Val::unknown(Why);
  }
  bool truth(const Val &V, bool &Ok) {
    Val B = I.convert(V, I.Ctx.BoolTy);
    Ok = B.Kind == Val::Int;
    return Ok && B.I != 0;
  }
  Val number(Val V, const Expr *E) {
    if (!V.isNum())
      return fail("'" + I.text(E) + "'" +
                  (V.Why.empty() ? " is not a known number" : ": " + V.Why));
    return V;
  }

  const VarDecl *target(const Expr *LHS) {
    const auto *D = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
    const auto *VD = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!VD || !scalar(VD->getType()) || VD->getType()->isReferenceType())
      return nullptr;
    return VD;
  }
  /// The current value of \p VD (read from outside on first use).
  Val read(const VarDecl *VD, const Expr *Use) {
    auto It = Env.find(VD);
    if (It != Env.end())
      return It->second;
    if (Declared.count(VD))
      return fail("'" + VD->getNameAsString() + "' is read before a value");
    Val V = Outside ? Outside(VD) : Val::unknown("");
    if (!V.isNum())
      return fail("'" + I.text(Use) + "'" +
                  (V.Why.empty() ? " is not known" : ": " + V.Why));
    Env[VD] = V;
    return V;
  }
  Val store(const VarDecl *VD, Val V) {
    if (OwnStoresOnly && !Declared.count(VD))
      return fail("it modifies '" + VD->getNameAsString() +
                  "', which is not its own");
    V = I.convert(V, VD->getType());
    if (!V.isNum())
      return fail("a value stored to '" + VD->getNameAsString() +
                  "' is not a number");
    Env[VD] = V;
    return V;
  }

  Val value(const Expr *E) {
    if (Failed)
      return Val::unknown(Why);
    if (++*Steps > kMaxSteps)
      return fail("more than " + std::to_string(kMaxSteps) +
                  " steps to run");
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ConstantExpr>(E))
      return value(C->getSubExpr());
    if (const auto *W = dyn_cast<ExprWithCleanups>(E))
      return value(W->getSubExpr());
    if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
        isa<FloatingLiteral>(E) || isa<CXXBoolLiteralExpr>(E) ||
        isa<UnaryExprOrTypeTraitExpr>(E))
      return number(I.evalClang(E), E);
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *VD = dyn_cast<VarDecl>(D->getDecl()))
        if (scalar(VD->getType()))
          return read(VD, E);
      return number(I.evalClang(E), E);
    }
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (!scalar(E->getType()) || !scalar(C->getSubExpr()->getType()))
        return fail("'" + I.text(E) + "' is not a number");
      return number(I.convert(value(C->getSubExpr()), E->getType()), E);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      return unary(U);
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return binary(B);
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      bool Ok = false;
      bool T = truth(value(C->getCond()), Ok);
      if (!Ok)
        return fail("the condition of '" + I.text(E) + "'");
      return I.convert(value(T ? C->getTrueExpr() : C->getFalseExpr()),
                       E->getType());
    }
    if (const auto *C = dyn_cast<CallExpr>(E))
      return call(C);
    if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
      return value(D->getExpr());
    // A constant the compiler folds (enumerators, constexpr).
    Val K = I.evalClang(E);
    if (K.isNum())
      return K;
    return fail("'" + I.text(E) + "' is not run by the tool");
  }

  Val unary(const UnaryOperator *U) {
    UnaryOperatorKind Op = U->getOpcode();
    if (U->isIncrementDecrementOp()) {
      const VarDecl *VD = target(U->getSubExpr());
      if (!VD)
        return fail("'" + I.text(U) + "' modifies memory");
      Val Old = read(VD, U);
      if (Failed)
        return Val::unknown(Why);
      QualType T = VD->getType();
      Val New = I.arith(U->isIncrementOp() ? BO_Add : BO_Sub, Old,
                        Val::ofInt64(1), T, T);
      New = store(VD, New);
      return U->isPrefix() ? New : Old;
    }
    Val V = value(U->getSubExpr());
    if (Failed)
      return V;
    switch (Op) {
    case UO_Plus:
      return I.convert(V, U->getType());
    case UO_Minus:
      return I.arith(BO_Sub, Val::ofInt64(0), V, U->getType(), U->getType());
    case UO_Not:
      V = I.convert(V, U->getType());
      if (V.Kind == Val::Int)
        return Val::ofInt(APSInt(~V.I, V.I.isUnsigned()));
      break;
    case UO_LNot: {
      bool Ok = false;
      bool T = truth(V, Ok);
      if (Ok)
        return I.convert(Val::ofInt64(T ? 0 : 1), U->getType());
      break;
    }
    default:
      break;
    }
    return fail("'" + I.text(U) + "' is not run by the tool");
  }

  Val binary(const BinaryOperator *B) {
    BinaryOperatorKind Op = B->getOpcode();
    if (Op == BO_Comma) {
      value(B->getLHS());
      return value(B->getRHS());
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      bool Ok = false;
      bool L = truth(value(B->getLHS()), Ok);
      if (!Ok)
        return fail("'" + I.text(B->getLHS()) + "' is not known");
      if (L == (Op == BO_LOr))
        return I.convert(Val::ofInt64(L), B->getType());
      bool R = truth(value(B->getRHS()), Ok);
      if (!Ok)
        return fail("'" + I.text(B->getRHS()) + "' is not known");
      return I.convert(Val::ofInt64(R), B->getType());
    }
    if (B->isAssignmentOp()) {
      const VarDecl *VD = target(B->getLHS());
      if (!VD)
        return fail("'" + I.text(B) + "' stores to memory");
      Val R = value(B->getRHS());
      if (Failed)
        return R;
      if (Op == BO_Assign)
        return store(VD, R);
      const auto *CA = cast<CompoundAssignOperator>(B);
      Val L = read(VD, B->getLHS());
      if (Failed)
        return L;
      Val N = I.arith(BinaryOperator::getOpForCompoundAssignment(Op),
                      I.convert(L, CA->getComputationLHSType()), R,
                      CA->getComputationResultType(),
                      CA->getComputationLHSType());
      return store(VD, number(N, B));
    }
    Val L = value(B->getLHS());
    Val R = value(B->getRHS());
    if (Failed)
      return Val::unknown(Why);
    return number(I.arith(Op, L, R, B->getType(), B->getLHS()->getType()), B);
  }

  /// A string the code being run names: a string literal, or a program
  /// argument `argv[k]` (main's argv, with --program-args) whose index it
  /// computes. Nothing otherwise.
  std::optional<std::string> argString(const Expr *E) {
    if (const auto *SL =
            dyn_cast<clang::StringLiteral>(E->IgnoreParenImpCasts()))
      return SL->isOrdinary() ? std::optional<std::string>(SL->getString().str())
                              : std::nullopt;
    if (!Fr)
      return std::nullopt;
    std::string Unused;
    std::function<Val(const Expr *)> Index = [&](const Expr *X) {
      return value(X);
    };
    return I.programArg(E, *Fr, Unused, &Index);
  }

  Val call(const CallExpr *C) {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || isa<CXXMethodDecl>(FD))
      return fail("the result of '" + I.text(C) + "'");
    StringRef Name = FD->getIdentifier() ? FD->getName() : "";
    // Library math, min/max/abs: as the evaluator does, on values run here.
    if (!Name.empty()) {
      bool Handled = false;
      Val V = I.evalMath(
          Name, C, [&](unsigned K) { return value(C->getArg(K)); }, Handled);
      if (Handled)
        return Failed ? Val::unknown(Why) : number(V, C);
    }
    // Program arguments indexed by the code being run (`for (i = 1; i <
    // argc; ++i) if (!strcmp(argv[i], "--grid")) n = atoi(argv[++i]);`):
    // strcmp/strncmp of them and string literals, and the conversions.
    // Each argument is read once: an index may have effects (argv[++i]).
    if (Fr && !Name.empty() && I.ProgramArgs && C->getNumArgs() >= 1) {
      auto ArgVal = [&](unsigned K) { return value(C->getArg(K)); };
      std::optional<std::string> A = argString(C->getArg(0));
      std::optional<std::string> B;
      if (A && C->getNumArgs() >= 2)
        B = argString(C->getArg(1));
      if (Failed)
        return Val::unknown(Why);
      bool Handled = false;
      if (A && B) {
        std::optional<int64_t> R =
            I.compareStrings(Name, C, *A, *B, ArgVal, Handled);
        if (Handled)
          return R ? number(Val::ofInt64(*R), C)
                   : fail("the result of '" + I.text(C) + "'");
      }
      if (A) {
        Val V = I.convertArgString(Name, C, *A, ArgVal, Handled);
        if (Handled)
          return V.isNum() ? number(V, C)
                           : fail(V.Why.empty() ? "the result of '" +
                                                      I.text(C) + "'"
                                                : V.Why);
      }
    }
    std::vector<Val> Args;
    for (const Expr *A : C->arguments()) {
      if (!scalar(A->getType()))
        return fail("'" + I.text(C) + "' takes a value that is not a number");
      Args.push_back(value(A));
      if (Failed)
        return Val::unknown(Why);
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody() || inSystemHeader(I.SM, Def->getLocation()))
      return fail("the result of '" + I.text(C) + "'");
    Val V = I.interpretCall(Def, Args, Depth + 1, Steps);
    if (!V.isNum())
      return fail(V.Why.empty() ? "the result of '" + I.text(C) + "'"
                                : V.Why);
    return V;
  }

  Flow run(const Stmt *S) {
    if (Failed)
      return Flow::Fail;
    if (!S)
      return Flow::Next;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *B : CS->body()) {
        Flow F = run(B);
        if (F != Flow::Next)
          return F;
      }
      return Flow::Next;
    }
    if (isa<NullStmt>(S))
      return Flow::Next;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !scalar(VD->getType()) || VD->getType()->isReferenceType() ||
            VD->isStaticLocal()) {
          fail("a declaration the tool does not run at " +
               I.where(D->getLocation()));
          return Flow::Fail;
        }
        Declared.insert(VD);
        Env.erase(VD);
        if (const Expr *Init = VD->getInit()) {
          store(VD, value(Init));
          if (Failed)
            return Flow::Fail;
        }
      }
      return Flow::Next;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      value(E);
      return Failed ? Flow::Fail : Flow::Next;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (If->getConditionVariable() || If->isConsteval())
        return failFlow(S);
      if (If->getInit() && run(If->getInit()) == Flow::Fail)
        return Flow::Fail;
      bool Ok = false;
      bool T = truth(value(If->getCond()), Ok);
      if (!Ok) {
        fail("the condition '" + I.text(If->getCond()) + "' is not known");
        return Flow::Fail;
      }
      return run(T ? If->getThen() : If->getElse());
    }
    if (const auto *W = dyn_cast<WhileStmt>(S)) {
      if (W->getConditionVariable())
        return failFlow(S);
      return loop(nullptr, W->getCond(), nullptr, W->getBody(), false);
    }
    if (const auto *D = dyn_cast<DoStmt>(S))
      return loop(nullptr, D->getCond(), nullptr, D->getBody(), true);
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      if (F->getConditionVariable())
        return failFlow(S);
      return loop(F->getInit(), F->getCond(), F->getInc(), F->getBody(), false);
    }
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      if (!R->getRetValue() || !scalar(R->getRetValue()->getType()))
        return failFlow(S);
      Ret = value(R->getRetValue());
      return Failed ? Flow::Fail : Flow::Return;
    }
    if (isa<BreakStmt>(S))
      return Flow::Break;
    if (isa<ContinueStmt>(S))
      return Flow::Continue;
    return failFlow(S);
  }
  Flow failFlow(const Stmt *S) {
    fail("'" + std::string(S->getStmtClassName()) + "' at " +
         I.where(S->getBeginLoc()) + " is not run by the tool");
    return Flow::Fail;
  }
  Flow loop(const Stmt *Init, const Expr *Cond, const Expr *Inc,
            const Stmt *Body, bool BodyFirst) {
    if (Init && run(Init) == Flow::Fail)
      return Flow::Fail;
    for (bool First = true;; First = false) {
      if (!(BodyFirst && First) && Cond) {
        bool Ok = false;
        bool T = truth(value(Cond), Ok);
        if (!Ok) {
          fail("the loop condition '" + I.text(Cond) + "' is not known");
          return Flow::Fail;
        }
        if (!T)
          return Flow::Next;
      }
      Flow F = run(Body);
      if (F == Flow::Fail || F == Flow::Return)
        return F;
      if (F == Flow::Break)
        return Flow::Next;
      if (Inc) {
        value(Inc);
        if (Failed)
          return Flow::Fail;
      }
      if (Failed)
        return Flow::Fail;
    }
  }
};

} // namespace

Val LaunchEvaluator::Impl::interpretCall(const FunctionDecl *FD,
                                         const std::vector<Val> &Args,
                                         unsigned Depth, unsigned *Steps) {
  unsigned Local = 0;
  if (!Steps)
    Steps = &Local;
  if (Depth > kMaxCallDepth)
    return Val::unknown("calls nested more than " +
                        std::to_string(kMaxCallDepth) + " deep");
  if (!scalar(FD->getReturnType()) || Args.size() != FD->getNumParams())
    return Val::unknown("the result of " + FD->getNameAsString() + "()");
  HostInterp H(*this, Steps);
  H.Depth = Depth;
  H.OwnStoresOnly = true;
  for (unsigned K = 0; K < Args.size(); ++K) {
    const ParmVarDecl *P = FD->getParamDecl(K);
    if (!scalar(P->getType()) || P->getType()->isReferenceType())
      return Val::unknown("a parameter of " + FD->getNameAsString() +
                          "() is not a number");
    H.Declared.insert(P);
    H.store(P, Args[K]);
  }
  // Globals it reads: their constant values.
  H.Outside = [this](const VarDecl *VD) {
    if (!VD->hasGlobalStorage() || VD->isStaticLocal())
      return Val::unknown("");
    PathMark M = mark();
    Val V = evalGlobal(VD);
    if (!V.isNum())
      restore(M);
    return V;
  };
  HostInterp::Flow F = H.run(FD->getBody());
  if (F == HostInterp::Flow::Return && H.Ret.isNum())
    return convert(H.Ret, FD->getReturnType());
  std::string Why = H.Failed ? H.Why : "it ends without returning a value";
  return Val::unknown(FD->getNameAsString() + "() run with the values given: " +
                      Why);
}

Val LaunchEvaluator::Impl::interpretLoop(const Stmt *Loop, const VarDecl *VD,
                                         const Frame &Own) {
  unsigned Steps = 0;
  HostInterp H(*this, &Steps);
  Frame Here = Own.at(Loop);
  H.Fr = &Here;
  // Variables declared before the loop: their values when it starts.
  H.Outside = [&](const VarDecl *V) {
    PathMark M = mark();
    Val R = V->hasGlobalStorage() && !V->isStaticLocal() ? evalGlobal(V)
                                                         : valueAt(V, Own, Loop);
    if (!R.isNum())
      restore(M);
    return R;
  };
  HostInterp::Flow F = H.run(Loop);
  if (F != HostInterp::Flow::Next)
    return Val::unknown(H.Failed ? H.Why : "the loop leaves its function");
  auto It = H.Env.find(VD);
  if (It != H.Env.end())
    return It->second;
  return H.Outside(VD);
}

LaunchEvaluator::Impl::PathMark LaunchEvaluator::Impl::mark() const {
  PathMark M;
  if (St) {
    M.Unknowns = St->Unknowns.size();
    M.Names = St->Names;
    M.Used = St->Used;
  }
  return M;
}

void LaunchEvaluator::Impl::restore(const PathMark &M) {
  if (!St)
    return;
  St->Unknowns.resize(M.Unknowns);
  St->Names = M.Names;
  St->Used = M.Used;
}

} // namespace cudal1
