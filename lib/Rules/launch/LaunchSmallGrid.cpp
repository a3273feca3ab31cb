//===- LaunchSmallGrid.cpp - launch-small-grid ----------------------------===//
#include "LaunchSmallGrid.h"

#include "../CallTree.h"
#include "../LaunchConstants.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <cstdlib>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// A loop whose trip count is at most this does a fixed, small amount of
/// work (a tile, a stencil's taps), whatever the problem size.
constexpr int64_t MaxFixedTrip = 4096;

/// Bounds of an integer value: what is known of its least and greatest.
struct Range {
  std::optional<int64_t> Lo, Hi;
};

std::optional<int64_t> loopTripBound(ASTContext &C, const LoopInfo &L,
                                     unsigned Depth);

/// What \p E's value can be inside the loop \p L: an integer constant;
/// the induction variable of an enclosing loop with a bounded trip count
/// (lud's triangular `for (j = 0; j < i; j++)` in `for (i = 0; i <
/// BLOCK_SIZE; i++)`); a local initialised with such a value and never
/// changed; `min(x, y)` (at most the smaller known greatest); sums, and
/// differences, products, quotients and shifts by constants.
Range valueRange(ASTContext &C, const Expr *E, const LoopInfo &L,
                 unsigned Depth) {
  Range R;
  if (!E || Depth > 8)
    return R;
  E = E->IgnoreParenImpCasts();
  if (auto V = evalInt(C, E)) {
    R.Lo = R.Hi = *V;
    return R;
  }
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    Range In = valueRange(C, CE->getSubExpr(), L, Depth + 1);
    // A cast to unsigned turns a negative value into a huge one.
    if (CE->getType()->isUnsignedIntegerType() && (!In.Lo || *In.Lo < 0))
      return Range();
    return In;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    Range A = valueRange(C, BO->getLHS(), L, Depth + 1);
    auto K = evalInt(C, BO->getRHS());
    auto AddOpt = [](std::optional<int64_t> X, std::optional<int64_t> Y)
        -> std::optional<int64_t> {
      if (!X || !Y || std::abs(*X) > (1ll << 40) || std::abs(*Y) > (1ll << 40))
        return std::nullopt;
      return *X + *Y;
    };
    switch (BO->getOpcode()) {
    case BO_Add: {
      Range B = valueRange(C, BO->getRHS(), L, Depth + 1);
      R.Lo = AddOpt(A.Lo, B.Lo);
      R.Hi = AddOpt(A.Hi, B.Hi);
      return R;
    }
    case BO_Sub:
      if (K) {
        R.Lo = AddOpt(A.Lo, -*K);
        R.Hi = AddOpt(A.Hi, -*K);
      }
      // Unsigned arithmetic below zero wraps to a huge value.
      if (BO->getType()->isUnsignedIntegerType() && (!R.Lo || *R.Lo < 0))
        return Range();
      return R;
    case BO_Mul:
      if (K && *K >= 0 && *K <= (1 << 20) && A.Lo && A.Hi &&
          std::abs(*A.Lo) <= (1ll << 40) && std::abs(*A.Hi) <= (1ll << 40)) {
        R.Lo = *A.Lo * *K;
        R.Hi = *A.Hi * *K;
      }
      return R;
    case BO_Div:
    case BO_Shr:
      if (K && *K > 0 && A.Lo && *A.Lo >= 0 && A.Hi && *K < 63) {
        R.Lo = 0;
        R.Hi = BO->getOpcode() == BO_Div ? *A.Hi / *K : *A.Hi >> *K;
      }
      return R;
    default:
      return R;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *F = Call->getDirectCallee();
    StringRef N = F && F->getIdentifier() ? F->getName() : "";
    if ((N == "min" || N == "umin" || N == "llmin" || N == "ullmin") &&
        Call->getNumArgs() == 2) {
      Range A = valueRange(C, Call->getArg(0), L, Depth + 1);
      Range B = valueRange(C, Call->getArg(1), L, Depth + 1);
      if (A.Hi && B.Hi)
        R.Hi = std::min(*A.Hi, *B.Hi);
      else
        R.Hi = A.Hi ? A.Hi : B.Hi;
      if (A.Lo && B.Lo)
        R.Lo = std::min(*A.Lo, *B.Lo);
    }
    return R;
  }
  const VarDecl *V = varOf(E);
  if (!V)
    return R;
  const SourceManager &SM = C.getSourceManager();
  for (const LoopInfo *P = L.Parent; P; P = P->Parent)
    if (P->IV == V && P->S &&
        !SM.isBeforeInTranslationUnit(E->getBeginLoc(),
                                      P->S->getBeginLoc()) &&
        !SM.isBeforeInTranslationUnit(P->S->getEndLoc(), E->getBeginLoc())) {
      // for (i = I0; i < B; i += S), S > 0: I0 <= i < B.
      const auto *For = dyn_cast_or_null<ForStmt>(P->S);
      std::optional<LoopShape> S = For ? analyzeFor(C, For) : std::nullopt;
      if (!S || S->Step <= 0 || !loopTripBound(C, *P, Depth + 1))
        return R;
      R.Lo = evalInt(C, S->Init);
      Range B = valueRange(C, S->Bound, *P, Depth + 1);
      R.Hi = B.Hi;
      return R;
    }
  if (!V->isLocalVarDecl() || !V->getInit())
    return R;
  if (!V->getType().isConstQualified()) {
    const auto *F = dyn_cast_or_null<FunctionDecl>(
        V->getParentFunctionOrMethod());
    if (!F || !F->getBody() || varsWrittenIn(F->getBody()).count(V))
      return R;
  }
  return valueRange(C, V->getInit(), L, Depth + 1);
}

