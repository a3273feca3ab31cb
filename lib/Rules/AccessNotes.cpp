//===- AccessNotes.cpp - wording of findings from the access analysis -----===//
#include "AccessNotes.h"
#include "LaunchConstants.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Analysis/Config.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

using namespace clang;

namespace cudal1 {

const char *accessVerb(const MemAccess &A) {
  if (A.IsAtomic)
    return "atomic";
  if (A.IsRead && A.IsWrite)
    return "read-modify-write";
  return A.IsWrite ? "store" : "load";
}

std::string elementIndexText(const MemAccess &A) {
  if (!A.Address.isKnown() || !A.ElemBytes)
    return "";
  AffineExpr Q;
  for (auto &T : A.Address.terms()) {
    if (T.second % (int64_t)A.ElemBytes)
      return A.Address.str() + " (bytes)";
    AffineExpr M = AffineExpr::constant(T.second / A.ElemBytes);
    for (auto &S : T.first)
      M = M * AffineExpr::symbol(S);
    Q = Q + M;
  }
  return Q.str();
}

void addCallChainNotes(const ASTContext &Ctx, Finding &F, const MemAccess &A) {
  for (const CallExpr *CE : A.CallChain)
    F.Notes.push_back(
        makeNote(Ctx, CE->getBeginLoc(), "reached through this call"));
}

void addAccessNotes(const ASTContext &Ctx, Finding &F, const MemAccess &A,
                    const KernelAnalysis &K, const std::string &Condition,
                    const std::string &Assumption) {
  std::string Idx = elementIndexText(A);
  std::string Text = "index of '" + A.BaseName + "' in elements: " + Idx;
  if (!Condition.empty())
    Text += "; the sector count holds " + Condition;
  if (!Assumption.empty())
    Text += " (" + Assumption + ")";
  if (!Idx.empty())
    F.Notes.push_back(makeNote(
        Ctx, A.Index ? A.Index->getBeginLoc() : A.E->getExprLoc(), Text));
  if (Assumption.empty() && K.Block[0] && !K.BlockLoc.File.empty()) {
    FindingNote N;
    N.Loc = K.BlockLoc;
    N.Message = "block shape " + std::to_string(K.Block[0]) + "x" +
                std::to_string(K.Block[1]) + "x" + std::to_string(K.Block[2]) +
                " from this launch";
    F.Notes.push_back(N);
  }
  addCallChainNotes(Ctx, F, A);
}

const LoopInfo *innermostLoop(const MemAccess &A) {
  return A.Loops.empty() ? nullptr : A.Loops.back();
}

/// The bound of `for (i = ...; i < B; ...)` (`i <= B`: B + 1) when it is a
/// constant or a kernel parameter every launch passes as one (`c <
/// channels` with channels = 3).
static std::optional<int64_t> boundValue(const CheckContext &CC,
                                         ASTContext &Ctx,
                                         const KernelAnalysis &K,
                                         const LoopInfo &L) {
  const Expr *Cond = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(L.S))
    Cond = F->getCond();
  else if (const auto *W = dyn_cast<WhileStmt>(L.S))
    Cond = W->getCond();
  const auto *B = Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts())
                       : nullptr;
  if (!B || !L.IV ||
      !(B->getOpcode() == BO_LT || B->getOpcode() == BO_LE))
    return std::nullopt;
  if (varOf(B->getLHS()) != L.IV)
    return std::nullopt;
  const Expr *Bound = B->getRHS()->IgnoreParenImpCasts();
  std::optional<int64_t> V;
  Expr::EvalResult R;
  if (!Bound->isValueDependent() && Bound->EvaluateAsInt(R, Ctx))
    V = R.Val.getInt().getExtValue();
  else if (const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(Bound))) {
    unsigned Sites = 0;
    if (K.Kernel)
      V = launchConstant(CC, K.Kernel, P, Sites);
  }
  if (V && B->getOpcode() == BO_LE)
    *V += 1;
  return V;
}

/// A loop bound below 8 (see boundValue).
static bool smallBound(const CheckContext &CC, ASTContext &Ctx,
                       const KernelAnalysis &K, const LoopInfo &L) {
  std::optional<int64_t> V = boundValue(CC, Ctx, K, L);
  return V && *V < 8;
}

/// \p L runs fewer than 8 iterations in each thread: a constant trip count
/// or bound below 8, or the block's threads striding over a constant range
/// (`for (b = threadIdx.x; b < 1024; b += 512)`, at most 2 each: a block's
/// bins copied in or out around its loop over the data).
static bool fewIterations(const CheckContext &CC, ASTContext &Ctx,
                          const KernelAnalysis &K, const LoopInfo &L) {
  if ((L.TripCount && *L.TripCount < 8) || smallBound(CC, Ctx, K, L))
    return true;
  const auto *F = L.S ? dyn_cast<ForStmt>(L.S) : nullptr;
  const auto *B = F && F->getCond() ? dyn_cast<BinaryOperator>(
                                          F->getCond()->IgnoreParenImpCasts())
                                    : nullptr;
  if (!B || !L.IV || L.Geometric || varOf(B->getLHS()) != L.IV ||
      !(B->getOpcode() == BO_LT || B->getOpcode() == BO_LE))
    return false;
  Expr::EvalResult R;
  const Expr *Bound = B->getRHS()->IgnoreParenImpCasts();
  if (Bound->isValueDependent() || !Bound->EvaluateAsInt(R, Ctx))
    return false;
  int64_t End = R.Val.getInt().getExtValue() + (B->getOpcode() == BO_LE);
  // Start: threadIdx.x plus a constant; step: a constant (blockDim.x is one
  // when every launch gives the block's size).
  std::optional<int64_t> Start =
      (L.Init - AffineExpr::symbol("threadIdx.x")).constantValue();
  std::optional<int64_t> Step = L.Step.constantValue();
  if (!Start || *Start < 0 || !Step || *Step <= 0)
    return false;
  return (End - *Start + *Step - 1) / *Step < 8;
}

