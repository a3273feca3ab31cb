//===- AlgebraicChecks.cpp - arithmetic and control-flow checks -----------===//
//
// Finding-only checks on the AST of device code: double promotion, pow with
// small constant exponents, division by loop-invariant values and by powers
// of two, and interleaved (tid % (2*s)) reductions.
//
//===----------------------------------------------------------------------===//
#include "CheckUtil.h"
#include "cudal1/Analysis/Rule.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include <cmath>
#include <functional>

using namespace clang;
using namespace llvm;

namespace cudal1 {
namespace {

bool isFloat32(QualType T) {
  const auto *BT = T.getCanonicalType()->getAs<BuiltinType>();
  return BT && BT->getKind() == BuiltinType::Float;
}
bool isDouble(QualType T) {
  const auto *BT = T.getCanonicalType()->getAs<BuiltinType>();
  return BT && BT->getKind() == BuiltinType::Double;
}

/// float -> double implicit conversion.
bool isFloatPromotion(const Expr *E) {
  const auto *ICE = dyn_cast<ImplicitCastExpr>(E->IgnoreParens());
  // (double)x is written on purpose: clang marks its implicit part.
  return ICE && !ICE->isPartOfExplicitCast() &&
         ICE->getCastKind() == CK_FloatingCast &&
         isDouble(ICE->getType()) && isFloat32(ICE->getSubExpr()->getType());
}

const FloatingLiteral *doubleLiteral(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->getOpcode() == UO_Minus || UO->getOpcode() == UO_Plus)
      E = UO->getSubExpr()->IgnoreParens();
  const auto *FL = dyn_cast<FloatingLiteral>(E);
  return FL && isDouble(FL->getType()) ? FL : nullptr;
}

bool containsFloatPromotion(const Expr *E, unsigned D = 0) {
  if (!E || D > 12)
    return false;
  if (isFloatPromotion(E))
    return true;
  if (isa<CallExpr>(E))
    return false;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (containsFloatPromotion(CE, D + 1))
        return true;
  return false;
}

// --- double literals -------------------------------------------------------------

class DoubleLiteralCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("algebraic-double-literal",
                "double-precision literal that promotes float arithmetic to "
                "double",
                "In C++ '0.5' is a double. 'x * 0.5' with a float x converts "
                "x to double, multiplies in FP64 and converts back: two "
                "conversions plus an FP64 operation, which runs at 1/2 the "
                "FP32 rate on H100/H200 and 1/64 on most GeForce GPUs. "
                "Write '0.5f'.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    SmallPtrSet<const Expr *, 16> Seen;
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *>) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO)
        return;
      BinaryOperatorKind Op = BO->getOpcode();
      bool Arith = BO->isMultiplicativeOp() || BO->isAdditiveOp() ||
                   BO->isComparisonOp();
      const FloatingLiteral *Lit = nullptr;
      const Expr *Other = nullptr;
      if (const auto *CAO = dyn_cast<CompoundAssignOperator>(BO)) {
        if (Op != BO_MulAssign && Op != BO_DivAssign && Op != BO_AddAssign &&
            Op != BO_SubAssign)
          return;
        if (!isFloat32(CAO->getLHS()->getType()) ||
            !isDouble(CAO->getComputationLHSType()))
          return;
        Lit = doubleLiteral(CAO->getRHS());
        Other = CAO->getLHS();
      } else if (Arith) {
        if (const FloatingLiteral *L = doubleLiteral(BO->getRHS());
            L && isFloatPromotion(BO->getLHS())) {
          Lit = L;
          Other = BO->getLHS();
        } else if (const FloatingLiteral *L = doubleLiteral(BO->getLHS());
                   L && isFloatPromotion(BO->getRHS())) {
          Lit = L;
          Other = BO->getRHS();
        }
      }
      if (!Lit || !Seen.insert(Lit).second)
        return;
      if (!isUserLoc(Ctx, CC, Lit->getLocation()))
        return;
      // The literal's own spelling, also when it comes from a macro body.
      const SourceManager &SM = Ctx.getSourceManager();
      std::string LitText = Lexer::getSourceText(
                                CharSourceRange::getTokenRange(
                                    SM.getSpellingLoc(Lit->getLocation())),
                                SM, Ctx.getLangOpts())
                                .str();
      if (LitText.empty())
        LitText = textOf(Ctx, Lit->getSourceRange());
      std::string Msg =
          "double-precision literal '" + LitText + "' makes '" +
          textOf(Ctx, BO->getSourceRange()) +
          "' a double operation on float data: two conversions plus FP64 "
          "arithmetic, which runs at 1/2 the FP32 rate on H100/H200 (1/64 "
          "on most GeForce GPUs); write '" + LitText +
          (StringRef(LitText).ends_with(".") ? "0f'" : "f'");
      Finding F = makeFinding(Ctx, info().Id, Lit->getLocation(), Msg, FD,
                              Lit->getSourceRange());
      addNote(Ctx, F, Other->getExprLoc(), "this float operand is converted "
                                           "to double");
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(DoubleLiteralCheck);

