//===- CoalescingSmemStaging.cpp - coalescing-smem-staging ----------------===//
//
// Row-walking kernels: thread `row = blockIdx.x*blockDim.x + threadIdx.x`
// reads A[row*LD + k] for k = K0 .. END-1 (matrix-vector products and
// similar). The 32 lanes of a warp read addresses LD elements apart: one
// 32-byte sector per lane per request. The rewrite makes the block load
// tiles of B rows x TK columns cooperatively (consecutive threads read
// consecutive columns: coalesced) into a padded shared-memory tile
// (TK + 1 columns: no bank conflicts when each thread then reads its row),
// and each thread runs the original loop body on its row of the tile. Same
// values, same operations, same order: bitwise.
//
// Guards: threads that skip the loop (an early `if (c) return;` or an
// enclosing `if (c) { ... }`) still take part in loading and in the
// barriers; only rows of threads that would have run the loop are loaded,
// and the tail (END not a multiple of TK) is masked. The launch
// configuration is unchanged (the block size must be a known constant).
//
//===----------------------------------------------------------------------===//
#include "CoalescingSmemStaging.h"

#include <cstdlib>
#include "cudal1/Rules/SpelledType.h"
#include "cudal1/Rules/BuiltinUse.h"

#include "RowWalk.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "coalescing-smem-staging";

} // namespace

RuleInfo CoalescingSmemStaging::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "coalescing";
  I.Summary = "each thread walks its own matrix row -> the block stages "
              "tiles of the rows in shared memory with coalesced loads";
  I.Exactness = Exactness::Bitwise;
  I.Help =
      "When thread row = blockIdx.x*blockDim.x + threadIdx.x reads "
      "A[row*LD + k] in a loop over k, the lanes of a warp read addresses "
      "LD elements apart. The rewrite loads tiles of blockDim.x rows x TK "
      "columns with consecutive threads reading consecutive columns into a "
      "padded shared-memory tile, then runs the loop body on the tile. "
      "Threads that would skip the loop still help load; the launch "
      "configuration is unchanged.";
  // true: --fix leaves the rewrite to --verify=run, which applies it where
  // the GPU measures it faster; false: --fix applies it like any other.
  I.DefaultOptions["MeasureFirst"] = "true";
  I.ExactnessNote =
      "bitwise; offered for GPU measurement (--verify=run) unless the "
      "option MeasureFirst is false";
  I.Doc.Detects =
      "Row-walking kernels: thread `row = blockIdx.x * blockDim.x + "
      "threadIdx.x` reads `A[row * LD + k]` in a loop over `k` "
      "(matrix-vector products, row reductions, per-row dot products). The "
      "32 lanes of a warp read addresses `LD` elements apart. Not reported "
      "when a row is shorter than a 32-byte sector (`LD` a constant with "
      "`LD * sizeof(element) < 32`: 3 floats per point): the warp's rows "
      "are then one contiguous span whose sectors the loop all uses.";
  I.Doc.WhySlow =
      "Every warp request touches 32 different 32-byte sectors (one per "
      "lane) instead of 4: the load/store unit replays the request per "
      "sector and the useful bytes per transaction drop to 4 of 32. L1 can "
      "keep some of the lines between iterations, but the request rate and "
      "the small number of bytes in flight per SM limit the kernel far "
      "below the memory bandwidth.";
  I.Doc.Example = R"cuda(int row = blockIdx.x * blockDim.x + threadIdx.x;
