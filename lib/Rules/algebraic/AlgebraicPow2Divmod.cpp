//===- AlgebraicPow2Divmod.cpp - algebraic-pow2-divmod --------------------===//
//
// algebraic-pow2-divmod: i / 2^k and i % 2^k on a value proven >= 0 become
// i >> k and i & (2^k - 1) (bitwise). A signed division in a loop whose
// dividend is not proven >= 0 is reported without a fix (this rule took
// over algebraic-signed-pow2-division).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicPow2Divmod.h"
#include "LoopTraffic.h"
#include "../LoopTrips.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

#include <optional>

#include <functional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

namespace {

/// log2 of a power of two > 1, else -1.
int log2Exact(uint64_t V) {
  if (V < 2 || (V & (V - 1)))
    return -1;
  int K = 0;
  while (V > 1) {
    V >>= 1;
    ++K;
  }
  return K;
}

/// Would the compiler see that \p E is >= 0 (so that it emits a plain
/// shift or mask itself)? Built-in indices, non-negative literals, unsigned
/// values, and variables (loop induction variables included) whose every
/// definition is such an expression, combined with + * / % >> &. A
/// heuristic that only silences the finding: the rewrite itself needs
/// isProvablyNonNegative.
bool compilerSeesNonNegative(const Expr *E, unsigned D = 0) {
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
    return compilerSeesNonNegative(ICE->getSubExpr(), D + 1);
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
      return compilerSeesNonNegative(BO->getLHS(), D + 1) &&
             compilerSeesNonNegative(BO->getRHS(), D + 1);
    case BO_And:
      return compilerSeesNonNegative(BO->getLHS(), D + 1) ||
             compilerSeesNonNegative(BO->getRHS(), D + 1);
    default:
      return false;
    }
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    // A constant (`constexpr int kThreads = 128;`): the compiler sees its
    // value.
    if (V && V->getType().isConstQualified() && V->getInit() &&
        !V->getInit()->isValueDependent()) {
      Expr::EvalResult R;
      if (V->getInit()->EvaluateAsInt(R, V->getASTContext()))
        return !R.Val.getInt().isNegative();
    }
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      return false;
    if (!compilerSeesNonNegative(V->getInit(), D + 1))
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
            Ok = compilerSeesNonNegative(B->getRHS(), D + 1);
          else if (B->getOpcode() == BO_AddAssign ||
                   B->getOpcode() == BO_MulAssign ||
                   B->getOpcode() == BO_DivAssign ||
                   B->getOpcode() == BO_ShrAssign)
            Ok = compilerSeesNonNegative(B->getRHS(), D + 1);
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

/// An upper bound on the bits of \p E when LLVM's known-bits analysis
/// sees it as a small non-negative value: a narrower unsigned value
/// widened (`unsigned char` promoted to int is zero-extended), a
/// non-negative constant, and sums, products, shifts right, quotients,
/// remainders and masks of those. std::nullopt otherwise.
std::optional<unsigned> zeroExtendedBits(const ASTContext &C, const Expr *E,
                                         unsigned D = 0) {
  if (!E || D > 8)
    return std::nullopt;
  E = E->IgnoreParens();
  if (const auto *IL = dyn_cast<IntegerLiteral>(E))
    return IL->getValue().isNegative()
               ? std::nullopt
               : std::optional<unsigned>(IL->getValue().getActiveBits());
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    QualType From = IC->getSubExpr()->getType();
    if (IC->getCastKind() == CK_IntegralCast &&
        From->isUnsignedIntegerType() &&
        C.getTypeSize(From) < C.getTypeSize(IC->getType()))
      return (unsigned)C.getTypeSize(From);
    if (IC->getCastKind() == CK_IntegralCast ||
        IC->getCastKind() == CK_NoOp)
      return zeroExtendedBits(C, IC->getSubExpr(), D + 1);
    return std::nullopt;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    std::optional<unsigned> L = zeroExtendedBits(C, BO->getLHS(), D + 1);
    std::optional<unsigned> R = zeroExtendedBits(C, BO->getRHS(), D + 1);
    switch (BO->getOpcode()) {
    case BO_Add:
      if (L && R)
        return std::max(*L, *R) + 1;
      return std::nullopt;
    case BO_Mul:
      if (L && R)
        return *L + *R;
      return std::nullopt;
    case BO_Div:
    case BO_Rem:
    case BO_Shr:
      return L && R ? L : std::nullopt;
    case BO_And:
      if (L && R)
        return std::min(*L, *R);
      return L ? L : R;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// The variable \p V compared with a non-negative constant in \p Cond so
/// that it holds only for V >= 0 (V > c, V >= c, c < V, c <= V).
bool condKeepsNonNegative(const Expr *Cond, const VarDecl *V,
                          ASTContext &C) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(
      Cond ? Cond->IgnoreParenImpCasts() : nullptr);
  if (!B)
    return false;
  if (B->getOpcode() == BO_LAnd)
    return condKeepsNonNegative(B->getLHS(), V, C) ||
           condKeepsNonNegative(B->getRHS(), V, C);
  const Expr *Var = nullptr, *Bound = nullptr;
  switch (B->getOpcode()) {
  case BO_GT:
  case BO_GE:
    Var = B->getLHS(), Bound = B->getRHS();
    break;
  case BO_LT:
  case BO_LE:
    Var = B->getRHS(), Bound = B->getLHS();
    break;
  default:
    return false;
  }
  std::optional<int64_t> K = evalInt(C, Bound);
  // A signed comparison: `x > 0u` converts x to unsigned and lets negative
  // values through.
  if (varOf(Var) != V || !K || !Var->getType()->isSignedIntegerType() ||
      !Bound->getType()->isSignedIntegerType())
    return false;
  return B->getOpcode() == BO_GT || B->getOpcode() == BO_LT ? *K >= -1
                                                             : *K >= 0;
}

/// Is \p V assigned anywhere in \p S (varsWrittenIn: assignments, ++/--,
/// its address taken, bound or passed to a non-const reference), or
/// passed as an lvalue to a call whose parameter the tool cannot see?
bool assignsTo(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (varsWrittenIn(S).count(V))
    return true;
  bool Unknown = false;
  forEachStmt(S, [&](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    if (!CE || Unknown)
      return;
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; I < CE->getNumArgs(); ++I)
      if (varOf(CE->getArg(I)) == V && CE->getArg(I)->isGLValue() &&
          (!FD || I >= FD->getNumParams()))
        Unknown = true;
  });
  return Unknown;
}

/// nvcc already emits the plain shift or mask for \p BO (x / 2^k or
/// x % 2^k), so the rewrite would change no instruction (measured on
/// generated kernels, utils/bench/divmod/pow2-forms.cu, SASS compared):
/// - x = y * c with c a multiple of 2^k: the product divides exactly;
/// - x is the induction variable of a loop that starts at a constant
///   >= 0 and steps by ++ or += a constant >= 0 (the compiler's induction
///   analysis proves it >= 0), or that starts and ends at constants (the
///   loop is unrolled and every quotient folds);
/// - an enclosing loop's or if's condition requires x > c >= -1 and the
///   body does not assign x before the division.
bool compilerFolds(ASTContext &C, const BinaryOperator *BO, uint64_t Div) {
  // A value LLVM's known bits show >= 0 (an unsigned char promoted to
  // int, `(c * 16) % 64`): the plain shift already (HeCBench's base64
  // encoder, SASS identical).
  if (std::optional<unsigned> Bits = zeroExtendedBits(C, BO->getLHS());
      Bits && *Bits < C.getTypeSize(BO->getType()))
    return true;
  const Expr *L = BO->getLHS()->IgnoreParenImpCasts();
  if (const auto *M = dyn_cast<BinaryOperator>(L);
      M && M->getOpcode() == BO_Mul)
    for (const Expr *Op : {M->getLHS(), M->getRHS()})
      if (std::optional<int64_t> K = evalInt(C, Op);
          K && *K >= 0 && static_cast<uint64_t>(*K) % Div == 0)
        return true;
  const VarDecl *V = varOf(L);
  if (!V || !V->hasLocalStorage())
    return false;
  const SourceManager &SM = C.getSourceManager();
  DynTypedNode N = DynTypedNode::create(*BO);
  const Stmt *Child = BO;
  std::vector<const Stmt *> InnerLoops;
  for (unsigned Up = 0; Up < 64; ++Up) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      break;
    N = Ps[0];
    const auto *S = N.get<Stmt>();
    if (!S) {
      if (N.get<VarDecl>()) // an initialiser: on to its DeclStmt
        continue;
      break;
    }
    const Stmt *Body = nullptr;
    const Expr *Cond = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      Body = F->getBody(), Cond = F->getCond();
      // The induction variable: declared in the init, constant start.
      const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
      const Expr *Init = nullptr;
      if (DS && DS->isSingleDecl() && DS->getSingleDecl() == V)
        Init = V->getInit();
      else if (const auto *A = dyn_cast_or_null<BinaryOperator>(F->getInit());
               A && A->getOpcode() == BO_Assign && varOf(A->getLHS()) == V)
        Init = A->getRHS();
      std::optional<int64_t> Start = evalInt(C, Init);
      if (Start && *Start >= 0 && !assignsTo(F->getBody(), V)) {
        const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts()
                                      : nullptr;
        bool Additive = false;
        if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
          Additive = U->isIncrementOp() && varOf(U->getSubExpr()) == V;
        else if (const auto *A = dyn_cast_or_null<BinaryOperator>(Inc);
                 A && A->getOpcode() == BO_AddAssign &&
                 varOf(A->getLHS()) == V)
          if (std::optional<int64_t> K = evalInt(C, A->getRHS()))
            Additive = *K >= 0;
        if (Additive)
          return true;
        // Constant bounds and a geometric step by a constant (i *= 2,
        // i = i / 2, i >>= 1): at most 64 trips, unrolled, every value
        // folds.
        bool Geometric = false;
        if (const auto *A = dyn_cast_or_null<BinaryOperator>(Inc)) {
          BinaryOperatorKind O = A->getOpcode();
          if ((O == BO_MulAssign || O == BO_DivAssign || O == BO_ShrAssign ||
               O == BO_ShlAssign) &&
              varOf(A->getLHS()) == V)
            Geometric = evalInt(C, A->getRHS()).has_value();
          else if (O == BO_Assign && varOf(A->getLHS()) == V)
            if (const auto *R = dyn_cast<BinaryOperator>(
                    A->getRHS()->IgnoreParenImpCasts());
                R && (R->getOpcode() == BO_Mul || R->getOpcode() == BO_Div ||
                      R->getOpcode() == BO_Shr || R->getOpcode() == BO_Shl))
              Geometric =
                  (varOf(R->getLHS()) == V && evalInt(C, R->getRHS())) ||
                  (R->getOpcode() == BO_Mul && varOf(R->getRHS()) == V &&
                   evalInt(C, R->getLHS()));
        }
        if (Geometric)
          if (const auto *CB = dyn_cast_or_null<BinaryOperator>(
                  Cond ? Cond->IgnoreParenImpCasts() : nullptr);
              CB && CB->isComparisonOp() &&
              ((varOf(CB->getLHS()) == V && evalInt(C, CB->getRHS())) ||
               (varOf(CB->getRHS()) == V && evalInt(C, CB->getLHS()))))
            return true;
      }
    } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
      Body = W->getBody(), Cond = W->getCond();
    } else if (const auto *I = dyn_cast<IfStmt>(S)) {
      if (Child == I->getThen())
        Body = I->getThen(), Cond = I->getCond();
    }
    if (Cond && Body && Child == Body && condKeepsNonNegative(Cond, V, C)) {
      // No assignment to V in the body before the division.
      // No assignment to V in the body before the division: the children
      // that end before it are searched whole, the one holding it in turn.
      bool Before = false;
      std::function<void(const Stmt *)> Scan = [&](const Stmt *X) {
        for (const Stmt *Ch : X->children()) {
          if (!Ch || Before)
            continue;
          if (SM.isBeforeInTranslationUnit(Ch->getEndLoc(), BO->getBeginLoc()))
            Before = assignsTo(Ch, V);
          else if (!SM.isBeforeInTranslationUnit(BO->getBeginLoc(),
                                                 Ch->getBeginLoc()))
            Scan(Ch);
        }
      };
      Scan(Body);
      // A loop between the guard and the division that assigns V anywhere
      // brings the changed value back to the division (a back edge).
      for (const Stmt *Inner : InnerLoops)
        if (assignsTo(Inner, V))
          Before = true;
      if (!Before)
        return true;
    }
    if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
        isa<CXXForRangeStmt>(S))
      InnerLoops.push_back(S);
    Child = S;
  }
  return false;
}

} // namespace