// --- double math functions on float data --------------------------------------

class DoubleMathCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("algebraic-double-math",
                "double-precision math function called on float data",
                "Calling the double version of a math function (sqrt, exp, "
                "sin, ...) on float data converts the argument to double "
                "and runs the FP64 routine, several times slower than the "
                "float one (sqrtf, expf, sinf) and FP64-rate bound.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    static const StringSet<> Names = {
        "sqrt",  "cbrt",  "exp",   "exp2",  "exp10", "expm1", "log",
        "log2",  "log10", "log1p", "sin",   "cos",   "tan",   "asin",
        "acos",  "atan",  "atan2", "sinh",  "cosh",  "tanh",  "pow",
        "fabs",  "floor", "ceil",  "round", "trunc", "fmod",  "fmin",
        "fmax",  "hypot", "erf",   "erfc",  "rsqrt", "sincos", "lgamma",
        "tgamma", "fma"};
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *>) {
      const auto *CE = dyn_cast<CallExpr>(S);
      if (!CE)
        return;
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (!Callee || !Callee->getIdentifier() ||
          !Names.count(Callee->getName()))
        return;
      if (Callee->getNumParams() == 0 ||
          !isDouble(Callee->getParamDecl(0)->getType()))
        return;
      bool FloatData = false;
      for (const Expr *A : CE->arguments())
        if (containsFloatPromotion(A))
          FloatData = true;
      if (!FloatData || !isUserLoc(Ctx, CC, CE->getBeginLoc()))
        return;
      std::string N = Callee->getName().str();
      std::string Msg =
          "'" + N + "' is the double-precision function but its argument is "
          "float data converted to double: the FP64 routine costs several "
          "times '" + N + "f' and runs at the FP64 rate; call '" + N +
          "f' (results differ by a few ulp)";
      Finding F = makeFinding(Ctx, info().Id, CE->getBeginLoc(), Msg, FD,
                              CE->getSourceRange());
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(DoubleMathCheck);

// --- pow with small constant exponents ------------------------------------------

class PowSmallExponentCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("algebraic-pow-small-exponent",
                "pow/powf with a small integer or +-0.5 exponent",
                "pow(x, y) is computed as exp2(y * log2(x)) with special "
                "cases, about 20 instructions for powf and far more for "
                "double pow. Small integer exponents are a few multiplies; "
                "0.5 and -0.5 are sqrtf/rsqrtf.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *>) {
      const auto *CE = dyn_cast<CallExpr>(S);
      if (!CE || CE->getNumArgs() != 2)
        return;
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (!Callee || !Callee->getIdentifier())
        return;
      StringRef N = Callee->getName();
      if (N != "pow" && N != "powf" && N != "__powf")
        return;
      const Expr *Y = CE->getArg(1)->IgnoreParenImpCasts();
      if (Y->isValueDependent())
        return;
      Expr::EvalResult R;
      double V;
      if (!Y->EvaluateAsRValue(R, Ctx))
        return;
      if (R.Val.isFloat())
        V = R.Val.getFloat().convertToDouble();
      else if (R.Val.isInt())
        V = (double)R.Val.getInt().getSExtValue();
      else
        return;
      std::string X = textOf(Ctx, CE->getArg(0)->getSourceRange());
      bool IsDouble = isDouble(CE->getType());
      std::string Repl;
      if (V == 2)
        Repl = "(" + X + ") * (" + X + ")";
      else if (V == 3)
        Repl = "(" + X + ") * (" + X + ") * (" + X + ")";
      else if (V == 4)
        Repl = "x2 * x2 with x2 = (" + X + ") * (" + X + ")";
      else if (V == 0.5)
        Repl = std::string(IsDouble ? "sqrt(" : "sqrtf(") + X + ")";
      else if (V == -0.5)
        Repl = std::string(IsDouble ? "rsqrt(" : "rsqrtf(") + X + ")";
      else if (V == -1)
        Repl = std::string(IsDouble ? "1.0 / (" : "1.0f / (") + X + ")";
      else if (V == 1)
        Repl = X;
      else
        return;
      if (!isUserLoc(Ctx, CC, CE->getBeginLoc()))
        return;
      std::string Msg =
          "'" + N.str() + "' with the constant exponent " +
          textOf(Ctx, CE->getArg(1)->getSourceRange()) +
          " runs the general exp2(y*log2(x)) sequence (about 20 "
          "instructions" + (IsDouble ? ", in FP64" : "") +
          "); use " + Repl + " instead";
      Finding F = makeFinding(Ctx, info().Id, CE->getBeginLoc(), Msg, FD,
                              CE->getSourceRange());
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(PowSmallExponentCheck);

// --- division ---------------------------------------------------------------------

/// Variables assigned (or address-taken) anywhere inside \p Loop, and those
/// declared inside it.
void varsChangedIn(const Stmt *S, SmallPtrSetImpl<const VarDecl *> &Out) {
  if (!S)
    return;
  auto VarOf = [](const Expr *E) -> const VarDecl * {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(DRE->getDecl());
    return nullptr;
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->isAssignmentOp())
      if (const VarDecl *V = VarOf(BO->getLHS()))
        Out.insert(V);
  } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = VarOf(UO->getSubExpr()))
        Out.insert(V);
  } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        Out.insert(V);
  }
  for (const Stmt *C : S->children())
    varsChangedIn(C, Out);
}