bool touchesFixedColumns(const KernelAnalysis &K, const MemAccess &A) {
  if (!A.Base || !A.Address.isKnown())
    return false;
  AffineExpr Cx = A.Address.coefficientOf("threadIdx.x");
  if (!Cx.isKnown())
    return false;
  auto Builtin = [](const std::string &S) {
    return S.rfind("threadIdx.", 0) == 0 || S.rfind("blockIdx.", 0) == 0 ||
           S.rfind("blockDim.", 0) == 0 || S.rfind("gridDim.", 0) == 0;
  };
  // The row length: the symbols of the lanes' distance that are not the
  // launch's (`rows` in `id * rows + rows - 1`), or a constant distance of
  // at least a sector.
  std::set<std::string> Row;
  for (const std::string &S : Cx.symbols())
    if (!Builtin(S))
      Row.insert(S);
  std::optional<int64_t> RowBytes = Cx.constantValue();
  if (Row.empty() && (!RowBytes || std::llabs(*RowBytes) < 32))
    return false;
  // A term moves by whole rows: it holds the row length's symbol, or its
  // coefficient is a multiple of the constant row length.
  auto MovesRows = [&](const AffineExpr &C) {
    if (!C.isKnown() || C.terms().empty())
      return false;
    for (const auto &[M, Coef] : C.terms()) {
      bool Rows = RowBytes ? Coef % *RowBytes == 0
                           : llvm::any_of(M, [&](const std::string &S) {
                               return Row.count(S) != 0;
                             });
      if (!Rows)
        return false;
    }
    return true;
  };
  for (const MemAccess &B : K.Accesses) {
    if (B.Base != A.Base)
      continue;
    if (!B.Address.isKnown())
      return false;
    for (const std::string &S : B.Address.symbols()) {
      // The lanes, and values fixed for the whole launch (a parameter
      // never assigned: a column index `t`, an offset `np * n`). The
      // block's index and size, a grid-stride loop's iteration: whole rows
      // when they only place the thread (`(blockIdx.x * blockDim.x +
      // threadIdx.x) * rows`), a column when not (`value[i * d +
      // blockIdx.x]`).
      if (S == "threadIdx.x" ||
          (!Builtin(S) && S.find('@') == std::string::npos))
        continue;
      if (!MovesRows(B.Address.coefficientOf(S)))
        return false;
    }
  }
  return true;
}

const char *fixedColumnsDoc() {
  return "Not reported either: a kernel that touches a fixed few elements of "
         "each row of the array (a boundary column `a[id * rows + rows - "
         "1]`, a column of multipliers `m[n * (i + t + 1) + t]`, the "
         "partial sums a previous pass left `stride` apart), where nothing "
         "else in its addresses (another thread or block dimension, a "
         "loop) moves along the rows: the rows' other elements are not "
         "this kernel's data, so no thread mapping within it coalesces the "
         "access; only another layout of the array, for every kernel that "
         "uses it, or doing this work in the kernel that writes those rows "
         "would.";
}

const MemAccess *ownAccess(const KernelAnalysis &K, const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  for (const MemAccess &A : K.Accesses)
    if (A.E && A.CallChain.empty() && A.E->IgnoreParenImpCasts() == E)
      return &A;
  return nullptr;
}