if (row < M) {
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];       // warning
  y[row] = sum;
})cuda";
  I.Doc.Fix =
      "The block loads tiles of `blockDim.x` rows x `TK` columns (TK = 32, "
      "or 16/8 for large blocks or wide elements) cooperatively — "
      "consecutive threads read consecutive columns of a row, so the loads "
      "are coalesced — into a shared-memory tile with one padding column "
      "(`[B][TK + 1]`: when each thread then reads its own row, the lanes "
      "hit different banks). Each thread runs the original loop body over "
      "its row of the tile. Same values, same operations, same order: "
      "bitwise.\n"
      "\n"
      "Guards are kept exact: `if (row < M) { … }` and `if (row >= M) "
      "return;` become `const bool cudal1_active0 = …;`; every thread "
      "takes part in the loads and barriers, the rows of inactive threads "
      "are never loaded (a per-thread flag in shared memory), the column "
      "tail (`N` not a multiple of `TK`) is masked, and the code after the "
      "loop runs under `if (cudal1_active0)`. The launch configuration is "
      "unchanged.\n"
      "\n"
      "## Measured: applied where the GPU measures it faster\n"
      "\n"
      "The loader issues all `TK` loads of a thread's share of the tile "
      "into\n"
      "registers before any is stored (`#pragma unroll`), so the loads of "
      "a tile are\n"
      "in flight together; a barrier after the flags are written and one "
      "before the\n"
      "stores keep the reuse of the tile safe. (A block size that is not a "
      "multiple\n"
      "of `TK` gets a strided loader loop instead.)\n"
      "\n"
      "On an H200, a 4096x4096 matrix-vector product (16 blocks of 256 "
      "threads):\n"
      "2.23x in utils/bench-structural.sh, accepted by the verifier at "
      "2.31x (95% CI\n"
      "2.30-2.31x), bit for bit; 1.35x at 1000x1000\n"
      "([structural-results.md](../structural-results.md)). The first "
      "loader, with\n"
      "one dependent load per iteration, was 0.34x. Because a short row or "
      "a tile of\n"
      "mostly idle rows can still make it slower, the fix is marked *to be "
      "measured*\n"
      "(`fix (bitwise, to be measured)`): plain `--fix` does not apply "
      "it;\n"
      "`--fix --verify=run` applies it where the GPU measures it faster. "
      "Where the\n"
      "launch sites can be rewritten, "
      "[coalescing-warp-per-row](coalescing-warp-per-row.md)\n"
      "is much faster (23-31x on the same kernel).\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the block size is not a compile-time constant at every launch "
      "site in the file, or the block is not one-dimensional, or the tile "
      "would not fit in shared memory (the kernel's own static shared "
      "memory counts; dynamic shared memory is refused);\n"
      "- the loop bounds differ between threads, the body changes the loop "
      "variable, can `break`/`return`, or has barriers or warp "
      "operations;\n"
      "- the kernel writes through `A`, or `A` may alias a pointer the "
      "kernel writes (not `__restrict__` and not proven separate "
      "allocations at every launch site);\n"
      "- the index depends on the thread through something other than "
      "`threadIdx.x` or a variable equal to `blockIdx.x * blockDim.x + "
      "threadIdx.x`;\n"
      "- the loop is nested in other control flow than one `if (<condition "
      "without memory reads>) { … }`, an early return's condition reads "
      "memory, or a statement between the guard and the loop reads memory "
      "(it would have to run in threads past the guard).";
  return I;
}

void CoalescingSmemStaging::runOn(ASTContext &Ctx, const CheckContext &CC,
                                  const FunctionDecl *K, const FunctionFacts &F,
                                  std::vector<Finding> &Out) {
  for (const ForStmt *L : forLoopsIn(K->getBody())) {
    const Expr *K0 = nullptr, *End = nullptr;
    const VarDecl *IV = simpleLoop(Ctx, L, K0, End);
    if (!IV)
      continue;
    // Find a row walk A[row*LD + k] in the body.
    std::map<const VarDecl *, std::string> Syms{{IV, "k@iv"}};
    const ArraySubscriptExpr *Walk = nullptr;
    const ParmVarDecl *A = nullptr;
    std::optional<int64_t> RowStride; // elements between the lanes' rows
    forEachStmt(L->getBody(), [&](const Stmt *S) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
      if (!AS || Walk)
        return;
      const ParmVarDecl *P = rootPointerParam(AS->getBase(), F);
      if (!P)
        return;
      AffineExpr Idx = toAffine(AS->getIdx(), F, Syms);
      if (!walksRowPerThread(Idx))
        return;
      AffineExpr CT = Idx.coefficientOf("threadIdx.x");
      if (CT.symbols().count("k@iv"))
        return;
      // Idx - CT*(blockIdx.x*blockDim.x + threadIdx.x) - k: uniform.
      AffineExpr Row =
          AffineExpr::symbol("blockIdx.x") * AffineExpr::symbol("blockDim.x") +
          AffineExpr::symbol("threadIdx.x");
      AffineExpr Rest = Idx - CT * Row - AffineExpr::symbol("k@iv");
      if (!Rest.isKnown() || Rest.dependsOnThread() ||
          Rest.symbols().count("k@iv"))
        return;
      Walk = AS;
      A = P;
      RowStride = CT.constantValue();
    });
    if (!Walk)
      continue;
    // Rows shorter than a 32-byte sector (`p[row * 3 + j]` over j < 3):
    // the warp's rows are one contiguous span whose every sector the loop
    // uses (32 rows of 12 bytes: 12 sectors), not a sector per lane.
    uint64_t Elem = Ctx.getTypeSizeInChars(Walk->getType()).getQuantity();
    if (RowStride && Elem && (uint64_t)std::llabs(*RowStride) * Elem < 32)
      continue;
    Out.push_back(analyze(Ctx, CC, K, F, L, IV, K0, End, Walk, A));
  }
}