/// Does \p E have the same value in every iteration of the loop whose
/// changed variables are \p Changed? (No loads, no impure calls.)
bool invariantExpr(const Expr *E, const SmallPtrSetImpl<const VarDecl *> &Changed,
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
      if (!invariantExpr(CE, Changed, HasVar))
        return false;
  return true;
}

bool isConstantExpr(const Expr *E, ASTContext &Ctx) {
  if (E->isValueDependent())
    return false;
  Expr::EvalResult R;
  return E->EvaluateAsRValue(R, Ctx);
}

class InvariantDivisionCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("algebraic-division-invariant",
                "division or modulo by a value that does not change in the "
                "loop",
                "GPUs have no divide instruction: a 32-bit integer division "
                "or modulo by a run-time value is a sequence of about 20 "
                "instructions, and a float division about 8 plus a "
                "slow-path check. When the divisor is loop-invariant, "
                "compute its reciprocal (float) or a magic-number "
                "multiplier (integer) once before the loop.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    std::map<const Stmt *, SmallPtrSet<const VarDecl *, 16>> ChangedCache;
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *> Loops) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO || Loops.empty())
        return;
      BinaryOperatorKind Op = BO->getOpcode();
      if (Op != BO_Div && Op != BO_Rem && Op != BO_DivAssign &&
          Op != BO_RemAssign)
        return;
      const Expr *RHS = BO->getRHS();
      if (isConstantExpr(RHS, Ctx))
        return;
      const Stmt *Loop = Loops.back();
      auto It = ChangedCache.find(Loop);
      if (It == ChangedCache.end()) {
        SmallPtrSet<const VarDecl *, 16> Ch;
        varsChangedIn(Loop, Ch);
        It = ChangedCache.emplace(Loop, Ch).first;
      }
      bool HasVar = false;
      if (!invariantExpr(RHS, It->second, HasVar) || !HasVar)
        return;
      // If the dividend is invariant too, the whole division is hoisted.
      bool LHSVar = false;
      if (invariantExpr(BO->getLHS(), It->second, LHSVar))
        return;
      if (!isUserLoc(Ctx, CC, BO->getOperatorLoc()))
        return;
      QualType T = BO->getType();
      bool IsFloat = T->isRealFloatingType();
      std::string D = textOf(Ctx, RHS->getSourceRange());
      std::string Msg;
      if (IsFloat)
        Msg = "floating-point division by the loop-invariant '" + D +
              "' on every iteration (about 8 instructions plus a slow-path "
              "check each): compute 'inv = 1.0f / (" + D +
              ")' once before the loop and multiply (results may differ by "
              "1 ulp)";
      else if (T->isIntegerType())
        Msg = std::string("integer ") +
              (Op == BO_Rem || Op == BO_RemAssign ? "modulo" : "division") +
              " by the loop-invariant '" + D +
              "' on every iteration (about 20 instructions each): hoist "
              "what you can out of the loop, e.g. step a second counter "
              "instead of recomputing the quotient, or use a power-of-two "
              "size";
      else
        return;
      Finding F = makeFinding(Ctx, info().Id, BO->getOperatorLoc(), Msg, FD,
                              BO->getSourceRange());
      addNote(Ctx, F, Loop->getBeginLoc(),
              "'" + D + "' does not change in this loop");
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(InvariantDivisionCheck);