const char *outweighingLoopDoc() {
  return "Not reported: an access that runs at most once per thread (in no "
         "loop, or only in loops of fewer than 8 iterations per thread: a "
         "constant trip count or bound below 8, or the block's threads "
         "striding over a constant range, `for (b = threadIdx.x; b < 1024; "
         "b += 512)`, a block's bins copied out after its loop) in a kernel "
         "with a loop of many iterations (a trip count "
         "that is neither a constant below 8 nor bounded by one: a literal, "
         "or a kernel parameter every launch passes as one) that runs "
         "whenever the access does (no condition or switch case between "
         "them; no return or goto between the access and a loop after it, "
         "nor in a branch holding the access; a loop inside a called device "
         "function counts when the function, and any function between it "
         "and the kernel, reaches it on every call, with no condition or "
         "early return before it: mandelbrot's escape loop in "
         "`p->Point(c)`): a per-thread prologue before "
         "an O(N) loop, or one store after a long compute loop, is a small "
         "share of the kernel's traffic and time. Accesses in loops of a "
         "known count (a constant, or a parameter every launch passes as "
         "one) are left out too when that long loop has an induction "
         "variable and a count known the same way of at least 64 times "
         "theirs: mcpr's zero-fill and final division of a thread's 21 "
         "probabilities around its 10000 Monte Carlo iterations. "
         "Not reported either: an access in a loop whose every iteration "
         "also runs, whenever the access does, inner loops of known trip "
         "counts (constants, or parameters every launch passes as one, "
         "also in device functions called on every iteration) with at "
         "least 320 innermost iterations for each global access of the "
         "iteration: kalman's per-step residual and variance, beside two "
         "8x8x8 matrix products of thread-local arrays. Each iteration is "
         "at least one instruction and an SM issues 4 warp instructions a "
         "cycle, while a warp's request of 32 sectors (1 KB) takes about "
         "80 cycles of an H100's DRAM bandwidth (3.35 TB/s over 132 SMs at "
         "1.98 GHz, 12.8 bytes per SM cycle): 320 instructions cover it, "
         "so the loop is bound by its arithmetic whatever the access's "
         "sectors.";
}

/// The trip count of \p L: its constant one, or, for `for (c = 0; c < P;
/// ++c)` with a parameter \p P that every launch in the file passes as one
/// constant (maxpool's `pool_width`, equal to its stride), that constant.
static std::optional<int64_t> loopTripCount(const CheckContext *CC,
                                            ASTContext &Ctx,
                                            const KernelAnalysis &K,
                                            const LoopInfo &L) {
  if (L.Trip == TripKind::Constant)
    return L.TripCount;
  if (L.Trip != TripKind::Parameter || !CC || L.Init != AffineExpr() ||
      L.Step != AffineExpr::constant(1))
    return std::nullopt;
  return boundValue(*CC, Ctx, K, L);
}

/// Multiplies \p Work by the iterations of \p L, a loop around the code
/// being weighed: unchanged for a loop of a few iterations, times its
/// known count (loopTripCount) otherwise. False when that count is not
/// known or the product grows past 2^24.
static bool addKnownWork(const CheckContext &CC, ASTContext &Ctx,
                         const KernelAnalysis &K, const LoopInfo &L,
                         uint64_t &Work) {
  if (fewIterations(CC, Ctx, K, L))
    return true;
  std::optional<int64_t> T = loopTripCount(&CC, Ctx, K, L);
  if (!T || *T < 1 || *T > (int64_t(1) << 20))
    return false;
  Work *= uint64_t(*T);
  return Work <= (uint64_t(1) << 24);
}

/// True when \p S runs whenever its function's body runs: no condition,
/// switch or conditional operator around it in the function, and no
/// return or goto before it.
static bool runsOnEveryCall(ASTContext &Ctx, const FunctionDecl *F,
                            const Stmt *S) {
  if (!F || !F->getBody())
    return false;
  for (const Stmt *A : stmtAncestors(Ctx, S)) {
    if (A == F->getBody())
      break;
    if (isa<IfStmt>(A) || isa<SwitchStmt>(A) || isa<SwitchCase>(A) ||
        isa<AbstractConditionalOperator>(A) ||
        (isa<BinaryOperator>(A) && cast<BinaryOperator>(A)->isLogicalOp()))
      return false;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  bool ExitBefore = false;
  forEachStmt(F->getBody(), [&](const Stmt *X) {
    if ((isa<ReturnStmt>(X) || isa<GotoStmt>(X)) &&
        SM.isBeforeInTranslationUnit(X->getBeginLoc(), S->getBeginLoc()))
      ExitBefore = true;
  });
  return !ExitBefore;
}

/// Where loop \p L runs as seen from the kernel's body: the loop itself
/// when it is in the kernel's body; for a loop in a device function, the
/// calls in the kernel's body that reach it (directly or through up to two
/// more functions), when every function on the way runs the loop, or the
/// next call, on every call (mandelbrot's escape loop in `p->Point(c)`).
static std::vector<const Stmt *> kernelSitesOf(ASTContext &Ctx,
                                               const KernelAnalysis &K,
                                               const LoopInfo &L) {
  const Stmt *KB = K.Kernel ? K.Kernel->getBody() : nullptr;
  if (!KB || !L.S)
    return {};
  if (KB->getSourceRange().fullyContains(L.S->getSourceRange()))
    return {L.S};
  const FunctionDecl *F = enclosingFunction(Ctx, DynTypedNode::create(*L.S));
  if (!F || !runsOnEveryCall(Ctx, F, L.S))
    return {};
  auto Callee = [](const CallExpr *CE) -> const FunctionDecl * {
    const FunctionDecl *D = CE->getDirectCallee();
    if (!D)
      return nullptr;
    if (const FunctionDecl *P = D->getTemplateInstantiationPattern())
      D = P;
    return D->getDefinition() ? D->getDefinition() : D;
  };
  // An instantiation (MM_l<8>) stands for its template, as callees do.
  auto Same = [&](const FunctionDecl *A, const FunctionDecl *B) {
    if (A && A->getTemplateInstantiationPattern())
      A = A->getTemplateInstantiationPattern();
    if (B && B->getTemplateInstantiationPattern())
      B = B->getTemplateInstantiationPattern();
    return A && B && A->getCanonicalDecl() == B->getCanonicalDecl();
  };
  std::vector<const Stmt *> Sites;
  // The functions that run the loop on every call, nearest first.
  std::vector<const FunctionDecl *> Runs{F};
  for (unsigned Level = 0; Level < 3 && Sites.empty(); ++Level) {
    forEachStmt(KB, [&](const Stmt *X) {
      if (const auto *CE = dyn_cast<CallExpr>(X))
        for (const FunctionDecl *R : Runs)
          if (Same(Callee(CE), R)) {
            Sites.push_back(CE);
            break;
          }
    });
    if (!Sites.empty() || Level == 2)
      break;
    // One level out: the functions the kernel calls whose bodies call one
    // of Runs on every call.
    std::vector<const FunctionDecl *> Next;
    forEachStmt(KB, [&](const Stmt *X) {
      const auto *CE = dyn_cast<CallExpr>(X);
      const FunctionDecl *G = CE ? Callee(CE) : nullptr;
      if (!G || !G->hasBody() || llvm::is_contained(Runs, G) ||
          llvm::is_contained(Next, G))
        return;
      forEachStmt(G->getBody(), [&](const Stmt *Y) {
        const auto *In = dyn_cast<CallExpr>(Y);
        if (!In || llvm::is_contained(Next, G))
          return;
        for (const FunctionDecl *R : Runs)
          if (Same(Callee(In), R) && runsOnEveryCall(Ctx, G, In)) {
            Next.push_back(G);
            break;
          }
      });
    });
    if (Next.empty())
      break;
    Runs = std::move(Next);
  }
  return Sites;
}

/// The kernel's returns and gotos after the code at \p At.
static std::vector<SourceLocation> exitsAfter(ASTContext &Ctx,
                                              const KernelAnalysis &K,
                                              const Stmt *At) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<SourceLocation> Exits;
  if (K.Kernel && K.Kernel->getBody())
    forEachStmt(K.Kernel->getBody(), [&](const Stmt *X) {
      if ((isa<ReturnStmt>(X) || isa<GotoStmt>(X)) &&
          SM.isBeforeInTranslationUnit(At->getEndLoc(), X->getBeginLoc()))
        Exits.push_back(X->getBeginLoc());
    });
  return Exits;
}