/// A compile-time bound on the trip count of \p L (a constant trip count,
/// or a counted loop from a constant whose bound has a known greatest
/// value); std::nullopt when it can grow with the data.
std::optional<int64_t> loopTripBound(ASTContext &C, const LoopInfo &L,
                                     unsigned Depth) {
  if (L.Trip == TripKind::Constant && L.TripCount)
    return *L.TripCount;
  const auto *For = dyn_cast_or_null<ForStmt>(L.S);
  if (!For || Depth > 8)
    return std::nullopt;
  std::optional<LoopShape> S = analyzeFor(C, For);
  std::optional<int64_t> Init = S ? evalInt(C, S->Init) : std::nullopt;
  if (!S || S->Step <= 0 || !Init ||
      (S->Cmp != BO_LT && S->Cmp != BO_LE))
    return std::nullopt;
  Range B = valueRange(C, S->Bound, L, Depth + 1);
  if (!B.Hi)
    return std::nullopt;
  // An unsigned comparison turns a negative bound into a huge one.
  if (((S->IV && S->IV->getType()->isUnsignedIntegerType()) ||
       S->Bound->getType()->isUnsignedIntegerType() ||
       S->Bound->IgnoreParenImpCasts()->getType()->isUnsignedIntegerType()) &&
      (!B.Lo || *B.Lo < 0))
    return std::nullopt;
  if (std::abs(*B.Hi) > (1ll << 40) || std::abs(*Init) > (1ll << 40))
    return std::nullopt;
  int64_t Trip = std::max<int64_t>(0, (*B.Hi - *Init) / S->Step + 1);
  return Trip;
}

/// \p L does a fixed amount of work per thread: a constant trip count
/// (as before), or one bounded by a small constant.
bool loopBounded(ASTContext &C, const LoopInfo &L) {
  if (L.Trip == TripKind::Constant)
    return true;
  std::optional<int64_t> T = loopTripBound(C, L, 0);
  return T && *T <= MaxFixedTrip;
}