// Over 150 lines: the legality proof of the staging rewrite and the text it
// writes, in order (the loop and its bounds, the guards, aliasing, the block
// shape, then the tile code); every step reads the facts the earlier ones
// established (a dozen locals) and is a commented block.
Finding CoalescingSmemStaging::analyze(
    ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
    const FunctionFacts &F, const ForStmt *L, const VarDecl *IV, const Expr *K0,
    const Expr *End, const ArraySubscriptExpr *Walk, const ParmVarDecl *A) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string AccText = sourceText(Ctx, Walk->getSourceRange());
  Finding Fd = makeFinding(
      Ctx, RuleId, Walk->getBeginLoc(),
      "each thread walks its own row: the lanes of a warp read '" + AccText +
          "' at addresses a whole row apart (one 32-byte sector per lane "
          "per request, up to 8x the traffic of coalesced reads); staging "
          "tiles of the block's rows in shared memory makes the loads "
          "coalesced",
      K);
  Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the row loop"));

  // --- legality -----------------------------------------------------------
  std::string Why;
  auto BlockOr = constantBlock(CC, K, Why);
  if (!BlockOr) {
    refuse(Fd, Why + "; the shared-memory tile needs a constant block size");
    return Fd;
  }
  auto Block = *BlockOr;
  if (Block[1] != 1 || Block[2] != 1) {
    std::string Redundant = redundantBlockDimsWhy(Ctx, K, Block);
    refuse(Fd, Redundant.empty() ? "the block is not one-dimensional"
                                 : Redundant);
    return Fd;
  }
  uint64_t B = Block[0];
  if (B == 0 || B > 1024) {
    refuse(Fd, "unexpected block size");
    return Fd;
  }
  if (!isBlockUniform(K0, F) || !isBlockUniform(End, F)) {
    refuse(Fd, "the loop bounds differ between threads of a block; the "
               "block cannot walk the columns together");
    return Fd;
  }
  if (varsWrittenIn(L->getBody()).count(IV)) {
    refuse(Fd, "the loop body changes '" + IV->getName().str() + "'");
    return Fd;
  }
  if (containsEscape(L->getBody(), /*AllowContinue=*/true)) {
    refuse(Fd, "the loop body can leave the loop early (break, return, "
               "goto)");
    return Fd;
  }
  if (containsCallTo(L->getBody(), {"__syncthreads", "__syncthreads_count",
                                    "__syncthreads_and", "__syncthreads_or",
                                    "__syncwarp", "__shfl*", "__ballot*",
                                    "__any*", "__all*", "__activemask"})) {
    refuse(Fd, "the loop body has barriers or warp operations");
    return Fd;
  }
  QualType ElemT = Walk->getType().getUnqualifiedType();
  if (Walk->getType().isVolatileQualified() || !ElemT->isScalarType()) {
    refuse(Fd, "the element type is volatile or not a scalar");
    return Fd;
  }
  // A is only read in the kernel, through this exact index in the loop.
  for (const ArraySubscriptExpr *W : {Walk}) {
    (void)W;
  }
  std::vector<const ArraySubscriptExpr *> Uses;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (!Why.empty())
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      if (BO->isAssignmentOp())
        if (const auto *AS =
                dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens()))
          if (rootPointerParam(AS->getBase(), F) == A)
            Why = "the kernel writes through '" + A->getName().str() + "'";
    if (const auto *U = dyn_cast<UnaryOperator>(S))
      if (U->isIncrementDecrementOp())
        if (const auto *AS =
                dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
          if (rootPointerParam(AS->getBase(), F) == A)
            Why = "the kernel writes through '" + A->getName().str() + "'";
  });
  forEachStmt(L->getBody(), [&](const Stmt *S) {
    if (!Why.empty())
      return;
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE || !isa<VarDecl>(DRE->getDecl()) || rootPointerParam(DRE, F) != A)
      return;
    auto P = Ctx.getParents(*DRE);
    while (!P.empty() &&
           (P[0].get<ImplicitCastExpr>() || P[0].get<ParenExpr>()))
      P = Ctx.getParents(P[0]);
    const auto *AS = P.empty() ? nullptr : P[0].get<ArraySubscriptExpr>();
    if (!AS || !sameExpr(Ctx, AS, Walk)) {
      Why = "the loop also reads '" + A->getName().str() + "' other than as '" +
            AccText + "'";
      return;
    }
    Uses.push_back(AS);
  });
  if (!Why.empty()) {
    refuse(Fd, Why);
    return Fd;
  }
  // Nothing the kernel writes may alias A (the tile reads other threads'
  // rows at other times than the original).
  for (const ParmVarDecl *Q : K->parameters()) {
    if (Q == A || !Q->getType()->isPointerType() ||
        Q->getType()->getPointeeType().isConstQualified())
      continue;
    bool Written = false;
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      const Expr *Target = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(S);
          BO && BO->isAssignmentOp())
        Target = BO->getLHS();
      else if (const auto *U = dyn_cast<UnaryOperator>(S);
               U && U->isIncrementDecrementOp())
        Target = U->getSubExpr();
      else if (const auto *CE = dyn_cast<CallExpr>(S))
        for (const Expr *Arg : CE->arguments())
          if (Arg->getType()->isPointerType() && rootPointerParam(Arg, F) == Q)
            Written = true; // atomics and calls
      if (Target)
        if (const auto *AS =
                dyn_cast<ArraySubscriptExpr>(Target->IgnoreParens()))
          if (rootPointerParam(AS->getBase(), F) == Q)
            Written = true;
      if (Target)
        if (const auto *U = dyn_cast<UnaryOperator>(Target->IgnoreParens());
            U && U->getOpcode() == UO_Deref &&
            rootPointerParam(U->getSubExpr(), F) == Q)
          Written = true;
    });
    if (!Written)
      continue;
    std::string How, W;
    if (!provenDistinct(Ctx, context(), K, A, Q, How, W)) {
      refuse(Fd, W + " (mark them __restrict__ if they never overlap)");
      return Fd;
    }
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "no aliasing: " + How));
  }

  // The index: thread-dependent only through threadIdx.x or a local equal
  // to blockIdx.x*blockDim.x + threadIdx.x.
  AffineExpr RowA =
      AffineExpr::symbol("blockIdx.x") * AffineExpr::symbol("blockDim.x") +
      AffineExpr::symbol("threadIdx.x");
  std::vector<std::pair<const Stmt *, std::string>> IdxReps;
  std::string R = "cudal1_r", C = "cudal1_c";
  forEachStmt(Walk->getIdx(), [&](const Stmt *S) {
    if (!Why.empty())
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      std::string Bn = builtinName(E);
      if (Bn == "threadIdx.x" && !isa<ImplicitCastExpr>(E) &&
          !isa<ParenExpr>(E)) {
        IdxReps.push_back({E, R});
        return;
      }
      if (!Bn.empty() && StringRef(Bn).starts_with("threadIdx")) {
        Why = "the index uses " + Bn;
        return;
      }
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE)
      return;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || V->getName() == "threadIdx" || V->getName() == "blockIdx" ||
        V->getName() == "blockDim" || V->getName() == "gridDim")
      return;
    if (V == IV) {
      IdxReps.push_back({DRE, C});
      return;
    }
    if (isBlockUniform(DRE, F))
      return;
    if (toAffine(DRE, F) == RowA) {
      IdxReps.push_back(
          {DRE, "((" + spelledType(Ctx, V) +
                    ")(blockIdx.x * blockDim.x + " + R + "))"});
      return;
    }
    Why = "the index uses '" + V->getName().str() +
          "', a per-thread value other than the row";
  });
  if (!Why.empty()) {
    refuse(Fd, Why);
    return Fd;
  }
  std::string LoadIdx = rewrittenText(Ctx, Walk->getIdx(), IdxReps);
  std::string BaseText = sourceText(Ctx, Walk->getBase()->getSourceRange());
  if (LoadIdx.empty() || BaseText.empty()) {
    refuse(Fd, "the index comes from a macro expansion");
    return Fd;
  }

  // Shared memory budget.
  uint64_t ElemBytes = Ctx.getTypeSizeInChars(ElemT).getQuantity();
  uint64_t Existing = 0;
  bool Dynamic = false;
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->hasAttr<CUDASharedAttr>()) {
            if (V->getType()->isIncompleteArrayType())
              Dynamic = true;
            else if (!V->getType()->isDependentType())
              Existing += Ctx.getTypeSizeInChars(V->getType()).getQuantity();
          }
  });
  if (Dynamic) {
    refuse(Fd, "the kernel uses dynamic shared memory of unknown size");
    return Fd;
  }
  unsigned TK = 0;
  for (unsigned T : {32u, 16u, 8u})
    if (Existing + B * (T + 1) * ElemBytes + B <= 40 * 1024) {
      TK = T;
      break;
    }
  if (!TK) {
    refuse(Fd, "a tile of " + std::to_string(B) +
                   " rows would not fit in shared memory");
    return Fd;
  }

  // --- guards -------------------------------------------------------------
  // The loop must sit in the kernel body, or directly in the then-block of
  // an `if` there; early `if (c) return;` statements may precede it. Code
  // between a guard and the loop must be safe to run in every thread.
  const CompoundStmt *Body = dyn_cast<CompoundStmt>(K->getBody());
  const CompoundStmt *Block2 = nullptr; // block holding the loop
  const IfStmt *Enclosing = nullptr;
  // A `#pragma unroll` before the loop: the replacement starts with `for`.
  const Stmt *LS = loopStatement(Ctx, L);
  auto P = Ctx.getParents(*LS);
  if (!P.empty())
    Block2 = P[0].get<CompoundStmt>();
  if (Block2 && Block2 != Body) {
    auto PP = Ctx.getParents(*Block2);
    Enclosing = PP.empty() ? nullptr : PP[0].get<IfStmt>();
    if (Enclosing) {
      auto P3 = Ctx.getParents(*Enclosing);
      if (P3.empty() || P3[0].get<CompoundStmt>() != Body)
        Enclosing = nullptr;
    }
    if (!Enclosing || Enclosing->getThen() != Block2 || Enclosing->getElse() ||
        Enclosing->getInit() || Enclosing->getConditionVariable() ||
        !isPureNoMemory(Enclosing->getCond())) {
      refuse(Fd, "the loop is nested in control flow other than one "
                 "`if (<condition without memory reads>) { ... }` in the "
                 "kernel body; not every thread of the block would reach "
                 "the barriers");
      return Fd;
    }
  } else if (!Block2) {
    refuse(Fd, "the loop is not directly in a block of the kernel body");
    return Fd;
  }
  std::vector<std::string> Conds; // active-thread conditions
  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  std::string ActName = uniqueName(K, "cudal1_active");
  unsigned GuardN = 0;
  bool AfterGuard = false;
  int LastGuardEdit = -1;
  std::string LastGuardInd;
  bool LastGuardIsIf = false;
  auto SafeForAll = [&](const Stmt *S) -> bool {
    if (isa<NullStmt>(S))
      return true;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return false;
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || V->hasAttr<CUDASharedAttr>() || V->isStaticLocal())
        return false;
      if (V->getInit() && !isPureNoMemory(V->getInit()))
        return false;
    }
    return true;
  };
  // Statements of the kernel body before the loop (or the enclosing if).
  const Stmt *Stop = Enclosing ? (const Stmt *)Enclosing : (const Stmt *)L;
  for (const Stmt *S : Body->body()) {
    if (S == Stop)
      break;
    if (const auto *If = dyn_cast<IfStmt>(S);
        If && !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
        isa<ReturnStmt>(If->getThen()) &&
        !cast<ReturnStmt>(If->getThen())->getRetValue()) {
      if (!isPureNoMemory(If->getCond()) || inMacro(If->getSourceRange())) {
        refuse(Fd, "the early return's condition reads memory (or comes "
                   "from a macro); threads past it cannot safely run on to "
                   "help load");
        return Fd;
      }
      std::string N = ActName + std::to_string(GuardN++);
      Conds.push_back(N);
      std::string CondText = sourceText(Ctx, If->getCond()->getSourceRange());
      Fix.Edits.push_back(makeTextEdit(
          Ctx, CharSourceRange::getTokenRange(If->getSourceRange()),
          "const bool " + N + " = !(" + CondText + ")"));
      LastGuardEdit = Fix.Edits.size() - 1;
      LastGuardInd = indentOf(Ctx, If->getBeginLoc());
      LastGuardIsIf = false;
      AfterGuard = true;
      continue;
    }
    if (containsEscape(S, true)) {
      refuse(Fd, "a statement before the loop may return early");
      return Fd;
    }
    if (AfterGuard && !SafeForAll(S)) {
      refuse(Fd, "'" + sourceText(Ctx, S->getSourceRange()) +
                     "' runs only for threads past the guard; it would have "
                     "to run in every thread");
      return Fd;
    }
  }
  if (Enclosing) {
    std::string N = ActName + std::to_string(GuardN++);
    Conds.push_back(N);
    std::string CondText =
        sourceText(Ctx, Enclosing->getCond()->getSourceRange());
    if (inMacro(Enclosing->getSourceRange()) || CondText.empty()) {
      refuse(Fd, "the guard comes from a macro expansion");
      return Fd;
    }
    // `if (c) {` -> `const bool N = (c);` + `{`
    Fix.Edits.push_back(
        makeTextEdit(Ctx,
                     CharSourceRange::getCharRange(Enclosing->getBeginLoc(),
                                                   Block2->getLBracLoc()),
                     "const bool " + N + " = (" + CondText + ");\n" +
                         indentOf(Ctx, Enclosing->getBeginLoc())));
    LastGuardEdit = Fix.Edits.size() - 1;
    LastGuardInd = indentOf(Ctx, Enclosing->getBeginLoc());
    LastGuardIsIf = true;
    for (const Stmt *S : Block2->body()) {
      if (S == LS)
        break;
      if (!SafeForAll(S)) {
        refuse(Fd, "'" + sourceText(Ctx, S->getSourceRange()) +
                       "' runs only for threads inside the guard; it would "
                       "have to run in every thread");
        return Fd;
      }
    }
  }
  // Statements after the loop in its block run only for active threads.
  std::string Active;
  for (const std::string &N : Conds)
    Active += (Active.empty() ? "" : " && ") + N;
  std::string Indent = indentOf(Ctx, L->getBeginLoc());
  // Which threads load: a flag per thread in shared memory, written right
  // after the last guard (every thread gets there).
  if (!Active.empty() && LastGuardEdit >= 0) {
    // The loader below reads other threads' flags before its first
    // barrier: a barrier after the flags are written (every thread gets
    // here).
    std::string Flags = "__shared__ bool cudal1_loads[" + std::to_string(B) +
                        "];\n" + LastGuardInd +
                        "cudal1_loads[threadIdx.x] = " + Active;
    if (B % TK == 0)
      Flags += ";\n" + LastGuardInd + "__syncthreads()";
    TextEdit &GE = Fix.Edits[LastGuardEdit];
    if (LastGuardIsIf)
      GE.Replacement += Flags + ";\n" + LastGuardInd;
    else
      GE.Replacement += ";\n" + LastGuardInd + Flags;
  }
  {
    const Stmt *First = nullptr, *Last = nullptr;
    bool Seen = false;
    for (const Stmt *S : Block2->body()) {
      if (Seen) {
        if (!First)
          First = S;
        Last = S;
      }
      if (S == LS)
        Seen = true;
    }
    if (First && !Active.empty()) {
      if (inMacro(First->getSourceRange()) || inMacro(Last->getSourceRange())) {
        refuse(Fd, "code after the loop comes from a macro expansion");
        return Fd;
      }
      SourceLocation FB = SM.getExpansionLoc(First->getBeginLoc());
      SourceLocation LEnd = stmtEnd(Ctx, Last);
      CharSourceRange AR = CharSourceRange::getCharRange(FB, LEnd);
      bool Inv = false;
      std::string Rest =
          Lexer::getSourceText(AR, SM, Ctx.getLangOpts(), &Inv).str();
      if (Inv) {
        refuse(Fd, "code after the loop cannot be read");
        return Fd;
      }
      std::string FI = indentOf(Ctx, First->getBeginLoc());
      Fix.Edits.push_back(makeTextEdit(Ctx, AR,
                                       "if (" + Active + ") {\n" + FI + "  " +
                                           reindent(Rest, "  ") + "\n" + FI +
                                           "}"));
    }
  }

  // --- the tiled loop -----------------------------------------------------
  std::vector<std::pair<const Stmt *, std::string>> BodyReps;
  std::string Tile = uniqueName(K, "cudal1_tile");
  std::string K0n = "cudal1_k0", Kend = "cudal1_kend";
  for (const ArraySubscriptExpr *U : Uses)
    BodyReps.push_back(
        {U, Tile + "[threadIdx.x][" + IV->getName().str() + " - " + K0n + "]"});
  std::string BodyText = rewrittenText(Ctx, L->getBody(), BodyReps);
  std::string K0Text = sourceText(Ctx, K0->getSourceRange());
  std::string EndText = sourceText(Ctx, End->getSourceRange());
  if (BodyText.empty() || K0Text.empty() || EndText.empty() ||
      inMacro(L->getSourceRange())) {
    refuse(Fd, "the loop comes from a macro expansion");
    return Fd;
  }
  if (!isa<CompoundStmt>(L->getBody()))
    BodyText += ";";
  std::string IVT = spelledType(Ctx, IV);
  std::string ET = spelledType(Ctx, ElemT, Walk);
  std::string Bs = std::to_string(B), TKs = std::to_string(TK);
  std::string I1 = Indent + "  ", I2 = I1 + "  ", I3 = I2 + "  ",
              I4 = I3 + "  ";
  std::string Act = Active.empty() ? "true" : Active;
  std::string T;
  // The replacement starts with `for`: a `#pragma unroll` another rule
  // puts before the loop still applies to a loop.
  T += "for (" + IVT + " " + K0n + " = " + K0Text + "; " + K0n + " < " +
       EndText + "; " + K0n + " += " + TKs + ") { // cuda-l1 " +
       std::string(RuleId) + ": rows of '" + A->getName().str() +
       "' staged through shared memory\n";
  T +=
      I1 + "__shared__ " + ET + " " + Tile + "[" + Bs + "][" + TKs + " + 1];\n";
  std::string Cond = (Active.empty() ? "" : "cudal1_loads[" + R + "] && ") + C +
                     " < " + EndText;
  if (B % TK == 0) {
    // Every thread loads TK elements of the tile (a warp reads TK
    // consecutive elements of B*32/TK rows: coalesced), all issued before
    // any is stored, so the loads of a tile are in flight together; the
    // barrier after the loads lets the other threads finish the previous
    // tile meanwhile. Measured on an H200, 4096x4096 matrix-vector product,
    // 16 blocks of 256: this shape 2.45x the original, the one-load-per-
    // iteration loop before it 0.33x (utils/experiments/staging-variants.cu).
    std::string Per = Bs + "u / " + TKs + "u";
    T += I1 + "{\n";
    T += I2 + ET + " cudal1_v[" + TKs + "];\n";
    T += I2 + "#pragma unroll\n";
    T += I2 + "for (unsigned int cudal1_i = 0; cudal1_i < " + TKs +
         "u; ++cudal1_i) {\n";
    T += I3 + "const unsigned int " + R + " = cudal1_i * (" + Per +
         ") + threadIdx.x / " + TKs + "u;\n";
    T += I3 + "const " + IVT + " " + C + " = " + K0n + " + (" + IVT +
         ")(threadIdx.x % " + TKs + "u);\n";
    T += I3 + "cudal1_v[cudal1_i] = " + Cond + " ? " + BaseText + "[" +
         LoadIdx + "] : " + ET + "();\n";
    T += I2 + "}\n";
    T += I2 + "__syncthreads();\n";
    T += I2 + "#pragma unroll\n";
    T += I2 + "for (unsigned int cudal1_i = 0; cudal1_i < " + TKs +
         "u; ++cudal1_i)\n";
    T += I3 + Tile + "[cudal1_i * (" + Per + ") + threadIdx.x / " + TKs +
         "u][threadIdx.x % " + TKs + "u] = cudal1_v[cudal1_i];\n";
    T += I1 + "}\n";
  } else {
    T += I1 + "__syncthreads();\n";
    T += I1 + "for (unsigned int cudal1_t = threadIdx.x; cudal1_t < " + Bs +
         "u * " + TKs + "u; cudal1_t += " + Bs + "u) {\n";
    T += I2 + "const unsigned int " + R + " = cudal1_t / " + TKs + "u;\n";
    T += I2 + "const " + IVT + " " + C + " = " + K0n + " + (" + IVT +
         ")(cudal1_t % " + TKs + "u);\n";
    T += I2 + "if (" + Cond + ")\n";
    T += I3 + Tile + "[" + R + "][cudal1_t % " + TKs + "u] = " + BaseText +
         "[" + LoadIdx + "];\n";
    T += I1 + "}\n";
  }
  T += I1 + "__syncthreads();\n";
  T += I1 + "if (" + Act + ") {\n";
  T += I2 + "const " + IVT + " " + Kend + " = " + K0n + " + " + TKs + " < " +
       EndText + " ? " + K0n + " + " + TKs + " : " + EndText + ";\n";
  T += I2 + "for (" + IVT + " " + IV->getName().str() + " = " + K0n + "; " +
       IV->getName().str() + " < " + Kend + "; ++" + IV->getName().str() + ")";
  if (isa<CompoundStmt>(L->getBody()))
    T += " " + reindent(BodyText, I2.substr(Indent.size())) + "\n";
  else
    T += "\n" + I3 + BodyText + "\n";
  T += I1 + "}\n";
  T += Indent + "}";
  SourceLocation LB = SM.getExpansionLoc(L->getBeginLoc());
  CharSourceRange LR = CharSourceRange::getCharRange(LB, stmtEnd(Ctx, L));
  Fix.Edits.push_back(makeTextEdit(Ctx, LR, T));
  Fix.Description = "stage rows of '" + A->getName().str() + "' in a " + Bs +
                    "x" + TKs +
                    " shared-memory tile (+1 padding column); "
                    "threads outside the guard help load";
  // Exact, faster on large matrices (2.45x on an H200, 4096x4096 floats,
  // utils/experiments/staging-variants.cu), but a tile of mostly idle rows
  // or a short row can make it slower: applied only where --verify=run
  // measures it faster.
  // Not faster everywhere: offered for GPU measurement unless the user
  // says otherwise (option MeasureFirst).
  Fix.NeedsMeasurement = optionBool("MeasureFirst", true);
  Fd.Notes.push_back(makeNote(
      Ctx, L->getBeginLoc(),
      "offered for GPU verification (--verify=run): not faster everywhere; "
      "where launch sites can be rewritten, coalescing-warp-per-row is "
      "usually much faster"));
  Fd.Fix = Fix;
  return Fd;
}

void CoalescingSmemStaging::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