/// True when \p Site (a loop, or the call that runs one) runs whenever the
/// code at \p At does (\p AUp: its ancestors; \p Exits: exitsAfter(At)):
/// no condition between the site and the statement holding both, and no
/// branch holding the code that returns before the site.
static bool runsWhenever(ASTContext &Ctx, const std::vector<const Stmt *> &AUp,
                         const Stmt *At, const Stmt *Site,
                         const std::vector<SourceLocation> &Exits) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<const Stmt *> LUp = stmtAncestors(Ctx, Site);
  size_t Common = 0;
  while (Common < AUp.size() && !llvm::is_contained(LUp, AUp[Common]))
    ++Common;
  if (Common == AUp.size())
    return false;
  const Stmt *Meet = AUp[Common];
  // Meeting at a branch: the two are on different sides of it (or one is
  // its condition), and the site does not run whenever the code does.
  if (isa<IfStmt>(Meet) || isa<SwitchStmt>(Meet) ||
      isa<AbstractConditionalOperator>(Meet) ||
      (isa<BinaryOperator>(Meet) &&
       cast<BinaryOperator>(Meet)->isLogicalOp()))
    return false;
  for (const Stmt *S : LUp) {
    if (S == Meet)
      break;
    if (isa<IfStmt>(S) || isa<SwitchStmt>(S) || isa<SwitchCase>(S) ||
        isa<AbstractConditionalOperator>(S))
      return false;
  }
  for (size_t I = 1; I < Common; ++I)
    if (isa<IfStmt>(AUp[I]) || isa<SwitchStmt>(AUp[I]) ||
        isa<SwitchCase>(AUp[I])) {
      bool Leaves = false;
      forEachStmt(AUp[I - 1], [&](const Stmt *X) {
        if (isa<ReturnStmt>(X) || isa<GotoStmt>(X))
          Leaves = true;
      });
      if (Leaves)
        return false;
    }
  // A return or goto between the code and a site after it: threads that
  // leave never run the site.
  if (SM.isBeforeInTranslationUnit(At->getEndLoc(), Site->getBeginLoc()))
    for (SourceLocation X : Exits)
      if (SM.isBeforeInTranslationUnit(X, Site->getBeginLoc()))
        return false;
  return true;
}

