//===- LaunchDistributeLoop.cpp - launch-distribute-loop ------------------===//
//
// A kernel launched with few threads (covariance's `covar_kernel`: one thread
// per column j1, 1280 threads in all) whose threads each run a long loop
// (`for (j2 = j1; j2 < n; j2++)`) whose iterations are independent: the GPU
// idles while each thread walks the loop. The fix spreads the iterations over
// the grid's y dimension:
//
//   for (int j2 = j1 + (int)blockIdx.y; j2 < n; j2 += (int)gridDim.y)
//
// and the launch gets y blocks (`dim3(grid.x, <bound>)`). The kernel is
// exact for every gridDim.y: with one y block it is the original loop; with
// more, each iteration of the original runs once, in another thread.
//
// Legality (bitwise):
// - the loop holds every side effect of the kernel: around it only
//   declarations, `if (...) return;` guards and ifs leading to it (each new
//   thread repeats them); no memory written outside the loop, no memory the
//   loop writes read outside it;
// - the iterations are independent: no local declared outside the loop is
//   written in it; no barrier, shared memory, warp operation or atomic; no
//   break, return or goto leaving it; for every buffer the loop writes, no
//   two accesses of different iterations of one thread reach the same
//   element, one of them a write (shown on the symbolic addresses of the
//   access analysis: their difference is zero only when the iterations are
//   the same; for row-major `i * n + j` indexing, with both indices in
//   [0, n), each component separately). Accesses of different threads were
//   already concurrent in the original: they stay as they were.
// - the kernel reads no y or z index or extent (it must not see the new
//   blocks); other buffers it reads are proven distinct from the ones it
//   writes, or the fix is offered unproven.
//
//===----------------------------------------------------------------------===//
#include "LaunchDistributeLoop.h"
#include "../coalescing/RowWalk.h"

#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/BuiltinUse.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <functional>
#include <numeric>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *const T1 = "@t1", *const T2 = "@t2";

/// The conditions on the way to the loop: each with the value it has when
/// the loop runs (an `if` around it: true; a guard returning before it:
/// false).
using PathConds = std::vector<std::pair<const Expr *, bool>>;

/// The loop holding every side effect of \p S: \p S itself, the loop of an
/// `if` without else around it, or of a block whose other statements are
/// declarations, guards returning early and empty statements (before it) or
/// `return;` (after it). Null when \p S has no such shape.
const ForStmt *soleLoop(const Stmt *S, PathConds &Conds) {
  if (const auto *F = dyn_cast<ForStmt>(S))
    return F;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable())
      return nullptr;
    Conds.push_back({If->getCond(), true});
    return soleLoop(If->getThen(), Conds);
  }
  const auto *CS = dyn_cast<CompoundStmt>(S);
  if (!CS)
    return nullptr;
  const ForStmt *Found = nullptr;
  for (const Stmt *C : CS->body()) {
    if (Found) {
      const auto *R = dyn_cast<ReturnStmt>(C);
      if ((R && !R->getRetValue()) || isa<NullStmt>(C))
        continue;
      return nullptr;
    }
    if (isa<DeclStmt>(C) || isa<NullStmt>(C))
      continue;
    if (const Expr *Guard = earlyExit(C)) {
      Conds.push_back({Guard, false});
      continue;
    }
    Found = soleLoop(C, Conds);
    if (!Found)
      return nullptr;
  }
  return Found;
}

/// Non-negative, the access analysis's way (no overflow): a constant >= 0
/// plus built-in indices and extents with positive coefficients.
bool nonNegative(const AffineExpr &E) {
  if (!E.isKnown())
    return false;
  for (const auto &[M, C] : E.terms()) {
    if (C < 0)
      return false;
    for (const std::string &S : M)
      if (S.rfind("threadIdx.", 0) && S.rfind("blockIdx.", 0) &&
          S.rfind("blockDim.", 0) && S.rfind("gridDim.", 0))
        return false;
  }
  return true;
}