/// Is \p E provably >= 0? Built-in indices, non-negative literals,
/// unsigned values, and variables (loop induction variables included) whose
/// every definition is such an expression, combined with + * / % >> &.
bool provablyNonNegative(const Expr *E, unsigned D = 0) {
  if (!E || D > 8)
    return false;
  E = E->IgnoreParens();
  if (E->getType()->isUnsignedIntegerType())
    return true;
  if (const auto *IL = dyn_cast<IntegerLiteral>(E))
    return !IL->getValue().isNegative();
  if (const auto *ICE = dyn_cast<CastExpr>(E)) {
    // int(threadIdx.x), int(blockDim.x * gridDim.x): below 2^31.
    if (isa<PseudoObjectExpr>(ICE->getSubExpr()->IgnoreParens()))
      return true;
    if (const auto *BO =
            dyn_cast<BinaryOperator>(ICE->getSubExpr()->IgnoreParens()))
      if (BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_Add)
        if (isa<PseudoObjectExpr>(BO->getLHS()->IgnoreParenImpCasts()) &&
            isa<PseudoObjectExpr>(BO->getRHS()->IgnoreParenImpCasts()))
          return BO->getOpcode() == BO_Mul; // <= 2^20 * 2^31? keep to dims
    return provablyNonNegative(ICE->getSubExpr(), D + 1);
  }
  if (isa<PseudoObjectExpr>(E))
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add:
    case BO_Mul:
    case BO_Div:
    case BO_Rem:
    case BO_Shr:
      return provablyNonNegative(BO->getLHS(), D + 1) &&
             provablyNonNegative(BO->getRHS(), D + 1);
    case BO_And:
      return provablyNonNegative(BO->getLHS(), D + 1) ||
             provablyNonNegative(BO->getRHS(), D + 1);
    default:
      return false;
    }
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      return false;
    if (!provablyNonNegative(V->getInit(), D + 1))
      return false;
    // Every later definition must be non-negative too.
    const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
    if (!FD || !FD->getBody())
      return false;
    bool Ok = true;
    std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
      if (!S || !Ok)
        return;
      auto IsV = [&](const Expr *X) {
        const auto *R = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
        return R && R->getDecl() == V;
      };
      if (const auto *B = dyn_cast<BinaryOperator>(S)) {
        if (B->isAssignmentOp() && IsV(B->getLHS())) {
          if (B->getOpcode() == BO_Assign)
            Ok = provablyNonNegative(B->getRHS(), D + 1);
          else if (B->getOpcode() == BO_AddAssign ||
                   B->getOpcode() == BO_MulAssign ||
                   B->getOpcode() == BO_DivAssign ||
                   B->getOpcode() == BO_ShrAssign)
            Ok = provablyNonNegative(B->getRHS(), D + 1);
          else
            Ok = false;
        }
      } else if (const auto *U = dyn_cast<UnaryOperator>(S)) {
        if ((U->isDecrementOp() || U->getOpcode() == UO_AddrOf) &&
            IsV(U->getSubExpr()))
          Ok = false;
      }
      for (const Stmt *C : S->children())
        Scan(C);
    };
    Scan(FD->getBody());
    return Ok;
  }
  return false;
}