/// outweighingLoop for code at \p At in the kernel's body (the outermost
/// of its few-iteration loops, if any).
static const LoopInfo *outweighingLoopAt(const CheckContext &CC,
                                         ASTContext &Ctx,
                                         const KernelAnalysis &K,
                                         const Stmt *At,
                                         bool CountedOnly = false,
                                         uint64_t MinTrip = 0) {
  std::vector<const Stmt *> AUp = stmtAncestors(Ctx, At);
  std::vector<SourceLocation> Exits = exitsAfter(Ctx, K, At);
  for (const auto &L : K.Loops) {
    if (!L->S || fewIterations(CC, Ctx, K, *L))
      continue;
    // Only a counted loop (an induction variable) when asked: a retry or
    // spin loop (`do { ... atomicCAS ... } while (assumed != old)`)
    // usually runs once.
    if (CountedOnly && !L->IV)
      continue;
    // Beside code that itself runs in loops: a known trip count that many
    // times theirs.
    if (MinTrip) {
      std::optional<int64_t> T = loopTripCount(&CC, Ctx, K, *L);
      if (!T || uint64_t(*T) < MinTrip)
        continue;
    }
    // The loop must run whenever the access does.
    for (const Stmt *Site : kernelSitesOf(Ctx, K, *L))
      if (runsWhenever(Ctx, AUp, At, Site, Exits))
        return L.get();
  }
  return nullptr;
}

/// The iterations that loop \p L runs per iteration of \p Outer, a loop
/// around it: the product of the known trip counts (loopTripCount) of \p L
/// and of the loops between them. None when one is not known, when \p
/// Outer is not around \p L, or past 2^24.
static std::optional<uint64_t> nestedIterations(const CheckContext &CC,
                                                ASTContext &Ctx,
                                                const KernelAnalysis &K,
                                                const LoopInfo *L,
                                                const LoopInfo *Outer) {
  uint64_t N = 1;
  for (const LoopInfo *P = L; P != Outer; P = P->Parent) {
    if (!P)
      return std::nullopt;
    std::optional<int64_t> T = loopTripCount(&CC, Ctx, K, *P);
    if (!T || *T < 0)
      return std::nullopt;
    N *= uint64_t(*T);
    if (N > (uint64_t(1) << 24))
      return std::nullopt;
  }
  return N;
}


/// The inner-work test (outweighingLoopDoc's last part) for access \p A: the loop it is in
/// runs, per iteration, at least 320 innermost iterations of known count
/// per global access. The leaf loop of the most iterations, or null.
static const LoopInfo *innerWorkOutweighs(const CheckContext &CC,
                                          ASTContext &Ctx,
                                          const KernelAnalysis &K,
                                          const MemAccess &A) {
  if (A.Loops.empty() || !A.E || !K.Kernel || !K.Kernel->getBody())
    return nullptr;
  const LoopInfo *Outer = A.Loops.back();
  const Stmt *KB = K.Kernel->getBody();
  if (!Outer->S || !KB->getSourceRange().fullyContains(Outer->S->getSourceRange()))
    return nullptr;
  // Global accesses per iteration of Outer, each counted as many times as
  // the loops between it and Outer run.
  uint64_t Accesses = 0;
  for (const MemAccess &B : K.Accesses) {
    if (B.Space != MemSpace::Global ||
        !llvm::is_contained(B.Loops, Outer))
      continue;
    const LoopInfo *Inner = B.Loops.back();
    std::optional<uint64_t> N =
        Inner == Outer ? std::optional<uint64_t>(1)
                       : nestedIterations(CC, Ctx, K, Inner, Outer);
    if (!N)
      return nullptr;
    Accesses += *N;
  }
  if (!Accesses)
    return nullptr;
  // The innermost loops nested in Outer, with their iterations per
  // iteration of Outer, counted when they run whenever the access does.
  std::set<const LoopInfo *> Parents;
  for (const auto &L : K.Loops)
    if (L->Parent)
      Parents.insert(L->Parent);
  const Stmt *At = A.CallChain.empty() ? static_cast<const Stmt *>(A.E)
                                       : A.CallChain.front();
  std::vector<const Stmt *> AUp = stmtAncestors(Ctx, At);
  std::vector<SourceLocation> Exits = exitsAfter(Ctx, K, At);
  uint64_t Work = 0, Most = 0;
  const LoopInfo *Biggest = nullptr;
  for (const auto &L : K.Loops) {
    if (!L->S || Parents.count(L.get()) || L.get() == Outer)
      continue;
    std::optional<uint64_t> N = nestedIterations(CC, Ctx, K, L.get(), Outer);
    if (!N)
      continue;
    // Where it runs in the kernel's body, inside Outer: every such site
    // (a loop in a function called more than once stands for each call)
    // must run whenever the access does.
    std::vector<const Stmt *> Sites;
    for (const Stmt *S : kernelSitesOf(Ctx, K, *L))
      if (Outer->S->getSourceRange().fullyContains(S->getSourceRange()))
        Sites.push_back(S);
    if (Sites.empty() ||
        !llvm::all_of(Sites, [&](const Stmt *S) {
          return runsWhenever(Ctx, AUp, At, S, Exits);
        }))
      continue;
    Work += *N;
    if (*N > Most) {
      Most = *N;
      Biggest = L.get();
    }
  }
  return Work >= 320 * Accesses ? Biggest : nullptr;
}