RuleInfo AlgebraicPow2Divmod::info() const {
  RuleInfo I;
  I.Id = "algebraic-pow2-divmod";
  I.Category = "algebraic";
  I.Summary = "integer / or % by a power of two on a value proven >= 0; "
              "use >> or &";
  I.Exactness = Exactness::Bitwise;
  I.Help = "For a signed integer the compiler must keep / and % correct "
           "for negative values (extra instructions around the shift); "
           "when the value is provably non-negative (built-in indices, "
           "non-negative constants, locals initialised from them) a shift "
           "or mask gives the same bits. Unsigned operands are compiled to "
           "shifts anyway: reported only with the option IncludeUnsigned. "
           "A signed dividend inside a loop that is not proven >= 0 is "
           "reported without a fix.";
  I.DefaultOptions["IncludeUnsigned"] = "false";
  I.DefaultOptions["IncludeOncePerThread"] = "false";
  I.Doc.Detects =
      "Integer `/` or `%` by a power of two whose left operand is a signed "
      "value provably >= 0: built-in indices (threadIdx, blockIdx, "
      "blockDim, gridDim), non-negative constants, and locals initialised "
      "from those and never changed, with a bound below 2^31 (so "
      "`blockIdx.x * blockDim.x + threadIdx.x` converted to int is *not* "
      "proven), in a loop whose iterations change it. Outside every loop "
      "(index arithmetic once per thread: `int lane = tid % 32;`), with a "
      "dividend the loop does not change, or in a loop of at most 16 "
      "iterations with constant bounds that no loop encloses, in a kernel "
      "or in a device function that kernels call only outside their loops "
      "(a 6-step binary search at the top of each kernel), the few extra "
      "instructions are paid once or a few times per thread and cannot show "
      "next to the "
      "kernel's work: reported only with the option `IncludeOncePerThread: "
      "true`. Nor in a loop that hides them: one that waits at a barrier "
      "(a tree reduction's `i / 2`), or that reads or writes at least 4 "
      "bytes of global memory per iteration at an address that changes "
      "(an asynchronous copy from global memory, `__pipeline_memcpy_async`"
      " or `cuda::memcpy_async`, counts with its size; "
      "a binary search's dependent load; measured on an H200, "
      "utils/bench/divmod/divmod-sweep.cu: such a loop hides a whole "
      "integer division by a run-time value, about a dozen instructions, "
      "where the sign fix-up is two or three).\n"
      "\n"
      "It also reports, without a fix, a signed division or modulo by a "
      "power of two inside a loop whose dividend changes in the loop and "
      "is not proven >= 0 (this rule took over "
      "`algebraic-signed-pow2-division`).\n"
      "\n"
      "Neither is reported where nvcc already emits the shift or mask "
      "(sm_90 SASS compared, utils/bench/divmod/pow2-forms.sh): a product "
      "with a constant multiple of the divisor (`ty * 128 / 4`), the "
      "induction variable of a loop that starts at a constant >= 0 and "
      "steps by `++` or `+= c`, or whose bounds are constants (unrolled), "
      "a value whose known bits show it >= 0 (a narrower unsigned value "
      "widened: `unsigned char c; c / 4`, `(c * 16) % 64`), "
      "and a variable that an enclosing loop's or `if`'s condition keeps "
      "above a constant >= -1 (`while (k > 1) { int h = k / 2; ... }`) "
      "when the body does not assign it before the division. nvcc does "
      "*not* use the range of threadIdx: `int t = threadIdx.x; t / 32` "
      "keeps its sign fix-up, and the rewrite removes it.";
  I.Doc.WhySlow =
      "For signed operands the compiler must round toward zero for "
      "negative values: extra instructions around the shift. Unsigned "
      "operands already compile to shifts (reported only with the option "
      "`IncludeUnsigned: true`).";
  I.Doc.Example = R"cuda(int lane = tid % 32;      // with IncludeOncePerThread: true
int warp = tid / 32 + 1;)cuda";
  I.Doc.Fixed = R"cuda(int lane = tid & 31;