/// Parameters the conditions \p Conds prove positive: `a < P` true (or
/// `a >= P` false, a guard `if (a >= P) return;`) with a >= 0.
std::set<std::string> positiveParams(const PathConds &Conds,
                                     const FunctionFacts &Facts) {
  std::set<std::string> Out;
  std::function<void(const Expr *, bool)> Walk = [&](const Expr *E, bool V) {
    E = E->IgnoreParenImpCasts();
    const auto *BO = dyn_cast<BinaryOperator>(E);
    if (!BO)
      return;
    if ((V && BO->getOpcode() == BO_LAnd) || (!V && BO->getOpcode() == BO_LOr)) {
      Walk(BO->getLHS(), V);
      Walk(BO->getRHS(), V);
      return;
    }
    BinaryOperatorKind Op = BO->getOpcode();
    const Expr *Small = nullptr, *Big = nullptr;
    if ((V && Op == BO_LT) || (!V && Op == BO_GE))
      Small = BO->getLHS(), Big = BO->getRHS();
    else if ((V && Op == BO_GT) || (!V && Op == BO_LE))
      Small = BO->getRHS(), Big = BO->getLHS();
    else
      return;
    const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(Big));
    if (P && !Facts.isMutated(P) && nonNegative(toAffine(Small, Facts)))
      Out.insert(P->getNameAsString());
  };
  for (const auto &[E, V] : Conds)
    Walk(E, V);
  return Out;
}

/// A launch dimension's value, from its constant or the first tuple of
/// values along the call paths.
std::optional<std::array<uint64_t, 3>>
shapeOf(const LaunchSite &L, bool Grid) {
  const LaunchArg &A = Grid ? L.Grid : L.Block;
  if (A.Dim)
    return A.Dim;
  for (const LaunchValues &V : L.Values) {
    const ValueInfo &VI = Grid ? V.Grid : V.Block;
    if (VI.Kind == ValueInfo::Dim && VI.DimExprs[0].empty() &&
        VI.DimExprs[1].empty() && VI.DimExprs[2].empty())
      return VI.Dims;
    if (VI.Kind == ValueInfo::Integer && VI.Expr.empty() && VI.Int > 0)
      return std::array<uint64_t, 3>{uint64_t(VI.Int), 1, 1};
  }
  return std::nullopt;
}

int64_t coef(const AffineExpr &E, const std::string &S) {
  auto It = E.terms().find(AffineExpr::Monomial{S});
  return It == E.terms().end() ? 0 : It->second;
}

/// The greatest common divisor of \p E's coefficients (0 for E = 0).
int64_t coefficientGcd(const AffineExpr &E) {
  int64_t G = 0;
  for (const auto &[M, C] : E.terms())
    G = std::gcd(G, C < 0 ? -C : C);
  return G;
}

/// \p E divided by the greatest common divisor of its coefficients (an
/// equation E = 0 that holds for the same values).
AffineExpr reduced(const AffineExpr &E) {
  int64_t G = coefficientGcd(E);
  if (G <= 1)
    return E;
  AffineExpr R;
  for (const auto &[M, C] : E.terms()) {
    AffineExpr T = AffineExpr::constant(C / G);
    for (const std::string &S : M)
      T = T * AffineExpr::symbol(S);
    R = R + T;
  }
  return R;
}