/// \p A's address changes from one iteration of \p L to the next.
bool variesWith(const MemAccess &A, const LoopInfo &L) {
  return A.Address.dependsOn(
      [&](const std::string &S) { return L.VaryingSyms.count(S) > 0; });
}

/// Every memory access of the loop \p L is a global atomic at an address
/// that neither the thread nor the block changes (all threads update the
/// same few words: a counter, a lock, an atomics test): the atomic unit
/// serialises them, so more blocks add contention, not throughput.
bool onlyCommonAtomics(const KernelAnalysis &KA, const LoopInfo &L) {
  // Unconditional updates only: a loop that searches and counts its rare
  // hits (`if (match) atomicAdd(found, 1)`) does its work in arithmetic.
  bool Branch = false;
  forEachStmt(loopBody(L.S), [&](const Stmt *S) {
    Branch |= isa<IfStmt, SwitchStmt, AbstractConditionalOperator>(S);
    if (const auto *B = dyn_cast<BinaryOperator>(S))
      Branch |= B->isLogicalOp();
  });
  if (Branch)
    return false;
  bool Any = false;
  for (const MemAccess &A : KA.Accesses) {
    if (!llvm::is_contained(A.Loops, &L))
      continue;
    if (A.Space != MemSpace::Global || !A.IsAtomic || !A.Address.isKnown() ||
        A.Address.dependsOnThread() ||
        A.Address.dependsOn([](const std::string &S) {
          return S.rfind("blockIdx.", 0) == 0;
        }))
      return false;
    Any = true;
  }
  return Any;
}

/// \p S itself (not the functions it calls) reads memory in a way the
/// access analysis does not list: a texture or surface fetch, an
/// asynchronous copy, inline assembly.
bool opaqueLoadsHere(const Stmt *S) {
  bool Opaque = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (isa<AsmStmt>(X))
      Opaque = true;
    const auto *CE = dyn_cast<CallExpr>(X);
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    if (!FD || !FD->getIdentifier())
      return;
    StringRef Name = FD->getName();
    if (Name.starts_with("tex") || Name.starts_with("surf") ||
        Name.contains("memcpy_async") || Name.contains("cp_async"))
      Opaque = true;
  });
  return Opaque;
}

/// \p S, or a function of the program it calls (3 calls deep), reads
/// memory in a way the access analysis does not list.
bool opaqueLoads(const Stmt *S) {
  return opaqueLoadsHere(S) ||
         anyCalledDefinition(
             S, 3,
             [](const FunctionDecl *Def) {
               return opaqueLoadsHere(Def->getBody());
             },
             /*UserCodeOnly=*/true);
}