int warp = (tid >> 5) + 1;)cuda";
  I.Doc.Fix =
      "Rewrites to `>> k` / `& (2^k-1)`, adding parentheses where "
      "precedence requires. Only when the shift has the type of the "
      "division.";
  return I;
}

void AlgebraicPow2Divmod::registerMatchers(MatchFinder &F) {
  F.addMatcher(binaryOperator(anyOf(hasOperatorName("/"), hasOperatorName("%")),
                              hasType(isInteger()))
                   .bind("op"),
               this);
}

/// The loop around \p BO hides the two or three instructions of a signed
/// division's sign fix-up: it waits at a barrier, or moves global memory
/// every iteration (a loop streaming 4 bytes per iteration hides a whole
/// integer division by a run-time value, about a dozen instructions, on an
/// H200: utils/bench/divmod/divmod-sweep.cu; a binary search's dependent
/// load, a reduction's __syncthreads).
static bool hiddenByLoop(const ASTContext &C, const Stmt *Loop) {
  const Stmt *Body = loopBody(Loop);
  if (containsCallTo(Body, {"__syncthreads", "__syncthreads_count",
                            "__syncthreads_and", "__syncthreads_or"}))
    return true;
  return globalBytesPerIteration(C, Loop) >= 4;
}

/// \p Loop runs at most 16 times per call of \p FD (a counted loop with
/// constant bounds) and no loop of \p FD encloses it, and \p FD is a kernel
/// or a device function that only kernels call, each outside its loops: the
/// division runs a bounded number of times per thread, as it would
/// unrolled (flame's binary search over 20 functions, 6 steps at the top of
/// each kernel). Reported only with IncludeOncePerThread, as once per
/// thread is.
static bool boundedPerThread(ASTContext &C, const Stmt *Loop,
                             const FunctionDecl *FD) {
  if (enclosingLoop(C, *Loop))
    return false;
  auto Trips = constantTripCount(C, Loop);
  if (!Trips || *Trips > 16)
    return false;
  if (FD->hasAttr<CUDAGlobalAttr>())
    return true;
  // Every use of the device function is a call from a kernel, outside the
  // kernel's loops.
  struct Uses : RecursiveASTVisitor<Uses> {
    const FunctionDecl *Target;
    std::vector<const DeclRefExpr *> Refs;
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
        if (F->getCanonicalDecl() == Target)
          Refs.push_back(E);
      return true;
    }
  } U;
  U.Target = FD->getCanonicalDecl();
  U.TraverseDecl(C.getTranslationUnitDecl());
  if (U.Refs.empty())
    return false;
  for (const DeclRefExpr *Ref : U.Refs) {
    const auto &Parents = C.getParents(*Ref);
    const auto *Cast = Parents.empty() ? nullptr : Parents[0].get<Expr>();
    const auto &Up = Cast ? C.getParents(*Cast) : Parents;
    const auto *Call = Up.empty() ? nullptr : Up[0].get<CallExpr>();
    if (!Call || Call->getCallee()->IgnoreParenImpCasts() != Ref)
      return false;
    const FunctionDecl *Caller =
        enclosingFunction(C, DynTypedNode::create(*Call));
    if (!Caller || !Caller->hasAttr<CUDAGlobalAttr>() ||
        enclosingLoop(C, *Call))
      return false;
  }
  return true;
}