class SignedPow2DivisionCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("algebraic-signed-pow2-division",
                "signed division or modulo by a power of two inside a loop",
                "x / 2^k and x % 2^k on a signed int must round toward "
                "zero, so unless the compiler proves x >= 0 they cost a "
                "shift plus a sign fix-up (3-4 instructions instead of one "
                "shift or and). Use an unsigned type, or >> and & when x is "
                "known to be non-negative.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    std::map<const Stmt *, SmallPtrSet<const VarDecl *, 16>> ChangedCache;
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *> Loops) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO || Loops.empty())
        return;
      BinaryOperatorKind Op = BO->getOpcode();
      if (Op != BO_Div && Op != BO_Rem)
        return;
      QualType T = BO->getType();
      if (!T->isSignedIntegerType())
        return;
      const Expr *RHS = BO->getRHS();
      if (RHS->isValueDependent())
        return;
      Expr::EvalResult R;
      if (!RHS->EvaluateAsInt(R, Ctx))
        return;
      int64_t V = R.Val.getInt().getSExtValue();
      if (V < 2 || (V & (V - 1)))
        return;
      const Stmt *Loop = Loops.back();
      auto It = ChangedCache.find(Loop);
      if (It == ChangedCache.end()) {
        SmallPtrSet<const VarDecl *, 16> Ch;
        varsChangedIn(Loop, Ch);
        It = ChangedCache.emplace(Loop, Ch).first;
      }
      bool HasVar = false;
      if (invariantExpr(BO->getLHS(), It->second, HasVar))
        return; // hoisted by the compiler
      if (provablyNonNegative(BO->getLHS()))
        return; // the compiler can see it too: a plain shift / and
      if (!isUserLoc(Ctx, CC, BO->getOperatorLoc()))
        return;
      unsigned K = 0;
      while ((int64_t(1) << K) < V)
        ++K;
      std::string X = textOf(Ctx, BO->getLHS()->getSourceRange());
      std::string Msg =
          std::string("signed ") + (Op == BO_Rem ? "modulo" : "division") +
          " by " + std::to_string(V) +
          " inside a loop: rounding toward zero needs a sign fix-up (3-4 "
          "instructions instead of 1) unless the compiler proves '" + X +
          "' >= 0; if it is never negative, use an unsigned type or '" +
          (Op == BO_Rem ? "& " + std::to_string(V - 1)
                        : ">> " + std::to_string(K)) +
          "'";
      Finding F = makeFinding(Ctx, info().Id, BO->getOperatorLoc(), Msg, FD,
                              BO->getSourceRange());
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(SignedPow2DivisionCheck);

// --- divergent interleaved reductions ------------------------------------------