/// Do the equations \p Eqs (each = 0) imply t1 = t2? True when t1 - t2 is a
/// combination of them (one equation, or two solved for the coefficients of
/// t1 and t2 and checked on every other term).
bool impliesSameIteration(const std::vector<AffineExpr> &Eqs) {
  for (const AffineExpr &E : Eqs)
    for (const auto &[M, C] : E.terms())
      if (M.size() > 1 && (std::count(M.begin(), M.end(), T1) ||
                           std::count(M.begin(), M.end(), T2)))
        return false; // t1 times something: not linear in the iterations
  auto Target = [](const AffineExpr::Monomial &M) -> int64_t {
    if (M.size() == 1 && M[0] == T1)
      return 1;
    if (M.size() == 1 && M[0] == T2)
      return -1;
    return 0;
  };
  for (const AffineExpr &E : Eqs) {
    int64_t A = coef(E, T1);
    if (A == 0 || coef(E, T2) != -A)
      continue;
    bool Only = true;
    for (const auto &[M, C] : E.terms())
      Only &= Target(M) != 0;
    if (Only)
      return true;
  }
  if (Eqs.size() != 2)
    return false;
  const AffineExpr &P = Eqs[0], &Q = Eqs[1];
  int64_t P1 = coef(P, T1), P2 = coef(P, T2), Q1 = coef(Q, T1),
          Q2 = coef(Q, T2);
  int64_t Det = P1 * Q2 - Q1 * P2;
  if (Det == 0)
    return false;
  // alpha = (Q1 + Q2) / Det, beta = -(P1 + P2) / Det solve the t1 and t2
  // columns; every other term must cancel.
  int64_t Al = Q1 + Q2, Be = -(P1 + P2);
  std::set<AffineExpr::Monomial> All;
  for (const auto &[M, C] : P.terms())
    All.insert(M);
  for (const auto &[M, C] : Q.terms())
    All.insert(M);
  All.insert({T1});
  All.insert({T2});
  for (const AffineExpr::Monomial &M : All) {
    auto Get = [&](const AffineExpr &E) {
      auto It = E.terms().find(M);
      return It == E.terms().end() ? int64_t(0) : It->second;
    };
    if (Al * Get(P) + Be * Get(Q) != Det * Target(M))
      return false;
  }
  return true;
}

/// Can accesses \p A and \p B (same buffer, inside loop \p L) of two
/// different iterations of one thread reach the same element? False when
/// proven not. \p Own is the loop's own symbol (its induction variable or
/// iteration number); \p Bound, when not empty, a parameter with every
/// value of \p Own in [0, Bound).
bool mayConflict(const MemAccess &A, const MemAccess &B, const LoopInfo &L,
                 const std::string &Own, const std::string &Bound,
                 const std::set<std::string> &Positive) {
  if (!A.Address.isKnown() || !B.Address.isKnown() ||
      A.ElemBytes != B.ElemBytes)
    return true;
  auto Rename = [&](AffineExpr E, const std::string &Tag,
                    const std::string &T) {
    for (const std::string &S : L.VaryingSyms)
      E = E.substitute(S, AffineExpr::symbol(S == Own ? T : S + "#" + Tag));
    return E;
  };
  AffineExpr Raw = Rename(A.Address, "a", T1) - Rename(B.Address, "b", T2);
  // Distinct addresses must also be whole accesses apart: every term of the
  // byte difference a multiple of the access size (4-byte loads 2 bytes
  // apart overlap).
  int64_t G = coefficientGcd(Raw);
  unsigned Size = std::max(A.AccessBytes, B.AccessBytes);
  if (G != 0 && Size != 0 && G % Size != 0)
    return true;
  AffineExpr D = reduced(Raw);
  // s * D' = 0 with s > 0: D' = 0 (`out[c * rows + i]` over c, rows > 0).
  for (bool Again = true; Again;) {
    Again = false;
    for (const std::string &S : Positive)
      if (D.symbols().count(S) &&
          D.substitute(S, AffineExpr::constant(0)) == AffineExpr()) {
        AffineExpr Q = D.coefficientOf(S);
        if (Q.isKnown() && !Q.symbols().count(S)) {
          D = reduced(Q);
          Again = true;
        }
      }
  }
  if (impliesSameIteration({D}))
    return false;
  if (Bound.empty())
    return true;
  // Row-major: D = Bound * P + Q with |Q| < Bound gives P = 0 and Q = 0.
  AffineExpr P = D.coefficientOf(Bound);
  if (!P.isKnown() || P.symbols().count(Bound))
    return true;
  AffineExpr Q = D.substitute(Bound, AffineExpr::constant(0));
  for (const auto &[M, C] : Q.terms())
    if (M.size() != 1 || (M[0] != T1 && M[0] != T2) || (C != 1 && C != -1))
      return true;
  if (coef(Q, T1) != 0 && coef(Q, T1) == coef(Q, T2))
    return true; // t1 + t2 may reach 2 * Bound
  return !impliesSameIteration({P, Q});
}