/// \p L is a recurrence that the block runs step by step: it synchronises
/// the block in every iteration, every load it makes from global memory
/// reads an array the loop itself stores to, and a step reads what an
/// earlier step wrote: an element of such an array other than the one the
/// step stores (a row that the previous step wrote, a table it reorders in
/// place), or shared memory read before the step writes it (the state of a
/// lagged Fibonacci generator, a tree's partial sums). Each step needs the
/// one before, so more blocks could not share the loop's work; a loop that
/// also reads input it does not produce (a one-block scan of `in`) could be
/// split, and one that stages each step's own values through shared memory
/// (written, then read) is not a recurrence.
bool serialRecurrenceItself(const ASTContext &C, const KernelAnalysis &KA,
                            const LoopInfo &L) {
  if (!L.ContainsSync || opaqueLoads(L.S))
    return false;
  auto InLoop = [&](const MemAccess &A) {
    return llvm::is_contained(A.Loops, &L);
  };
  auto FromGlobal = [](const MemAccess &A) {
    return A.Space == MemSpace::Global || A.Space == MemSpace::Unknown;
  };
  std::set<const ValueDecl *> Stored;
  for (const MemAccess &A : KA.Accesses)
    if (InLoop(A) && FromGlobal(A) && A.IsWrite && A.Base)
      Stored.insert(A.Base);
  for (const MemAccess &A : KA.Accesses)
    if (InLoop(A) && FromGlobal(A) && A.IsRead &&
        (!A.Base || !Stored.count(A.Base)))
      return false;
  // When an access happens in the loop's body: a plain store after the
  // right-hand side it stores has been read.
  const SourceManager &SM = C.getSourceManager();
  auto When = [&](const MemAccess &A) {
    if (A.IsWrite && !A.IsRead && A.Full)
      return SM.getExpansionLoc(A.Full->getEndLoc());
    return SM.getExpansionLoc(A.E->getBeginLoc());
  };
  for (const MemAccess &R : KA.Accesses) {
    if (!InLoop(R) || !R.IsRead || !R.Base)
      continue;
    if (FromGlobal(R)) {
      for (const MemAccess &W : KA.Accesses)
        if (InLoop(W) && FromGlobal(W) && W.IsWrite && W.Base == R.Base &&
            !(R.Address.isKnown() && R.Address == W.Address))
          return true;
      continue;
    }
    if (R.Space != MemSpace::Shared || !R.CallChain.empty())
      continue;
    if (R.IsWrite)
      return true; // `s[t] += s[t + d]`
    bool Written = false, WrittenBefore = false;
    for (const MemAccess &W : KA.Accesses)
      if (InLoop(W) && W.Space == MemSpace::Shared && W.IsWrite &&
          W.Base == R.Base && W.CallChain.empty()) {
        Written = true;
        WrittenBefore |= SM.isBeforeInTranslationUnit(When(W), When(R));
      }
    if (Written && !WrittenBefore)
      return true;
  }
  return false;
}

/// \p L or a loop around it is such a recurrence (a step's scan of a
/// table the recurrence reorders is part of the step).
bool serialRecurrence(const ASTContext &C, const KernelAnalysis &KA,
                      const LoopInfo &L) {
  for (const LoopInfo *P = &L; P; P = P->Parent)
    if (serialRecurrenceItself(C, KA, *P))
      return true;
  return false;
}

/// The argument texts \p L passes, spaces removed.
std::string argText(const std::string &A) {
  std::string R;
  for (char Ch : A)
    if (!isspace((unsigned char)Ch))
      R += Ch;
  return R;
}

} // namespace