/// Where access \p A is in the kernel's own body: the access, the call
/// that reaches it, or the outermost loop around it there.
static const Stmt *siteOfAccess(const KernelAnalysis &K, const MemAccess &A) {
  const Stmt *At = A.CallChain.empty() ? static_cast<const Stmt *>(A.E)
                                       : A.CallChain.front();
  if (!A.Loops.empty() && A.Loops.front()->S && K.Kernel &&
      K.Kernel->getBody() &&
      K.Kernel->getBody()->getSourceRange().fullyContains(
          A.Loops.front()->S->getSourceRange()))
    At = A.Loops.front()->S;
  return At;
}

unsigned globalAccessesAlongside(ASTContext &Ctx, const KernelAnalysis &K,
                                 const MemAccess &A) {
  if (!A.E)
    return 0;
  const Stmt *At = siteOfAccess(K, A);
  std::vector<const Stmt *> AUp = stmtAncestors(Ctx, At);
  std::vector<SourceLocation> Exits = exitsAfter(Ctx, K, At);
  unsigned N = 0;
  for (const MemAccess &B : K.Accesses)
    if (B.Space == MemSpace::Global && B.E && !B.SparseGuard &&
        runsWhenever(Ctx, AUp, At, siteOfAccess(K, B), Exits))
      ++N;
  return N;
}

const LoopInfo *outweighingLoop(const CheckContext &CC, ASTContext &Ctx,
                                const KernelAnalysis &K, const MemAccess &A) {
  if (!A.E)
    return nullptr;
  // A few times per thread is once per thread for this purpose. Loops of
  // a known count (constants, or parameters every launch passes as one)
  // count too when the long loop, counted and known the same way, runs 64
  // times as many iterations: mcpr's zero-fill and final division of a
  // thread's 21 probabilities around its 10000 Monte Carlo iterations.
  uint64_t Work = 1;
  for (const LoopInfo *L : A.Loops)
    if (!addKnownWork(CC, Ctx, K, *L, Work))
      return innerWorkOutweighs(CC, Ctx, K, A);
  return outweighingLoopAt(CC, Ctx, K, siteOfAccess(K, A), /*CountedOnly=*/Work > 1,
                           Work > 1 ? 64 * Work : 0);
}

const LoopInfo *outweighingLoopOfCode(const CheckContext &CC, ASTContext &Ctx,
                                      FileID File, unsigned Offset,
                                      uint64_t MinLongTrip) {
  if (!CC.Analysis || File.isInvalid())
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Holds = [&](const Stmt *S) {
    CharSourceRange R = SM.getExpansionRange(S->getSourceRange());
    return SM.getFileID(R.getBegin()) == File &&
           SM.getFileOffset(R.getBegin()) <= Offset &&
           Offset <= SM.getFileOffset(R.getEnd());
  };
  for (const KernelAnalysis &K : CC.Analysis->Kernels) {
    if (!K.Kernel || !K.Kernel->getBody() || !Holds(K.Kernel->getBody()))
      continue;
    // The innermost statement of the kernel's body that holds the code.
    const Stmt *At = nullptr;
    forEachStmt(K.Kernel->getBody(), [&](const Stmt *S) {
      if (Holds(S))
        At = S;
    });
    // In a macro's expansion every statement has the expansion's range:
    // the one holding the code cannot be told.
    if (!At || At->getBeginLoc().isMacroID() || At->getEndLoc().isMacroID())
      return nullptr;
    // Its loops: each runs only a few times per thread, or a known number
    // of times (then the long loop must run 64 times as many: mcpr's 21
    // final divisions beside its 10000 Monte Carlo iterations); the
    // outermost stands for the code.
    const Stmt *Outer = At;
    uint64_t Work = 1;
    for (const Stmt *S : stmtAncestors(Ctx, At))
      if (isLoop(S)) {
        const LoopInfo *L = K.loopOf(S);
        if (!L || !addKnownWork(CC, Ctx, K, *L, Work))
          return nullptr;
        Outer = S;
      }
    uint64_t MinTrip = Work > 1 ? 64 * Work : 0;
    if (MinLongTrip)
      MinTrip = std::max(MinTrip, MinLongTrip * Work);
    return outweighingLoopAt(CC, Ctx, K, Outer, /*CountedOnly=*/true,
                             MinTrip);
  }
  return nullptr;
}

bool outweighedArithmetic(const CheckContext &CC, ASTContext &Ctx,
                          const Finding &F) {
  if (!StringRef(F.RuleId).starts_with("algebraic-"))
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto FE = SM.getFileManager().getOptionalFileRef(F.Loc.File);
  return FE &&
         outweighingLoopOfCode(CC, Ctx, SM.translateFile(*FE), F.Offset);
}

std::string loopLine(const LoopInfo &L) {
  return "line " + std::to_string(L.Loc.Line);
}

std::string iterationsText(const LoopInfo &L, const std::string &Prefix) {
  if (L.Trip == TripKind::Unknown || L.Init.dependsOnThread())
    return (Prefix.empty() ? "" : Prefix + " ") + "every iteration";
  return (Prefix.empty() ? "" : Prefix + " ") + "each of its " + L.TripText +
         " iterations";
}

static SourceLocation inKernel(const MemAccess *X) {
  return X->CallChain.empty() ? X->E->getExprLoc()
                              : X->CallChain.front()->getBeginLoc();
}