bool isSimpleOperand(const Expr *E) {
  E = E->IgnoreImpCasts();
  return isa<DeclRefExpr, IntegerLiteral, ParenExpr, CallExpr>(E);
}

} // namespace

RuleInfo LaunchDistributeLoop::info() const {
  RuleInfo I;
  I.Id = "launch-distribute-loop";
  I.Category = "launch";
  I.Summary = "few threads each run a long loop of independent iterations: "
              "spread the iterations over the grid's y dimension";
  I.Exactness = Exactness::Bitwise;
  I.DefaultOptions["MaxThreads"] = "32768";
  I.DefaultOptions["MinTrip"] = "16";
  I.Help =
      "A kernel launched with few threads, each running a loop whose "
      "iterations do not depend on each other, keeps most of the GPU idle "
      "while every thread walks its loop. Spreading the iterations over "
      "the grid's y dimension (a grid-stride loop over blockIdx.y) runs "
      "them in parallel; each iteration still runs once, unchanged.";
  I.Doc.Detects =
      "A kernel whose side effects all happen in one `for` loop per thread "
      "(around it only declarations, `if (...) return;` guards and the "
      "`if` leading to it), with a step of 1 and at least `MinTrip` "
      "iterations (or a bound that is not a constant), launched with at "
      "most `MaxThreads` threads in all (the launch's constants, or the "
      "values the harness inference finds along the call paths) and a "
      "one-dimensional grid and block, when the loop's iterations are "
      "independent: no local declared outside the loop is written in it, "
      "no barrier, shared memory, warp operation or atomic, no `break`, "
      "`return` or `goto` leaving it, and for every buffer the loop "
      "writes, no two accesses of different iterations reach the same "
      "element with one of them a write. The last point is shown on the "
      "symbolic addresses of the access analysis: their difference is "
      "zero only when the iterations are equal, directly (`out[j]`, "
      "`out[i * n + j]` over j) or, for row-major `r * n + c` indexing "
      "with the loop running below the parameter `n` from a non-negative "
      "start, component by component (`s[j1 * n + j2]` and "
      "`s[j2 * n + j1]` over j2, the symmetric store of a covariance). "
      "The induction variable is declared in the loop as `T j = start` "
      "with T at least as wide as `int` (a narrower one could wrap with "
      "the new step), and the kernel calls no `printf` or `clock` (their "
      "output or count would change). "
      "Loops whose iterations depend on each other (a triangular solve's "
      "row loop, a running sum) are not reported. The typical case is a "
      "covariance or correlation matrix computed with one thread per "
      "column, each thread computing a whole row of the symmetric output "
      "(bench/corpus/covariance).";
  I.Doc.WhySlow =
      "An H200 keeps about 270,000 threads resident (132 SMs x 2048). A "
      "launch of 1,280 threads fills 10 SMs at best, with one warp per "
      "scheduler: every load's latency is exposed, and the loop's "
      "iterations, which could all run at once, run one after another. "
      "launch-small-grid reports the few blocks; this rule finds the "
      "parallelism that is left in the loop.";
  I.Doc.Example = R"cuda(__global__ void covar(float *symmat, const float *data, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < n) {
    for (int j2 = j1; j2 < n; j2++) {   // warning: 1280 threads, n iterations each
      float s = 0;
      for (int i = 0; i < m; i++)
        s += data[i * n + j1] * data[i * n + j2];
      symmat[j1 * n + j2] = s;
      symmat[j2 * n + j1] = s;
    }
  }
}
...
covar<<<(n + 255) / 256, 256>>>(symmat, data, m, n);)cuda";
  I.Doc.Fixed = R"cuda(    for (int j2 = j1 + (int)blockIdx.y; j2 < n; j2 += (int)gridDim.y) {