void AlgebraicPow2Divmod::check(const MatchFinder::MatchResult &R) {
  const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("op");
  ASTContext &C = ctx();
  if (!BO || BO->isValueDependent() || BO->isTypeDependent())
    return;
  Expr::EvalResult ER;
  if (!BO->getRHS()->EvaluateAsInt(ER, C))
    return;
  // A constant (an array bound, `N / 32` of two macros): the compiler
  // folds it, nothing is paid at run time.
  {
    Expr::EvalResult Whole;
    if (BO->EvaluateAsInt(Whole, C))
      return;
  }
  llvm::APSInt V = ER.Val.getInt();
  if (V.isSigned() && V.isNegative())
    return;
  int K = log2Exact(V.getZExtValue());
  if (K < 0)
    return;
  const Expr *LHS = BO->getLHS();
  const Expr *LHSRaw = LHS->IgnoreImpCasts();
  // The shift must have the type of the division.
  QualType LT = C.isPromotableIntegerType(LHSRaw->getType())
                    ? C.getPromotedIntegerType(LHSRaw->getType())
                    : LHSRaw->getType();
  if (!C.hasSameUnqualifiedType(LT, BO->getType()))
    return;
  bool Unsigned = BO->getType()->isUnsignedIntegerType();
  if (Unsigned && !optionBool("IncludeUnsigned", false))
    return;
  const FunctionDecl *FD = functionOf(*BO);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return;
  // What nvcc already compiles to the shift or mask: nothing to gain.
  if (!Unsigned && compilerFolds(C, BO, V.getZExtValue()))
    return;
  // Once per thread (outside every loop), or with a dividend the loop does
  // not change (computed once, before it): two or three instructions per
  // thread, nothing to measure next to the kernel's work (HeCBench: 13 such
  // index computations at the top of kernels, read by hand). Reported only
  // with the option IncludeOncePerThread.
  if (!optionBool("IncludeOncePerThread", false)) {
    const Stmt *Loop = enclosingLoop(C, *BO);
    bool HasVar = false;
    if (!Loop || isLoopInvariant(BO->getLHS(), varsChangedIn(Loop), HasVar) ||
        hiddenByLoop(C, Loop) || boundedPerThread(C, Loop, FD))
      return;
  }
  if (!Unsigned && !isProvablyNonNegative(C, LHSRaw)) {
    reportUnprovenSigned(BO, FD, V.getZExtValue(), K);
    return;
  }
  if (!firstInUserCode(BO->getOperatorLoc()))
    return;
  bool Div = BO->getOpcode() == BO_Div;
  std::string NewOp =
      Div ? ">> " + std::to_string(K) : "& " + std::to_string((1ULL << K) - 1);
  std::string LText = sourceText(C, LHS->getSourceRange());
  Finding F = makeFinding(
      C, id(), BO->getOperatorLoc(),
      std::string(Div ? "division" : "modulo") + " by " +
          std::to_string(1ULL << K) + " of a " +
          (Unsigned ? "unsigned value" : "signed value proven >= 0") +
          (Unsigned ? "; a shift/mask says what the hardware does"
                    : " still pays for negative-value handling; '" + NewOp +
                          "' gives the same result"),
      FD);
  // Parentheses unless the context cannot bind tighter.
  const Expr *Child = BO;
  const Expr *P = parentSkippingParens(C, BO, &Child);
  bool NeedParens = true;
  if (Child != BO)
    NeedParens = false; // already parenthesised
  else if (!P)
    NeedParens = false; // full expression / initialiser / return
  else if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
    const Expr *PP = parentSkippingParens(C, IC);
    NeedParens = PP && !isa<CallExpr>(PP) && !isa<ArraySubscriptExpr>(PP);
    if (const auto *A = dyn_cast_or_null<BinaryOperator>(PP))
      NeedParens = !(A->isAssignmentOp() && A->getRHS()->IgnoreParens() == IC);
  } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(P)) {
    NeedParens = AS->getIdx()->IgnoreParenImpCasts() != BO;
  } else if (isa<CallExpr>(P)) {
    NeedParens = false;
  } else if (const auto *A = dyn_cast<BinaryOperator>(P)) {
    NeedParens = !(A->isAssignmentOp() && A->getRHS() == BO);
  }
  std::string Why;
  auto OpR = editableRange(C,
                           CharSourceRange::getTokenRange(
                               BO->getOperatorLoc(), BO->getRHS()->getEndLoc()),
                           Why);
  auto Whole = editableRange(
      C, CharSourceRange::getTokenRange(BO->getSourceRange()), Why);
  if (!OpR || !Whole) {
    F.WhyNoFix = Why;
  } else {
    FixIt X;
    X.Description = "use " + NewOp;
    X.Exact = Exactness::Bitwise;
    X.Edits.push_back(makeTextEdit(C, *OpR, NewOp));
    if (NeedParens) {
      X.Edits.push_back(makeInsertion(C, Whole->getBegin(), "("));
      X.Edits.push_back(makeTextEdit(
          C, CharSourceRange::getCharRange(Whole->getEnd(), Whole->getEnd()),
          ")"));
    }
    // The insertion of ")" sits where the replacement ends: merge into one
    // edit so both tools apply them the same way.
    if (NeedParens) {
      X.Edits.clear();
      std::string NewText =
          "(" + sourceText(C, LHS->getSourceRange()) + " " + NewOp + ")";
      X.Edits.push_back(makeTextEdit(C, *Whole, NewText));
    }
    F.Fix = std::move(X);
  }
  (void)LText;
  report(std::move(F));
}