RuleInfo LaunchSmallGrid::info() const {
  RuleInfo I;
  I.Id = "launch-small-grid";
  I.Category = "launch";
  I.Summary = "grid with fewer blocks than the GPU has SMs";
  I.Help = "Each block runs on one streaming multiprocessor. A grid with "
           "fewer blocks than SMs (132 on H100/H200 SXM) leaves the other "
           "SMs idle for the kernel's whole duration.";
  I.DefaultOptions["NumSMs"] = "132";
  I.DefaultOptions["MinIdlePercent"] = "5";
  I.Doc.Detects =
      "A launch whose constant grid has fewer blocks than the GPU has SMs "
      "(option `NumSMs`, default 132 for H100/H200 SXM), of a kernel with "
      "a loop whose trip count grows with the data. Not reported when "
      "every loop's trip count has a compile-time bound of at most 4096 "
      "(a constant, the induction variable of such an enclosing loop, "
      "`min(x, C)`, sums and products with constants: an LU "
      "factorisation's diagonal tile), nor for the second pass of a "
      "multi-pass reduction: an earlier launch in the same function (or, "
      "when the launch is in a helper, in every caller before its call to the "
      "helper, the helper's parameters read as the caller's arguments), of "
      "another kernel with more blocks, writes one value per block (every "
      "write at an address that depends on blockIdx, not on threadIdx, "
      "and does not grow with a loop over the data) into a buffer that "
      "every growing loop of this launch's kernel walks (and writes, if at "
      "all, outside those loops: `partial[0] = sum`). Nor when fewer "
      "than `MinIdlePercent` (default 5) percent of the SMs would idle: "
      "a grid of 128 blocks leaves 4 of 132 SMs (3%) idle, at most 1.03x "
      "to gain. A loop without branches whose only memory accesses are "
      "global atomics at "
      "addresses that depend on neither the thread nor the block (every "
      "thread updates the same counters, or spins on one lock) does not "
      "count as work over the data: the atomic unit serialises those "
      "updates, and more blocks would add contention, not throughput. "
      "Nor does a loop that synchronises the block in every iteration, "
      "loads from global memory only arrays it also stores to (or none), "
      "and whose steps read what an earlier step wrote (another element "
      "of such an array, or shared memory read before the step writes "
      "it): a recurrence whose every step needs the one before (a lagged "
      "Fibonacci generator, a row computed from the previous row, a "
      "compaction that swaps entries in place), or a tree's halving steps "
      "over the block. A loop whose steps stage their own values through "
      "shared memory (written, then read) or update each element in place "
      "still counts. When such a recurrence's "
      "trip count grows with the data, the kernel is one block by design "
      "and is not reported at all. A loop that reads through a texture, an "
      "asynchronous copy or inline assembly is not taken for a recurrence.";
  I.Doc.WhySlow =
      "A block runs on one SM; the other SMs stay idle for the whole "
      "kernel.";
  I.Doc.Example = R"cuda(reduce<<<1, 256>>>(in, out, n);   // warning: 1 of 132 SMs busy)cuda";
  I.Doc.Fix =
      "Launch at least one block per SM (better several) with a "
      "grid-stride loop, or split the work (e.g. a two-pass reduction). "
      "Not reported when every integer-literal argument of the launch (the "
      "problem size, e.g. `kernel<<<1, 256>>>(p, 256)`) is covered by the "
      "threads launched.";
  return I;
}

bool LaunchSmallGrid::kernelLoopsOverData(const LaunchSite &L) const {
  // Without a loop whose trip count varies, every thread handles a fixed
  // amount of work: the grid *is* the problem size and more blocks would
  // have nothing to do. Only kernels that loop over the data (grid-stride,
  // per-thread loops) could use the idle SMs.
  if (!analysis())
    return false;
  // A loop whose trip count a constant bounds (lud's diagonal block:
  // `for (j = 0; j < i; j++)` inside `for (i = 0; i < BLOCK_SIZE; i++)`)
  // does a fixed amount of work too.
  bool Loops = false;
  for (const KernelAnalysis &KA : analysis()->Kernels)
    if (KA.Name == L.Kernel) {
      // A recurrence over the data (not a tree's halving steps) makes the
      // kernel one block by design: a launch with more blocks would run it
      // once per block, and what the kernel does beside it (the search
      // that starts a compaction) is not the grid-stride work the finding
      // offers to spread.
      for (const auto &Lp : KA.Loops)
        if (!Lp->Geometric && !loopBounded(ctx(), *Lp) &&
            serialRecurrenceItself(ctx(), KA, *Lp))
          return false;
      for (const auto &Lp : KA.Loops)
        if (!loopBounded(ctx(), *Lp) && !onlyCommonAtomics(KA, *Lp) &&
            !serialRecurrence(ctx(), KA, *Lp))
          Loops = true;
    }
  if (!Loops || !L.Block.Dim || !L.Grid.Dim)
    return Loops;
  // A problem-size literal that the launched threads already cover
  // (kernel<<<1, 256>>>(p, 256)): nothing for more SMs to do.
  uint64_t Threads = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2] *
                     (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
  bool AnyLiteral = false, AllFit = true;
  for (const std::string &Arg : L.Args) {
    uint64_t V;
    if (StringRef(Arg).trim().getAsInteger(0, V))
      continue;
    AnyLiteral = true;
    if (V > Threads)
      AllFit = false;
  }
  return !(AnyLiteral && AllFit);
}