...
covar<<<dim3((n + 255) / 256, n > 1 ? (n < 65535 ? n : 65535) : 1), 256>>>(symmat, data, m, n);)cuda";
  I.Doc.Fix =
      "The loop becomes a grid-stride loop over the grid's y dimension: "
      "its start gains `+ (T)blockIdx.y` and its step becomes "
      "`+= (T)gridDim.y` (T: the induction variable's type as written). "
      "Every launch of the kernel in the file gets y blocks: the loop's "
      "bound, clamped to [1, 65535] (a constant bound is written as the "
      "number; a bound over the kernel's parameters as a conditional over "
      "the same expression of the launch's arguments). The grid is rebuilt as `dim3(<x>, <y>, <z>)` "
      "from an integer, a written `dim3(...)`/`{...}` or a `dim3` "
      "variable; the block is not changed.\n"
      "\n"
      "Bitwise: with one y block the loop is the original; with more, the "
      "thread (x, y) runs the iterations y, y + gridDim.y, ... of the "
      "original thread x, each unchanged, and since no iteration reads "
      "what another writes, nor writes what another reads or writes, "
      "they give the same values in any order. What the kernel does "
      "outside the loop only computes values (no stores), which every new "
      "thread repeats. Launches in other files (or through "
      "`cudaLaunchKernel`) keep one y block and run the original loop.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the kernel reads a y or z index or extent (`blockIdx.y`, "
      "`gridDim.y`, ...), or its use of them cannot be seen (inline "
      "assembly, cooperative groups, calls without a body);\n"
      "- barriers, shared memory, warp operations or atomics;\n"
      "- the loop's bound is not an expression over constants and the "
      "kernel's parameters, or a launch's argument for one of them is not a "
      "simple expression;\n"
      "- a launch's grid is written in a macro or is not an integer, a "
      "`dim3(...)` or a `dim3` variable.\n"
      "\n"
      "When a buffer the loop writes is not proven distinct from another "
      "it accesses (`__restrict__`, or separate allocations at every "
      "launch), or the loop reads memory whose buffer the access analysis "
      "cannot name (a pointer loaded from memory, a struct member), the "
      "fix is offered unproven: applied only after `--verify=run`.";
  return I;
}