void CauseGroups::add(const MemAccess &A, const std::string &Cause) {
  // Two arrays of one name in different scopes are two causes.
  auto [It, New] = Index.try_emplace(
      std::to_string((uintptr_t)A.Base) + "\n" + A.BaseName + "\n" + Cause,
      Groups.size());
  if (New)
    Groups.emplace_back();
  Groups[It->second].push_back(&A);
}

std::vector<std::vector<const MemAccess *>>
CauseGroups::take(const ASTContext &Ctx, StringRef RuleId) {
  const SourceManager &SM = Ctx.getSourceManager();
  // An access on a line whose NOLINT covers the rule leaves its group (the
  // finding is placed at an access: NOLINT on the first one must not hide
  // the others).
  for (std::vector<const MemAccess *> &G : Groups)
    llvm::erase_if(G, [&](const MemAccess *A) {
      SourceLocation L = SM.getExpansionLoc(A->E->getExprLoc());
      bool Invalid = false;
      StringRef Text = SM.getBufferData(SM.getFileID(L), &Invalid);
      return !Invalid &&
             isSuppressed(Text, SM.getPresumedLoc(L, false).getLine(), RuleId);
    });
  llvm::erase_if(Groups, [](const auto &G) { return G.empty(); });
  for (std::vector<const MemAccess *> &G : Groups)
    llvm::stable_sort(G, [&](const MemAccess *X, const MemAccess *Y) {
      return SM.isBeforeInTranslationUnit(inKernel(X), inKernel(Y));
    });
  Index.clear();
  return std::move(Groups);
}

/// \p B's address for every iteration of its enclosing constant-trip loops
/// (the induction variable replaced by its values), at most 256 of them.
static std::vector<AffineExpr> expandLoops(const CheckContext *CC,
                                           ASTContext &Ctx,
                                           const KernelAnalysis &K,
                                           const MemAccess &B) {
  std::vector<AffineExpr> Out{B.Address};
  for (const LoopInfo *L : B.Loops) {
    std::optional<int64_t> Trip = loopTripCount(CC, Ctx, K, *L);
    if (!Trip || *Trip > 64 || *Trip < 0)
      continue;
    auto I0 = L->Init.constantValue(), St = L->Step.constantValue();
    if (!I0 || !St || L->Geometric)
      continue;
    auto Syms = L->IVValue.symbols();
    if (Syms.size() != 1 || L->IVValue != AffineExpr::symbol(*Syms.begin()))
      continue;
    const std::string Sym = *Syms.begin();
    std::vector<AffineExpr> Next;
    for (const AffineExpr &E : Out) {
      if (!E.symbols().count(Sym)) {
        Next.push_back(E);
        continue;
      }
      for (int64_t M = 0; M < *Trip; ++M)
        Next.push_back(E.substitute(Sym, AffineExpr::constant(*I0 + M * *St)));
    }
    if (Next.size() > 256)
      return {B.Address};
    Out = std::move(Next);
  }
  return Out;
}

/// Bytes of each stride read by the kernel's accesses with the same base
/// and the same per-thread stride: the fields of a struct read nearby, or
/// the iterations of a small constant-trip loop (their sectors are shared
/// through L1). \p IsFirst: \p A is the group's first access (lowest
/// offset), which carries the group's finding.
/// \p B (in the kernel's own body) is under an `if` whose condition reads
/// the same record of \p B's array (`if (p[i].alive) p[i].x += ...`), or
/// after an `if` that returns when such a condition holds (`if
/// (node[m].dry) return;`: the lanes left read the fields the test fetched).
static bool guardedBySameRecord(ASTContext &Ctx, const KernelAnalysis &K,
                                const MemAccess &B, const AffineExpr &Shape) {
  if (!B.CallChain.empty() || !B.E)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto ReadsRecord = [&](const Expr *Cond) {
    SourceRange CR = Cond->getSourceRange();
    for (const MemAccess &C : K.Accesses) {
      if (&C == &B || C.Base != B.Base || !C.E || !C.Address.isKnown() ||
          !C.CallChain.empty())
        continue;
      AffineExpr CS = C.Address - AffineExpr::constant(C.Address.constantTerm());
      SourceLocation L = SM.getExpansionLoc(C.E->getBeginLoc());
      if (CS == Shape &&
          SM.isPointWithin(L, SM.getExpansionLoc(CR.getBegin()),
                           SM.getExpansionLoc(CR.getEnd())))
        return true;
    }
    return false;
  };
  // `if (cond) return;` (or `{ return; }`), without else.
  auto ReturnsIf = [](const Stmt *S) -> const Expr * {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse() || !If->getCond())
      return nullptr;
    const Stmt *T = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(T); CS && CS->size() == 1)
      T = CS->body_front();
    return isa<ReturnStmt>(T) ? If->getCond() : nullptr;
  };
  const Stmt *Prev = nullptr;
  for (const Stmt *S : stmtAncestors(Ctx, B.E)) {
    if (const auto *If = dyn_cast<IfStmt>(S);
        If && If->getCond() && ReadsRecord(If->getCond()))
      return true;
    if (const auto *CS = dyn_cast<CompoundStmt>(S); CS && Prev)
      for (const Stmt *X : CS->body()) {
        if (X == Prev)
          break;
        if (const Expr *Cond = ReturnsIf(X); Cond && ReadsRecord(Cond))
          return true;
      }
    Prev = S;
  }
  return false;
}