const LaunchSite *
LaunchSmallGrid::partialsProducer(const LaunchSite &L) const {
  if (!analysis() || L.EnclosingFunction.empty() || !L.Grid.Dim)
    return nullptr;
  uint64_t LB = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2];
  // The kernel L launches, and the parameters it reads through.
  const KernelAnalysis *LK = nullptr;
  for (const KernelAnalysis &KA : analysis()->Kernels)
    if (KA.Name == L.Kernel)
      LK = &KA;
  if (!LK || !LK->Kernel)
    return nullptr;
  auto BlockSym = [](const std::string &S) {
    return S.rfind("blockIdx.", 0) == 0;
  };
  // Where an earlier launch may write the partials: L's own function before
  // L, and the callers of that function before their call (a helper that
  // runs the second pass: `finish(part, out, m)` after the first pass),
  // with L's arguments that are the helper's parameters read as the
  // caller's arguments.
  struct Scope {
    std::string Function;
    SourceLoc Before;
    std::vector<std::string> Args;
  };
  std::vector<Scope> Scopes;
  Scopes.push_back({L.EnclosingFunction, L.Loc, {}});
  for (const std::string &A : L.Args)
    Scopes.back().Args.push_back(argText(A));
  auto Producer = [&](const Scope &Sc) -> const LaunchSite * {
    for (const LaunchSite &P : context().Model->LaunchSites) {
      // Another kernel, launched before L in the same function, with more
      // blocks than L (unknown counts as more: a grid from the data).
      if (&P == &L || P.Kernel == L.Kernel ||
          P.EnclosingFunction != Sc.Function || P.Loc.File != Sc.Before.File ||
          !(P.Loc < Sc.Before))
        continue;
      if (P.Grid.Dim &&
          (*P.Grid.Dim)[0] * (*P.Grid.Dim)[1] * (*P.Grid.Dim)[2] <= LB)
        continue;
      for (const KernelAnalysis &KA : analysis()->Kernels) {
        if (KA.Name != P.Kernel || KA.WrittenBases.empty())
          continue;
        for (const ValueDecl *W : KA.WrittenBases) {
          const auto *Parm = dyn_cast<ParmVarDecl>(W);
          if (!Parm || Parm->getFunctionScopeIndex() >= P.Args.size() ||
              KA.EscapedBases.count(W))
            continue;
          // Every write through it is at an address that depends on the
          // block and not on the thread: one value (or row) per block.
          bool PerBlock = false, Other = false;
          for (const MemAccess &A : KA.Accesses) {
            if (A.Base != W || !A.IsWrite)
              continue;
            // A row per block that grows with the data (`p[blockIdx.x * n +
            // k]` over k < n) is not a partial result.
            bool Grows = false;
            for (const LoopInfo *Lp : A.Loops)
              if (!loopBounded(ctx(), *Lp) && variesWith(A, *Lp))
                Grows = true;
            if (A.IsAtomic || !A.Address.isKnown() || Grows ||
                A.Address.dependsOnThread() || !A.Address.dependsOn(BlockSym))
              Other = true;
            else
              PerBlock = true;
          }
          if (!PerBlock || Other)
            continue;
          // L passes that buffer for a parameter its kernel reads.
          std::string T = argText(P.Args[Parm->getFunctionScopeIndex()]);
          for (size_t I = 0; I < Sc.Args.size(); ++I) {
            if (Sc.Args[I] != T || I >= LK->Kernel->getNumParams())
              continue;
            const ParmVarDecl *LP = LK->Kernel->getParamDecl(I);
            if (!LK->ReadBases.count(LP) || LK->EscapedBases.count(LP))
              continue;
            // It may store its result there (`partials[0] = sum` after the
            // loop), but not write it in a loop that grows with the data.
            bool WritesInLoop = false;
            for (const MemAccess &A : LK->Accesses)
              if (A.Base == LP && A.IsWrite)
                for (const LoopInfo *Lp : A.Loops)
                  WritesInLoop |= !loopBounded(ctx(), *Lp);
            if (WritesInLoop)
              continue;
            // Every loop of L's kernel that grows with the data walks that
            // buffer: what it loops over is the partial results.
            bool AllWalk = true;
            for (const auto &Lp : LK->Loops) {
              if (loopBounded(ctx(), *Lp))
                continue;
              bool Walks = false;
              for (const MemAccess &A : LK->Accesses)
                if (A.Base == LP && A.IsRead && A.Address.isKnown() &&
                    llvm::is_contained(A.Loops, Lp.get()) && variesWith(A, *Lp))
                  Walks = true;
              AllWalk = AllWalk && Walks;
            }
            if (AllWalk)
              return &P;
          }
        }
      }
    }
    return nullptr;
  };
  if (const LaunchSite *P = Producer(Scopes.front()))
    return P;
  // Else the callers of a helper holding L, built only now.
  ASTContext &C = ctx();
  for (const CUDAKernelCallExpr *Site :
       launchSitesOf(C, context(), LK->Kernel)) {
    if (!(makeSourceLoc(C.getSourceManager(), Site->getBeginLoc()) == L.Loc))
      continue;
    const FunctionDecl *Fn = enclosingFunction(C, DynTypedNode::create(*Site));
    if (!Fn)
      break;
    for (const CallExpr *Call : callsOf(C, Fn)) {
      const FunctionDecl *G = enclosingFunction(C, DynTypedNode::create(*Call));
      if (!G || G == Fn)
        continue;
      Scope S{G->getQualifiedNameAsString(),
              makeSourceLoc(C.getSourceManager(), Call->getBeginLoc()),
              {}};
      for (const std::string &A : Scopes.front().Args) {
        std::string T = A;
        for (const ParmVarDecl *PV : Fn->parameters())
          if (PV->getName() == A &&
              PV->getFunctionScopeIndex() < Call->getNumArgs())
            T = argText(sourceText(
                C,
                Call->getArg(PV->getFunctionScopeIndex())->getSourceRange()));
        S.Args.push_back(T);
      }
      Scopes.push_back(std::move(S));
    }
    break;
  }
  // In a helper: a second pass only when every call of it comes after a
  // first pass.
  const LaunchSite *Found = nullptr;
  for (size_t I = 1; I < Scopes.size(); ++I)
    if (!(Found = Producer(Scopes[I])))
      return nullptr;
  return Found;
}