// Over 150 lines: the shape, the gate on the launch, the legality of the
// distribution (each a reason to leave) and the edits, in one pass.
void LaunchDistributeLoop::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate || !Kernel.Analysis || !context().Model)
    return;
  ASTContext &C = ctx();
  const SourceManager &SM = sourceManager();
  const FunctionDecl *K = Kernel.FD;
  const KernelAnalysis &KA = *Kernel.Analysis;
  PathConds Conds;
  const ForStmt *Loop = soleLoop(K->getBody(), Conds);
  if (!Loop || !isUserCode(Loop->getBeginLoc()))
    return;
  auto Shape = analyzeFor(C, Loop);
  if (!Shape || Shape->Step != 1 ||
      (Shape->Cmp != BO_LT && Shape->Cmp != BO_LE))
    return;
  const auto *InitDS = dyn_cast_or_null<DeclStmt>(Loop->getInit());
  // An int-wide induction variable written `T j = ...` (a narrower one
  // could wrap with the new step; braces would not take the new start).
  if (!InitDS || C.getTypeSize(Shape->IV->getType()) < 32 ||
      Shape->IV->getInitStyle() != VarDecl::CInit ||
      isa<InitListExpr>(Shape->Init->IgnoreImpCasts()))
    return;
  // Output whose order or count would change.
  if (containsCallTo(K->getBody(), {"printf", "clock*", "__nanosleep"}))
    return;
  const LoopInfo *L = KA.loopOf(Loop);
  if (!L || L->S != Loop)
    return;
  if (L->TripCount && *L->TripCount < optionInt("MinTrip", 16))
    return;

  // --- the gate: few threads, one-dimensional launches -------------------
  std::string QN = K->getQualifiedNameAsString();
  uint64_t MaxThreads = uint64_t(optionInt("MaxThreads", 32768));
  std::optional<uint64_t> Threads;
  std::string At;
  for (const LaunchSite &S : context().Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    auto G = shapeOf(S, true), B = shapeOf(S, false);
    if (!G || !B)
      continue;
    if ((*G)[1] != 1 || (*G)[2] != 1 || (*B)[1] != 1 || (*B)[2] != 1)
      return;
    uint64_t N = (*G)[0] * (*B)[0];
    if (N > MaxThreads)
      return;
    if (!Threads || N > *Threads) {
      Threads = N;
      At = S.Loc.str();
    }
  }
  if (!Threads)
    return;

  // --- the iterations are independent (else: silent) ---------------------
  std::string Own;
  for (const std::string &S : L->IVValue.symbols())
    if (L->VaryingSyms.count(S))
      Own = S;
  if (Own.empty())
    return;
  // The bound, when the loop runs from a non-negative start below a
  // parameter: every value of the loop's symbol is in [0, Bound), and Bound
  // is positive whenever an iteration runs.
  std::string Bound;
  if (Shape->Cmp == BO_LT && nonNegative(L->Init))
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(Shape->Bound)))
      if (!Kernel.Facts.isMutated(P))
        Bound = P->getNameAsString();
  std::set<std::string> Positive = positiveParams(Conds, Kernel.Facts);
  if (!Bound.empty())
    Positive.insert(Bound);
  auto InLoop = [&](const MemAccess &A) {
    return std::find(A.Loops.begin(), A.Loops.end(), L) != A.Loops.end();
  };
  auto DeclaredInLoop = [&](const Decl *D) {
    SourceLocation DL = SM.getExpansionLoc(D->getLocation());
    return !SM.isBeforeInTranslationUnit(
               DL, SM.getExpansionLoc(Loop->getBeginLoc())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Loop->getEndLoc()),
                                         DL);
  };
  if (!KA.EscapedBases.empty())
    return;
  std::set<const ValueDecl *> Written, Accessed;
  for (const MemAccess &A : KA.Accesses) {
    if (A.Space == MemSpace::Shared || A.IsAtomic || (A.IsWrite && !A.Base))
      return;
    if (A.Space == MemSpace::Constant)
      continue;
    if (A.Space == MemSpace::Local) {
      if (A.IsWrite && (!InLoop(A) || !DeclaredInLoop(A.Base)))
        return;
      continue;
    }
    if (A.IsWrite && !InLoop(A))
      return;
    if (A.IsWrite)
      Written.insert(A.Base);
    if (InLoop(A) && A.Base)
      Accessed.insert(A.Base);
  }
  for (const MemAccess &A : KA.Accesses)
    if (A.Base && Written.count(A.Base) && !InLoop(A))
      return; // read outside the loop: a new thread may see another's store
  for (const VarDecl *V : varsWrittenIn(Loop))
    if (V != Shape->IV && !DeclaredInLoop(V))
      return; // carried from one iteration to the next
  if (containsEscape(Loop->getBody(), /*AllowContinue=*/true))
    return;
  std::vector<const MemAccess *> OnWritten;
  for (const MemAccess &A : KA.Accesses)
    if (A.Base && Written.count(A.Base) && InLoop(A) &&
        A.Space != MemSpace::Local) {
      for (const std::string &S : A.Address.symbols())
        if (S.front() == '{' && !L->VaryingSyms.count(S) &&
            !analysis()->isInvariant(AffineExpr::symbol(S), *L, true))
          return;
      OnWritten.push_back(&A);
    }
  for (size_t I = 0; I < OnWritten.size(); ++I)
    for (size_t J = I; J < OnWritten.size(); ++J) {
      const MemAccess &A = *OnWritten[I], &B = *OnWritten[J];
      if (A.Base != B.Base || (!A.IsWrite && !B.IsWrite))
        continue;
      if (mayConflict(A, B, *L, Own, Bound, Positive))
        return;
    }

  // --- the finding -------------------------------------------------------
  std::string IV = Shape->IV->getNameAsString();
  std::string BoundText = sourceText(C, Shape->Bound->getSourceRange());
  Finding &F = reportLater(finding(
      Loop->getBeginLoc(),
      "'" + K->getNameAsString() + "' runs on " + std::to_string(*Threads) +
          " threads, each running the iterations of the loop over '" + IV +
          "' (up to " + (BoundText.empty() ? "its bound" : BoundText) +
          ") one after another, though they are independent: spread them "
          "over the grid's y dimension",
      K, SourceRange(Loop->getBeginLoc(), Loop->getRParenLoc())));
  note(F, Loop->getBeginLoc(),
       "the launch at " + At + " starts " + std::to_string(*Threads) +
           " threads (the GPU keeps about 270,000 resident)");

  // --- the rest of the legality ------------------------------------------
  BuiltinUse U = builtinUse(C, K);
  if (!U.Unknown.empty()) {
    refuse(F, U.Unknown);
    return;
  }
  for (const char *N : {"blockIdx.y", "blockIdx.z", "gridDim.y", "gridDim.z",
                        "threadIdx.y", "threadIdx.z", "blockDim.y",
                        "blockDim.z"})
    if (U.reads(N)) {
      refuse(F, std::string("the kernel reads '") + N +
                    "': it would see the new y blocks");
      return;
    }
  if (U.WarpOp || U.BarrierCount ||
      containsCallTo(K->getBody(), {"__syncthreads*", "__syncwarp",
                                    "__threadfence*"})) {
    refuse(F, "the kernel uses barriers or warp operations: its threads "
              "are not independent");
    return;
  }

  // --- the edits -----------------------------------------------------------
  FixIt X;
  X.Exact = Exactness::Bitwise;
  std::string Why;
  const VarDecl *IVD = Shape->IV;
  std::string TypeText = spelledType(C, IVD);
  const Expr *Init = Shape->Init;
  auto InitR = editableRange(
      C, CharSourceRange::getTokenRange(Init->getSourceRange()), Why);
  auto IncR = Loop->getInc()
                  ? editableRange(C,
                                  CharSourceRange::getTokenRange(
                                      Loop->getInc()->getSourceRange()),
                                  Why)
                  : std::nullopt;
  std::string InitText = sourceText(C, Init->getSourceRange());
  if (!InitR || !IncR || InitText.empty()) {
    refuse(F, Why.empty() ? "the loop's header cannot be edited" : Why);
    return;
  }
  std::string Start = "(" + TypeText + ")blockIdx.y";
  if (!isZeroConstant(C, Init))
  {
    const auto *BO = dyn_cast<BinaryOperator>(Init->IgnoreImpCasts());
    bool Plain = isSimpleOperand(Init) ||
                 (BO && (BO->isAdditiveOp() || BO->isMultiplicativeOp()));
    Start = (Plain ? InitText : "(" + InitText + ")") + " + " + Start;
  }
  X.Edits.push_back(makeTextEdit(C, *InitR, Start));
  X.Edits.push_back(
      makeTextEdit(C, *IncR, IV + " += (" + TypeText + ")gridDim.y"));

  // The y extent: the bound, clamped to [1, 65535], at each launch.
  // A constant bound is written as the number; one over the kernel's
  // parameters as the same expression over the launch's arguments.
  std::optional<int64_t> ConstBound = evalInt(C, Shape->Bound);
  std::vector<const DeclRefExpr *> BoundRefs;
  bool BoundOk = isPureNoMemory(Shape->Bound);
  forEachStmt(Shape->Bound, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
      if (P && !Kernel.Facts.isMutated(P))
        BoundRefs.push_back(DRE);
      else if (!isa<EnumConstantDecl>(DRE->getDecl()))
        BoundOk = false;
    }
  });
  if (!ConstBound && !BoundOk) {
    refuse(F, "the loop's bound '" + BoundText +
                  "' is not an expression over the kernel's parameters: "
                  "the launch's y extent cannot be written from it");
    return;
  }
  auto Sites = launchSitesOf(C, context(), K);
  if (Sites.empty()) {
    refuse(F, "no launch of '" + K->getNameAsString() +
                  "' is visible in this file to give y blocks");
    return;
  }
  for (const CUDAKernelCallExpr *Site : Sites) {
    const CallExpr *Cfg = Site->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 1) {
      refuse(F, "a launch has no visible configuration");
      return;
    }
    std::string Y;
    if (ConstBound) {
      int64_t V = *ConstBound + (Shape->Cmp == BO_LE ? 1 : 0);
      Y = std::to_string(std::clamp<int64_t>(V, 1, 65535));
    } else {
      std::vector<std::pair<const Stmt *, std::string>> Repl;
      for (const DeclRefExpr *DRE : BoundRefs) {
        unsigned Idx =
            cast<ParmVarDecl>(DRE->getDecl())->getFunctionScopeIndex();
        const Expr *A = Idx < Site->getNumArgs() ? Site->getArg(Idx) : nullptr;
        std::string T = A ? sourceText(C, A->getSourceRange()) : "";
        if (T.empty() || !isPureNoMemory(A)) {
          refuse(F, "the launch's argument for '" +
                        DRE->getDecl()->getNameAsString() +
                        "' is not a simple expression that can be written "
                        "again");
          return;
        }
        Repl.push_back({DRE, isSimpleOperand(A) ? T : "(" + T + ")"});
      }
      std::string T = rewrittenText(C, Shape->Bound, Repl);
      if (T.empty()) {
        refuse(F, "the loop's bound '" + BoundText +
                      "' cannot be written at the launch");
        return;
      }
      if (!isSimpleOperand(Shape->Bound))
        T = "(" + T + ")";
      if (Shape->Cmp == BO_LE)
        T = "(" + T + " + 1)";
      Y = T + " > 1 ? (" + T + " < 65535 ? " + T + " : 65535) : 1";
    }
    const Expr *W = writtenLaunchDim(Cfg->getArg(0));
    std::string WT = sourceText(C, W->getSourceRange());
    std::string New;
    if (WT.empty() || inMacro(W->getSourceRange())) {
      refuse(F, "a launch's grid is written in a macro");
      return;
    }
    if (W->getType()->isIntegralOrEnumerationType()) {
      New = "dim3(" + WT + ", " + Y + ")";
    } else if (auto Comps = writtenDimComponents(W);
               Comps && !Comps->empty()) {
      std::string X0 = sourceText(C, (*Comps)[0]->getSourceRange());
      std::string Z0 = Comps->size() > 2
                           ? sourceText(C, (*Comps)[2]->getSourceRange())
                           : "1";
      if (X0.empty() || Z0.empty()) {
        refuse(F, "a launch's grid is written in a macro");
        return;
      }
      New = "dim3(" + X0 + ", " + Y + ", " + Z0 + ")";
    } else if (isa<DeclRefExpr>(W->IgnoreParenImpCasts())) {
      New = "dim3(" + WT + ".x, " + Y + ", " + WT + ".z)";
    } else {
      refuse(F, "the grid '" + WT +
                    "' is not an integer, a dim3(...) or a dim3 variable");
      return;
    }
    auto R = editableRange(
        C, CharSourceRange::getTokenRange(W->getSourceRange()), Why);
    if (!R) {
      refuse(F, Why);
      return;
    }
    X.Edits.push_back(makeTextEdit(C, *R, New));
    note(F, Site->getBeginLoc(), "this launch gets y blocks");
  }

  // Memory the access analysis cannot name, read in a loop that writes.
  for (const MemAccess &A : KA.Accesses)
    if (!A.Base && InLoop(A) && !Written.empty() &&
        A.Space != MemSpace::Local && A.Space != MemSpace::Constant) {
      X.Proven = false;
      note(F, Loop->getBeginLoc(),
           "'" + A.Text +
               "' reads memory whose buffer is not known: assumed not to "
               "overlap what the loop writes (the fix needs --verify=run)");
      break;
    }
  // Buffers the loop writes against the others it accesses.
  for (const ValueDecl *W : Written)
    for (const ValueDecl *O : Accessed) {
      if (O == W)
        continue;
      const auto *PW = dyn_cast<ParmVarDecl>(W), *PO = dyn_cast<ParmVarDecl>(O);
      std::string How, NotWhy;
      if (PW && PO && provenDistinct(C, context(), K, PW, PO, How, NotWhy))
        continue;
      X.Proven = false;
      note(F, W->getLocation(),
           "assumes '" + W->getNameAsString() + "' and '" +
               O->getNameAsString() +
               "' do not overlap (not proven: the fix needs --verify=run)");
    }
  X.Description = "spread the iterations of the loop over '" + IV +
                  "' in '" + K->getNameAsString() +
                  "' over the grid's y dimension, and give its launches y "
                  "blocks";
  F.Fix = std::move(X);
}

} // namespace cudal1