bool mentionsThreadIdx(const Expr *E, unsigned D = 0) {
  if (!E || D > 6)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      if (V->getName() == "threadIdx")
        return true;
      if (V->hasLocalStorage() && V->getInit() && !isa<ParmVarDecl>(V))
        return mentionsThreadIdx(V->getInit(), D + 1);
    }
    return false;
  }
  if (const auto *POE = dyn_cast<PseudoObjectExpr>(E))
    return mentionsThreadIdx(POE->getSyntacticForm(), D);
  if (const auto *MS = dyn_cast<MSPropertyRefExpr>(E))
    return mentionsThreadIdx(MS->getBaseExpr(), D);
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(E))
    return mentionsThreadIdx(OVE->getSourceExpr(), D);
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (mentionsThreadIdx(CE, D))
        return true;
  return false;
}

bool mentionsVar(const Expr *E, const VarDecl *V) {
  if (!E)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (DRE->getDecl() == V)
      return true;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (mentionsVar(CE, V))
        return true;
  return false;
}

const VarDecl *loopIV(const Stmt *L) {
  const auto *FS = dyn_cast<ForStmt>(L);
  if (!FS)
    return nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(FS->getInit()))
    if (DS->isSingleDecl())
      return dyn_cast<VarDecl>(DS->getSingleDecl());
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(FS->getInit()))
    if (const auto *DRE = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

class DivergentReductionCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("sync-divergent-reduction",
                "interleaved-addressing reduction: 'if (tid % (2*s) == 0)'",
                "Selecting the active threads of a tree reduction with "
                "'tid % (2*s) == 0' keeps every warp busy but only a "
                "fraction of its lanes active (divergence), and the modulo "
                "by a run-time value costs about 20 instructions per step. "
                "Sequential addressing ('for (s = blockDim.x / 2; s > 0; s "
                ">>= 1) if (tid < s)') retires whole warps instead, and the "
                "last 32 elements are best reduced with warp shuffles.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    forEachDeviceStmt(Ctx, CC, [&](const Stmt *S, const FunctionDecl *FD,
                                   ArrayRef<const Stmt *> Loops) {
      const auto *If = dyn_cast<IfStmt>(S);
      if (!If || Loops.empty() || !If->getCond())
        return;
      const auto *Cmp =
          dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
      if (!Cmp || (Cmp->getOpcode() != BO_EQ && Cmp->getOpcode() != BO_NE))
        return;
      const Expr *Mod = nullptr;
      for (const Expr *Side : {Cmp->getLHS(), Cmp->getRHS()}) {
        const Expr *Other = Side == Cmp->getLHS() ? Cmp->getRHS() : Cmp->getLHS();
        Expr::EvalResult R;
        if (!Other->isValueDependent() && Other->EvaluateAsInt(R, Ctx) &&
            R.Val.getInt() == 0)
          Mod = Side->IgnoreParenImpCasts();
      }
      const auto *M = dyn_cast_or_null<BinaryOperator>(Mod);
      if (!M || (M->getOpcode() != BO_Rem && M->getOpcode() != BO_And))
        return;
      const VarDecl *IV = loopIV(Loops.back());
      if (!IV || !mentionsVar(M->getRHS(), IV) ||
          !mentionsThreadIdx(M->getLHS()))
        return;
      if (!isUserLoc(Ctx, CC, M->getOperatorLoc()))
        return;
      std::string Msg =
          "divergent interleaved reduction: '" +
          textOf(Ctx, Cmp->getSourceRange()) +
          "' keeps every warp resident with only a fraction of its lanes "
          "active (half in the first step, 1 in 32 from the sixth), and " +
          (M->getOpcode() == BO_Rem
               ? std::string("the modulo by a run-time value costs about 20 "
                             "instructions per step")
               : std::string("the mask test runs on every thread")) +
          "; use sequential addressing ('if (tid < s)' with s halving) and "
          "warp shuffles for the last 32 elements";
      Finding F = makeFinding(Ctx, info().Id, M->getOperatorLoc(), Msg, FD,
                              Cmp->getSourceRange());
      addNote(Ctx, F, Loops.back()->getBeginLoc(), "reduction loop over '" +
                                                       IV->getNameAsString() +
                                                       "'");
      Out.push_back(std::move(F));
    });
  }
};
CUDAL1_REGISTER_CHECK(DivergentReductionCheck);

} // namespace
} // namespace cudal1