void AlgebraicPow2Divmod::reportUnprovenSigned(const BinaryOperator *BO,
                                               const FunctionDecl *FD,
                                               uint64_t V, int K) {
  ASTContext &C = ctx();
  // Inside a loop, with a dividend that changes in it (an invariant one is
  // hoisted by the compiler), and not obviously non-negative to it either.
  const Stmt *Loop = enclosingLoop(C, *BO);
  if (!Loop)
    return;
  bool HasVar = false;
  if (isLoopInvariant(BO->getLHS(), varsChangedIn(Loop), HasVar) ||
      compilerSeesNonNegative(BO->getLHS()) || hiddenByLoop(C, Loop) ||
      !firstInUserCode(BO->getOperatorLoc()))
    return;
  bool Rem = BO->getOpcode() == BO_Rem;
  std::string X = oneLineText(C, BO->getLHS()->getSourceRange());
  Finding F = makeFinding(
      C, id(), BO->getOperatorLoc(),
      std::string("signed ") + (Rem ? "modulo" : "division") + " by " +
          std::to_string(V) +
          " inside a loop: rounding toward zero needs a sign fix-up (3-4 "
          "instructions instead of 1) unless the compiler proves '" +
          X + "' >= 0; if it is never negative, use an unsigned type or '" +
          (Rem ? "& " + std::to_string(V - 1) : ">> " + std::to_string(K)) +
          "'",
      FD, BO->getSourceRange());
  reportWithoutFix(std::move(F),
                   "'" + X + "' is not proven >= 0: for negative values '" +
                       (Rem ? std::string("&") : std::string(">>")) +
                       "' gives another result");
}

} // namespace cudal1