int64_t siblingCoverage(ASTContext &Ctx, const KernelAnalysis &K,
                        const MemAccess &A, int64_t Stride, bool &IsFirst,
                        const CheckContext *CC) {
  IsFirst = true;
  // Loops up to a launch constant count for strides under a sector only
  // (a pooling window's 8 bytes): at 32 bytes or more each lane has its
  // own sector in every request, and a hot loop over such rows is bound by
  // L1 wavefronts even when the rows stay in L1 (mcpr's 21-double rows
  // reloaded on each of 10000 iterations; the program's own unit-stride
  // variant is its fix).
  if (Stride >= 32)
    CC = nullptr;
  std::vector<AffineExpr> AE = expandLoops(CC, Ctx, K, A);
  AffineExpr Shape = AE[0] - AffineExpr::constant(AE[0].constantTerm());
  int64_t Base = AE[0].constantTerm();
  std::vector<bool> Covered(Stride, false);
  for (const MemAccess &B : K.Accesses) {
    // An access under a condition that keeps only some lanes counts when
    // that condition reads the same record: the other fields read when
    // `p[i].alive` holds use the sectors it fetched (not those one lane
    // reads under `threadIdx.x == 0`). Such accesses carry no finding
    // themselves, so they do not take the group's.
    if (B.Base != A.Base || B.Space != MemSpace::Global ||
        !B.Address.isKnown())
      continue;
    if (B.SparseGuard && &B != &A &&
        !guardedBySameRecord(Ctx, K, B, Shape))
      continue;
    for (const AffineExpr &E : expandLoops(CC, Ctx, K, B)) {
      AffineExpr BS = E - AffineExpr::constant(E.constantTerm());
      if (BS != Shape)
        continue;
      int64_t Off = E.constantTerm() - Base;
      if (&B != &A && !B.SparseGuard && (Off < 0 || (Off == 0 && &B < &A)))
        IsFirst = false;
      for (int64_t I = 0; I < (int64_t)B.AccessBytes; ++I)
        Covered[((Off + I) % Stride + Stride) % Stride] = true;
    }
  }
  int64_t N = 0;
  for (bool C : Covered)
    N += C;
  return N;
}


WarpRequest resolvedRequest(const CheckContext &CC, const KernelAnalysis &K,
                            const MemAccess &A) {
  if (A.Global.Class != AccessClass::Uncoalesced || !A.Address.isKnown() ||
      !K.Kernel)
    return A.Global;
  AffineExpr Addr = A.Address;
  std::set<std::string> Syms = Addr.symbols();
  std::string Used;
  for (const ParmVarDecl *P : K.Kernel->parameters()) {
    if (!P->getType()->isIntegralOrEnumerationType() || !P->getIdentifier() ||
        !Syms.count(P->getNameAsString()))
      continue;
    unsigned Sites = 0;
    std::optional<int64_t> V = launchConstant(CC, K.Kernel, P, Sites);
    if (!V)
      continue;
    Addr = Addr.substitute(P->getNameAsString(), AffineExpr::constant(*V));
    Used += (Used.empty() ? "" : ", ") + ("'" + P->getNameAsString() +
                                          "' = " + std::to_string(*V));
  }
  if (Used.empty())
    return A.Global;
  WarpRequest W = analyzeGlobalRequest(Addr, A.AccessBytes, A.ElemBytes,
                                       K.Block);
  std::string At = Used + " at every launch in this file";
  W.Assumption = W.Assumption.empty() ? At : W.Assumption + "; " + At;
  return W;
}

void addSameCauseNote(const ASTContext &Ctx, Finding &F,
                      const std::vector<const MemAccess *> &Group,
                      const std::string &Same, const std::string &Remedy) {
  if (Group.size() < 2)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  // The other places in the kernel, each line once.
  unsigned First = SM.getSpellingLineNumber(inKernel(Group.front()));
  std::vector<unsigned> Lines;
  for (const MemAccess *O : Group) {
    unsigned L = SM.getSpellingLineNumber(inKernel(O));
    if (L != First && llvm::find(Lines, L) == Lines.end())
      Lines.push_back(L);
  }
  std::string Where;
  for (size_t I = 0; I < Lines.size() && I < 8; ++I)
    Where += (I ? ", " : "") + std::to_string(Lines[I]);
  if (Lines.size() > 8)
    Where += ", ...";
  size_t N = Group.size() - 1;
  std::string Text =
      std::to_string(N) + " more access" + (N > 1 ? "es" : "") + " of '" +
      Group.front()->BaseName + "' in this kernel with the same " + Same +
      (Where.empty() ? std::string(" on this line")
                     : " (line" + std::string(Lines.size() > 1 ? "s " : " ") +
                           Where + ")") +
      "; " + Remedy;
  F.Notes.push_back(makeNote(Ctx, inKernel(Group[1]), Text));
}

} // namespace cudal1