void LaunchSmallGrid::checkTranslationUnit() {
  if (!context().Model)
    return;
  int64_t SMs = optionInt("NumSMs", 132);
  int64_t MinIdle = optionInt("MinIdlePercent", 5);
  for (const LaunchSite &L : context().Model->LaunchSites) {
    if (!L.Grid.Dim || !isUserFile(L.Loc))
      continue;
    uint64_t B = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2];
    if (B == 0 || (int64_t)B >= SMs || !kernelLoopsOverData(L))
      continue;
    // Too few idle SMs to matter (128 of 132 busy: at most 1.03x).
    if ((SMs - (int64_t)B) * 100 < MinIdle * SMs)
      continue;
    // The second pass of a multi-pass reduction: it reads the one value
    // per block that a launch before it in the same function wrote (as
    // many values as that grid has blocks): its data is small by design.
    if (partialsProducer(L))
      continue;
    report(finding(
        L, "grid of " + std::to_string(B) + " block" + (B == 1 ? "" : "s") +
               " keeps only " + std::to_string(B) + " of the GPU's " +
               std::to_string(SMs) +
               " SMs busy; the rest idle for the whole kernel (use a grid "
               "of at least " +
               std::to_string(SMs) +
               " blocks, e.g. a "
               "grid-stride loop over more blocks)"));
  }
}

} // namespace cudal1
