//===- CoalescingMatmulTile.cpp - coalescing-matmul-tile ------------------===//
//
// Matrix products written one output per thread:
//
//   i = blockIdx.D1 * blockDim.D1 + threadIdx.D1;      (D1 != D2)
//   j = blockIdx.D2 * blockDim.D2 + threadIdx.D2;
//   if (guard(i, j)) {                 (or early returns)
//     prologue (T sum = X; C[..] *= beta; ...)
//     for (k = K0; k < K; ++k)
//       sum += E;   // E: one load of A(i,k), one of B(k,j), invariants
//     epilogue (C[i * N + j] = alpha * sum + beta * C[i * N + j]; ...)
//   }
//
// Every output reads a whole row of A and a whole column of B from global
// memory: 2K loads per K multiply-adds. The rewrite keeps the launch and the
// signature and replaces the body by
//   - the original body, run when the block does not have the NT threads
//     the fast path is compiled for (any launch stays correct);
//   - a fast path: blocks walk TM x TN output tiles grid-stride over exactly
//     the outputs the original grid covers; A and B are staged TK deep in
//     shared memory by coalesced cooperative loads that paste the original
//     operand text with i / j and k bound; each thread accumulates RM x RN
//     outputs in registers (rows ty + TY*r, columns tx + TX*c) with the
//     original update text, in the original k order: bitwise.
// A row of A (a column of B) is loaded only when an output of the tile in
// that row (column) passes the original guard: exactly the elements an
// original thread reads. The prologue and epilogue run per output under the
// guard, with i and j bound; they may touch memory only at the output's own
// (i, j), in arrays that provably do not alias the operands.
//
//===----------------------------------------------------------------------===//
#include "CoalescingMatmulTile.h"
#include "RowWalk.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <cstdio>
#include <sstream>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "coalescing-matmul-tile";

/// The tile shapes per block size NT (threads per block): TM x TN outputs
/// per block, TK deep, RM x RN outputs per thread (TY = TM / RM rows and
/// TX = TN / RN columns of threads, TY * TX = NT). The one table to tune
/// from GPU measurements; the options Tile<NT> and Tile ("TMxTNxTK/RMxRN")
/// override the entry used.
struct TileShape {
  unsigned NT, TM, TN, TK, RM, RN;
};
/// NT = 256: 64x64 tiles 32 deep, 4x4 contiguous outputs per thread, the
/// next slice prefetched into registers: 1.31x-1.82x cuBLAS's time (fp32, no
/// TF32) from 1000^3 to 4096^3 on an H200, the best of 11 shapes measured
/// (docs/gpu-runs/2026-12-01-session7, run 2).
constexpr TileShape TileTable[] = {
    {64, 32, 32, 16, 4, 4},     // 8 x 8 threads
    {128, 32, 64, 16, 4, 4},    // 8 x 16
    {256, 64, 64, 32, 4, 4},    // 16 x 16
    {512, 64, 128, 16, 4, 4},   // 16 x 32
    {1024, 128, 128, 16, 4, 4}, // 32 x 32
};
constexpr unsigned DefaultNT = 256;

/// `v = blockIdx.D * blockDim.T + threadIdx.T` (or `blockIdx.D * C +
/// threadIdx.T` with a constant C, which needs blockDim.T == C). T is D
/// as usually written; T != D after a block-only thread-mapping swap
/// (`i = blockIdx.x * blockDim.y + threadIdx.y`).
struct ThreadVar {
  const VarDecl *V = nullptr;
  std::string Dim;  // D: of blockIdx and gridDim, "x", "y", "z"
  std::string TDim; // T: of threadIdx and blockDim
  std::optional<int64_t> ConstStride;
};

std::optional<ThreadVar> threadVar(const VarDecl *V, const FunctionFacts &F) {
  if (!V->getInit() || F.isMutated(V) || !V->getType()->isIntegerType() ||
      V->getType().isVolatileQualified())
    return std::nullopt;
  AffineExpr A = toAffine(V->getInit(), F);
  if (!A.isKnown())
    return std::nullopt;
  for (std::string D : {"x", "y", "z"})
    for (std::string T : {D, std::string("x"), std::string("y"), std::string("z")}) {
      AffineExpr Blk = AffineExpr::symbol("blockIdx." + D);
      AffineExpr Th = AffineExpr::symbol("threadIdx." + T);
      if (A == Blk * AffineExpr::symbol("blockDim." + T) + Th)
        return ThreadVar{V, D, T, std::nullopt};
      AffineExpr Rest = A - Th;
      AffineExpr C = Rest.coefficientOf("blockIdx." + D);
      if (auto CV = C.constantValue(); CV && *CV > 0 && Rest == Blk * C)
        return ThreadVar{V, D, T, *CV};
    }
  return std::nullopt;
}

bool isWithin(const SourceManager &SM, SourceRange Inner, SourceRange Outer) {
  SourceLocation B = SM.getExpansionLoc(Inner.getBegin()),
                 E = SM.getExpansionLoc(Inner.getEnd());
  SourceLocation OB = SM.getExpansionLoc(Outer.getBegin()),
                 OE = SM.getExpansionLoc(Outer.getEnd());
  return !SM.isBeforeInTranslationUnit(B, OB) &&
         !SM.isBeforeInTranslationUnit(OE, E);
}

/// Splits \p E at the top-level operator \p Op (&& or ||).
void splitAt(const Expr *E, BinaryOperatorKind Op,
             std::vector<const Expr *> &Out) {
  E = E->IgnoreParens();
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == Op) {
    splitAt(BO->getLHS(), Op, Out);
    splitAt(BO->getRHS(), Op, Out);
    return;
  }
  Out.push_back(E);
}

/// `V < X` (or `X > V`, or `!(V >= X)` when \p Negated): X.
const Expr *upperBoundOf(const Expr *T, const VarDecl *V, bool Negated) {
  T = T->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(T);
      U && U->getOpcode() == UO_LNot)
    return upperBoundOf(U->getSubExpr(), V, !Negated);
  const auto *BO = dyn_cast<BinaryOperator>(T);
  if (!BO)
    return nullptr;
  BinaryOperatorKind Lt = Negated ? BO_GE : BO_LT;
  BinaryOperatorKind Gt = Negated ? BO_LE : BO_GT;
  if (BO->getOpcode() == Lt && varOf(BO->getLHS()) == V)
    return BO->getRHS();
  if (BO->getOpcode() == Gt && varOf(BO->getRHS()) == V)
    return BO->getLHS();
  return nullptr;
}

/// Does \p S write memory or synchronise (directly, or in a user function
/// it calls, up to \p Depth calls deep)? Assignments to locals declared in
/// \p S (or to \p Own) do not count.
bool writesMemory(const Stmt *S, const std::set<const VarDecl *> &Own,
                  const SourceManager &SM, unsigned Depth, std::string &What);

bool callWrites(const CallExpr *CE, const SourceManager &SM, unsigned Depth,
                std::string &What) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD) {
    What = "an indirect call";
    return true;
  }
  std::string N = FD->getNameAsString();
  if (StringRef(N).starts_with("atomic") ||
      StringRef(N).starts_with("__nv_atomic") || StringRef(N).starts_with("__sync") ||
      StringRef(N).starts_with("__shfl") ||
      StringRef(N).starts_with("__threadfence") ||
      StringRef(N).starts_with("__syncwarp")) {
    What = "a call to '" + N + "'";
    return true;
  }
  if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
    return false; // math functions
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def || Depth == 0) {
    What = "a call to '" + N + "', whose body is not known";
    return true;
  }
  return writesMemory(Def->getBody(), {}, SM, Depth - 1, What);
}

bool writesMemory(const Stmt *S, const std::set<const VarDecl *> &Own,
                  const SourceManager &SM, unsigned Depth, std::string &What) {
  std::set<const VarDecl *> Locals = Own;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          Locals.insert(V);
  });
  bool W = false;
  auto Lhs = [&](const Expr *L) {
    const VarDecl *V = varOf(L);
    if (!V || !Locals.count(V) || V->getType()->isReferenceType()) {
      W = true;
      What = "a store";
    }
  };
  forEachStmt(S, [&](const Stmt *X) {
    if (W)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(X); BO && BO->isAssignmentOp())
      Lhs(BO->getLHS());
    else if (const auto *U = dyn_cast<UnaryOperator>(X);
             U && U->isIncrementDecrementOp())
      Lhs(U->getSubExpr());
    else if (const auto *CE = dyn_cast<CallExpr>(X))
      W = callWrites(CE, SM, Depth, What);
    else if (isa<GCCAsmStmt>(X) || isa<MSAsmStmt>(X)) {
      W = true;
      What = "inline assembly";
    }
  });
  return W;
}

} // namespace

RuleInfo CoalescingMatmulTile::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "coalescing";
  I.Summary = "matrix product computed one output per thread -> "
              "shared-memory tiles with register blocking (exact)";
  I.Exactness = Exactness::Bitwise;
  I.DefaultOptions["MeasureFirst"] = "true";
  I.DefaultOptions["Tile"] = "";
  I.ExactnessNote = "bitwise (same products, same sum order); offered for "
                    "GPU measurement (--verify=run) unless the option "
                    "MeasureFirst is false";
  I.Help =
      "A kernel in which each thread computes one output of a matrix "
      "product, sum += A(i,k) * B(k,j) over k, reads 2K values from global "
      "memory per K multiply-adds, and the lanes of a warp read A (or B) "
      "rows apart. The rewrite stages TK-deep slices of A and B in shared "
      "memory with coalesced loads and lets each thread accumulate RM x RN "
      "outputs in registers, in the original order: the result is "
      "bit-identical. The launch is unchanged; other block sizes run the "
      "original code.";
  I.Doc.Detects =
      "Kernels with two thread indices `i = blockIdx.D1 * blockDim.D1 + "
      "threadIdx.D1` and `j = blockIdx.D2 * blockDim.D2 + threadIdx.D2` "
      "(any order of x/y/z, any integer type, macros welcome) whose loop "
      "`for (k = K0; k < K; ++k) sum += E;` sums an expression `E` with one "
      "global load depending only on `(i, k)` and one depending only on "
      "`(k, j)` (`A[i * K + k]`, `A[k * M + i]`, `A[i][k]` on a `T A[][N]` "
      "parameter, the same array twice as in `A[i * K + k] * A[j * K + k]`), "
      "the rest of `E` loop-invariant (`alpha`, `sqrtf(...)`), under a guard "
      "(`if (i < M && j < N)` or early returns) with optional code before "
      "the loop (`T sum = 0;`, `T sum = beta * C[...]`, `C[...] *= beta;`) "
      "and after it (`C[i * N + j] = alpha * sum + beta * C[i * N + j];`).";
  I.Doc.WhySlow =
      "Each output reads a whole row of A and a whole column of B: 2K global "
      "loads for K multiply-adds, and one of the two walks a row per lane "
      "(one 32-byte sector per lane). The kernel is bound by the memory "
      "system at a small fraction of the GPU's arithmetic rate.";
  I.Doc.Example = R"cuda(int i = blockIdx.y * blockDim.y + threadIdx.y;
int j = blockIdx.x * blockDim.x + threadIdx.x;
if (i < M && j < N) {
  float sum = 0.0f;
  for (int k = 0; k < K; ++k)
    sum += A[i * K + k] * B[k * N + j];     // warning
  C[i * N + j] = alpha * sum + beta * C[i * N + j];
})cuda";
  I.Doc.Fixed = R"cuda(if (blockDim.x * blockDim.y * blockDim.z != 256u || blockDim.z != 1u ||
    gridDim.z != 1u) {
  ... the original body ...
  return;
}
__shared__ __align__(16) float cudal1_As[2][32][64 + 4];  // A: 2 x TK x TM
__shared__ __align__(16) float cudal1_Bs[2][32][64 + 0];  // B: 2 x TK x TN
... per 64x64 tile (grid-stride over the outputs the grid covers):
  prologue per owned output under the guard (acc[r][c] = 0.0f);
  registers <- the first slice; buffer 0 <- registers; __syncthreads();
  for (int cudal1_k0 = 0; cudal1_k0 < K; cudal1_k0 += 32) {
    // the next slice into registers: coalesced loads, the operand text
    // with i / k bound, the rows in use from a per-tile bit mask:
    { const int i = ...; const int k = ...;
      if ((maskA >> u) & 1u && (full || k < K)) ra[u] = A[i * K + k]; }
    for (kk ...) for (r ...) for (c ...)      // from buffer buf
      cudal1_acc[r][c] += cudal1_a[r] * cudal1_b[c];   // the original update
    buffer 1 - buf <- registers; __syncthreads(); buf = 1 - buf;
  }
  epilogue per owned output under the guard:
    { const int i = ..., j = ...; if (i < M && j < N) {
        float sum = cudal1_acc[r][c];
        C[i * N + j] = alpha * sum + beta * C[i * N + j]; } })cuda";
  I.Doc.Fix =
      "The kernel body is replaced; the signature and every launch stay as "
      "they are (the launch may be in another file).\n"
      "\n"
      "- **Fallback.** The fast path is compiled for a fixed number of "
      "threads per block NT: the constant block of the launch sites when "
      "they all agree (64, 128, 256, 512 or 1024), else 256. A block of "
      "another size (or with the unused dimension > 1) runs the original "
      "body, so any launch stays correct. The fast path needs more registers "
      "than the original, so a kernel without launch bounds gets "
      "`__launch_bounds__(NT, B)` when every launch is visible and uses NT "
      "threads, else `__launch_bounds__(1024)` (a launch of any size stays "
      "possible). B asks for enough resident blocks per SM that a 4x4 "
      "register block stays within 128 registers per thread (B = 2 for "
      "NT = 256: two blocks per SM instead of one of 142-register threads), "
      "as far as shared memory allows; it is left out for larger register "
      "blocks.\n"
      "- **Coverage.** Blocks walk the `TM x TN` output tiles grid-stride "
      "over exactly the `(i, j)` the original grid covers (`i < gridDim.D1 "
      "* blockDim.D1`, clamped by a guard term `i < M`); extra blocks exit.\n"
      "- **Tiles.** NT threads form a `TY x TX` grid; thread `(ty, tx)` "
      "owns the `RM x RN` contiguous outputs `(ty*RM + r, tx*RN + c)` "
      "(16-byte shared-memory reads). Each TK-deep slice is stored in one "
      "of two shared buffers while the other is read: every thread loads "
      "its share of the next slice into registers before multiplying the "
      "current one (one barrier per slice). `TM, TN, TK, RM, RN` per NT "
      "come from one table in the rule, chosen on an H200 from 11 shapes "
      "(NT = 256: 64 x 64 x 32, 4 x 4: 1.31x-1.82x the time of cuBLAS "
      "SGEMM without TF32 from 1000^3 to 4096^3; NT = 1024: 128 x 128 x "
      "16, 4 x 4; 8-byte elements get shallower slices so that both "
      "buffers fit in 48 KiB); the "
      "options `Tile<NT>` (e.g. `Tile256: \"128x128x8/8x8\"`) and `Tile` "
      "(every NT it fits) override it for tuning.\n"
      "- **Loads.** Each TK-deep slice of A and B is loaded by all threads "
      "with consecutive threads on consecutive addresses (along k when the "
      "operand is contiguous in k, else along i / j; a k-contiguous tile "
      "gets padding against bank conflicts). The load pastes the original "
      "operand text with `i` (or `j`) and `k` bound in a small scope, and "
      "reads only when `k < K` and some output of the tile in that row "
      "(column) passes the original guard: exactly what an original thread "
      "reads. When every term of the guard reads `i` or `j` but not both "
      "(`i < M && j < N`, early returns), a row (column) is in use when it "
      "passes the row's (column's) terms; otherwise the prologue marks the "
      "rows and columns in use in two shared masks, so the guard need not "
      "separate: a triangular guard (`j <= i`, syrk) works. Which of a "
      "thread's loads read a row (column) in use does not change along `k`: "
      "it is found once per tile, into the bits of a register, and the "
      "loads of a slice test one bit; a slice whose last `k` passes the "
      "loop's test loads without testing `k` (on the H200 the per-load "
      "guards made the 4096^3 product 2.26x cuBLAS's time instead of "
      "1.86x). Tiles with no output inside the guard skip the loop.\n"
      "- **Exactness.** A slice is full when its last `k` passes the loop's "
      "own test; the last, partial slice runs `kk` while `k0 + kk` passes "
      "it (no zero-padded products are added). The update executes the "
      "original update statement with the operand loads replaced by registers: "
      "the same products in the same order, bit-identical (FMA contraction "
      "is the same on both sides).\n"
      "- **Prologue / epilogue.** The code before the loop runs per owned "
      "output with `i` and `j` bound and the guard evaluated (its `T sum = "
      "X` gives the register's start), and the code after it with `T sum = "
      "acc[r][c]` in front.\n"
      "\n"
      "Accumulations into global memory (`c[i * N + j] += a * b` in the "
      "loop) are reached by composition: memory-register-accumulation "
      "rewrites them in round 1, this rule fires on the register form in "
      "round 2 of the same `--fix` run.\n"
      "\n"
      "Kernel templates (`template <typename T> __global__ void mm(T *a, "
      "...)`) are checked through each instantiation in the file: the fix "
      "is offered when every instantiation gives the same rewrite of the "
      "template's text (new locals and tiles typed `T`, slices sized for "
      "8-byte elements); an instantiation that does not match (an element "
      "type with its own operators) keeps the template unchanged, and the "
      "finding says which.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the loop's bounds depend on the thread (triangular `k < i`), or the "
      "loop is not `for (k = K0; k < K; ++k)`, or it does more than the "
      "sum;\n"
      "- the summed expression reads memory other than operands of one "
      "thread index each (one for the rows, one for the columns), "
      "or reads a variable that changes with the thread or the iteration "
      "(other than inside the operands), or calls a user function;\n"
      "- code before the loop is not the accumulator's declaration or a "
      "store to the output at `(i, j)`; code after it stores elsewhere than "
      "at `(i, j)`, synchronises, uses atomics, or returns;\n"
      "- the guard reads memory or calls a function; statements other than "
      "declarations and `if (c) return;` precede it;\n"
      "- the output array may alias an operand (not `__restrict__`, not "
      "separate `cudaMalloc` allocations at every launch site);\n"
      "- the kernel reads `threadIdx`/`blockIdx` other than in the two index "
      "declarations, or already uses shared memory or barriers (a kernel "
      "that already stages its operands in shared memory gets no finding);\n"
      "- code from macro expansions of the kernel body;\n"
      "- an operand that reads both indices (e.g. "
      "`W[(i * n + j) * n + k]`).\n"
      "\n"
      "Sums of several products over the same k (syr2k's "
      "`alpha * a[j][k] * b[i][k] + alpha * b[j][k] * a[i][k]`) stage every "
      "distinct operand in its own tile; an operand read twice is staged "
      "once.\n"
      "\n"
      "## Verified on the CPU, to be measured on the GPU\n"
      "\n"
      "test/Rules/coalescing/coalescing-matmul-tile-emu.cu runs the original "
      "and the rewritten kernels on the CPU emulation (utils/bench/cuemu) and "
      "compares the bits (odd sizes, larger and smaller grids, 64 to 1024 "
      "threads, fallback shapes). On the naive-style corpus, `--fix` with "
      "every rule rewrites gemm, both products of gemm_chain, syrk (through "
      "register accumulation), both layers of mlp_forward and correlation's "
      "corr_kernel, and every program still passes its own check under the "
      "emulation. GPU speed: utils/bench-structural.sh (matmul1024/4096, "
      "gemm_rmw1024/4096, and the ratio to cuBLAS sgemm).";
  return I;
}

// Over 150 lines: one pass from the pattern (thread indices, loop, operands,
// guard, prologue/epilogue, aliasing) to the tiled body; the steps share the
// matched pieces and are commented blocks.
void CoalescingMatmulTile::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  ASTContext &Ctx = ctx();
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *K = Kernel.FD;
  const FunctionFacts &F = Kernel.Facts;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body || Body->body_empty())
    return;

  // --- the pattern ---------------------------------------------------------
  // Thread indices among the top-level declarations.
  std::vector<ThreadVar> TVs;
  for (const Stmt *S : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (auto TV = threadVar(V, F))
            TVs.push_back(*TV);
  if (TVs.size() < 2)
    return;
  std::map<const VarDecl *, std::string> TVSym;
  for (unsigned N = 0; N < TVs.size(); ++N)
    TVSym[TVs[N].V] = "@tv" + std::to_string(N);

  // The loop: `for (k = K0; k < END; ++k) acc += E;` with one operand load
  // depending on (u, k) and one on (v, k), u and v thread indices of
  // different dimensions.
  struct Operand {
    const ArraySubscriptExpr *AS = nullptr;
    const ParmVarDecl *P = nullptr;
    AffineExpr Idx;
    int TV = -1;
  };
  const ForStmt *Loop = nullptr;
  const VarDecl *IV = nullptr, *Acc = nullptr;
  const Expr *K0 = nullptr, *End = nullptr;
  const BinaryOperator *Upd = nullptr;
  std::vector<Operand> Ops;
  std::vector<const Expr *> OtherLoads;
  const Stmt *Extra = nullptr; // another statement in the loop's body
  bool LoopShapeOk = false;
  for (const ForStmt *L : forLoopsIn(Body)) {
    // `for (T k = K0; k < END; ++k)`; other counted shapes (k <= END,
    // steps) are reported and refused.
    std::optional<LoopShape> LS = analyzeFor(Ctx, L);
    if (!LS || !isa_and_nonnull<DeclStmt>(L->getInit()))
      continue;
    const Expr *LK0 = LS->Init, *LEnd = LS->Bound;
    const VarDecl *LIV = LS->IV;
    const auto *LC = dyn_cast_or_null<BinaryOperator>(L->getCond());
    bool LShapeOk = LS->Step == 1 && LS->Cmp == BO_LT && LC &&
                    varOf(LC->getLHS()) == LIV;
    std::vector<const Stmt *> BodyStmts;
    if (const auto *CS = dyn_cast<CompoundStmt>(L->getBody()))
      BodyStmts.assign(CS->body_begin(), CS->body_end());
    else
      BodyStmts.push_back(L->getBody());
    for (const Stmt *BS : BodyStmts) {
      const auto *BO = dyn_cast<BinaryOperator>(BS);
      if (!BO || !BO->isAssignmentOp())
        continue;
      const VarDecl *A = varOf(BO->getLHS());
      if (!A || !A->hasLocalStorage() || isa<ParmVarDecl>(A))
        continue;
      const Expr *E = nullptr;
      if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) {
        E = BO->getRHS();
      } else if (BO->getOpcode() == BO_Assign) {
        // acc = acc + E / acc = E + acc
        const auto *R = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParens());
        if (!R || R->getOpcode() != BO_Add)
          continue;
        if (varOf(R->getLHS()) == A)
          E = R->getRHS();
        else if (varOf(R->getRHS()) == A)
          E = R->getLHS();
        else
          continue;
      } else {
        continue;
      }
      std::map<const VarDecl *, std::string> Syms = TVSym;
      Syms[LIV] = "@k";
      std::vector<Operand> LOps;
      std::vector<const Expr *> LOther;
      forEachStmt(E, [&](const Stmt *X) {
        if (const auto *U = dyn_cast<UnaryOperator>(X);
            U && U->getOpcode() == UO_Deref)
          LOther.push_back(U);
        if (const auto *ME = dyn_cast<MemberExpr>(X); ME && ME->isArrow())
          LOther.push_back(ME);
        const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
        if (!AS || AS->getType()->isArrayType())
          return; // A[i] of A[i][k]: a row
        Operand O;
        O.AS = AS;
        O.P = rowWalkAccess(AS, F, Syms, O.Idx);
        bool Ok = O.P && O.Idx.isKnown();
        bool DepK = false;
        std::set<int> Dep;
        if (Ok)
          for (const std::string &Sym : O.Idx.symbols()) {
            if (Sym == "@k")
              DepK = true;
            else if (StringRef(Sym).starts_with("@tv"))
              Dep.insert(std::stoi(Sym.substr(3)));
            else if (StringRef(Sym).starts_with("threadIdx.") ||
                     StringRef(Sym).starts_with("blockIdx."))
              Ok = false;
          }
        if (Ok && DepK && Dep.size() == 1) {
          O.TV = *Dep.begin();
          LOps.push_back(O);
        } else {
          LOther.push_back(AS);
        }
      });
      // Operands of two thread indices of different dimensions: rows of
      // the output's row index, columns of its column index (a sum of
      // several products over k, such as syr2k's a*b + b*a, stages each
      // distinct operand).
      if (LOps.size() < 2)
        continue;
      int RowOp = -1, ColOp = -1;
      for (unsigned X = 0; X < LOps.size() && RowOp < 0; ++X)
        for (unsigned Y = 0; Y < LOps.size(); ++Y)
          if (LOps[X].TV != LOps[Y].TV &&
              TVs[LOps[X].TV].Dim != TVs[LOps[Y].TV].Dim &&
              TVs[LOps[X].TV].TDim != TVs[LOps[Y].TV].TDim &&
              // the same third dimension for blocks and threads
              (TVs[LOps[X].TV].Dim == TVs[LOps[X].TV].TDim ||
               TVs[LOps[X].TV].Dim == TVs[LOps[Y].TV].TDim) &&
              (TVs[LOps[Y].TV].Dim == TVs[LOps[Y].TV].TDim ||
               TVs[LOps[Y].TV].Dim == TVs[LOps[X].TV].TDim)) {
            RowOp = X;
            ColOp = Y;
            break;
          }
      if (RowOp < 0)
        continue;
      std::vector<Operand> Sel;
      for (int Side : {RowOp, ColOp})
        for (unsigned X = 0; X < LOps.size(); ++X)
          if (LOps[X].TV == LOps[Side].TV)
            Sel.push_back(LOps[X]);
      for (unsigned X = 0; X < LOps.size(); ++X)
        if (LOps[X].TV != LOps[RowOp].TV && LOps[X].TV != LOps[ColOp].TV)
          LOther.push_back(LOps[X].AS);
      Loop = L;
      IV = LIV;
      Acc = A;
      K0 = LK0;
      End = LEnd;
      Upd = BO;
      Ops = Sel;
      OtherLoads = LOther;
      LoopShapeOk = LShapeOk;
      for (const Stmt *X : BodyStmts)
        if (X != BS && !Extra)
          Extra = X;
      break;
    }
    if (Loop)
      break;
  }
  if (!Loop)
    return;

  // Already staged in shared memory (good code, or this rule's own output,
  // whose fallback keeps the original loop): no finding.
  std::set<const VarDecl *> Shared;
  forEachStmt(Body, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->hasAttr<CUDASharedAttr>())
            Shared.insert(V);
  });
  bool Tiled = false;
  for (const ForStmt *L : forLoopsIn(Body))
    for (const VarDecl *V : varsRead(L->getBody()))
      if (Shared.count(V))
        Tiled = true;
  if (Tiled)
    return;

  // --- the tile shape --------------------------------------------------------
  unsigned NT = DefaultNT;
  bool FromLaunch = false;
  std::string BlockWhy, TileNote;
  if (auto Block = constantBlock(context(), K, BlockWhy)) {
    uint64_t N = (*Block)[0] * (*Block)[1] * (*Block)[2];
    for (const TileShape &T : TileTable)
      if (T.NT == N) {
        NT = unsigned(N);
        FromLaunch = true;
      }
  }
  TileShape TS = TileTable[0];
  for (const TileShape &T : TileTable)
    if (T.NT == NT)
      TS = T;
  // Option Tile<NT> (e.g. Tile256), else Tile: "TMxTNxTK/RMxRN".
  std::string Opt;
  if (context().Options) {
    Opt = context().Options->get(RuleId, "Tile" + std::to_string(NT), "");
    if (Opt.empty())
      Opt = context().Options->get(RuleId, "Tile", "");
  }
  if (!Opt.empty()) {
    unsigned TM = 0, TN = 0, TK = 0, RM = 0, RN = 0;
    if (sscanf(Opt.c_str(), "%ux%ux%u/%ux%u", &TM, &TN, &TK, &RM, &RN) == 5 &&
        RM && RN && TK && TM % RM == 0 && TN % RN == 0 &&
        (TM / RM) * (TN / RN) == NT)
      TS = {NT, TM, TN, TK, RM, RN};
    else
      TileNote = "option Tile '" + Opt + "' ignored: not TMxTNxTK/RMxRN " +
                 "with (TM/RM)*(TN/RN) = " + std::to_string(NT) + " threads";
  }
  // Ops: the operands of the first thread index, then those of the other.
  int RowI0 = Ops[0].TV, ColI0 = Ops.back().TV;
  const ThreadVar &RowTV0 = TVs[RowI0];
  const ThreadVar &ColTV0 = TVs[ColI0];
  std::string AT, BT;
  {
    std::set<std::string> Listed;
    for (const Operand &O : Ops) {
      std::string &Side = O.TV == RowI0 ? AT : BT;
      std::string Txt = "'" + sourceText(Ctx, O.AS->getSourceRange()) + "'";
      if (Listed.insert(Txt).second)
        Side += (Side.empty() ? "" : ", ") + Txt;
    }
  }
  std::string KN = IV->getName().str();
  std::string Reads =
      Ops.size() == 2
          ? "a row of " + AT + " and a column of " + BT +
                " from global memory (2 loads per multiply-add)"
          : "rows of " + AT + " and columns of " + BT +
                " from global memory (" + std::to_string(Ops.size()) +
                " loads per step of '" + KN + "')";
  Finding Fd = finding(
      Upd->getBeginLoc(),
      "matrix product computed one output per thread: each output of '" +
          K->getNameAsString() + "' reads " + Reads + "; " +
          std::to_string(TS.TM) + "x" + std::to_string(TS.TN) +
          " shared-memory tiles with " + std::to_string(TS.RM) + "x" +
          std::to_string(TS.RN) +
          " outputs per thread would reuse every load across the tile (an "
          "exact fix: same products, same order)",
      K, Upd->getSourceRange());
  if (!TileNote.empty())
    note(Fd, Upd->getBeginLoc(), TileNote);
  auto Refuse = [&](const std::string &Why) {
    reportWithoutFix(std::move(Fd), Why);
  };
  if (!Shared.empty() || containsCallTo(Body, {"__syncthreads*", "__syncwarp"}))
    return Refuse("the kernel already uses shared memory or barriers");
  if (!LoopShapeOk)
    return Refuse("the '" + KN + "' loop is not `for (k = K0; k < K; ++k)`");
  if (Extra)
    return Refuse("the loop does more than the sum: '" +
                  sourceText(Ctx, Extra->getSourceRange()) +
                  "' (only `acc += E;` can be split into tiles)");
  if (!OtherLoads.empty())
    return Refuse("the summed expression reads '" +
                  sourceText(Ctx, OtherLoads.front()->getSourceRange()) +
                  "' besides operands of the row and the column index: "
                  "only those can be staged");
  // An operand the original reads only under a condition (`b ? b[..] : 0`,
  // `c && a[..]`) would be loaded for every row and k by the tiles.
  {
    std::string Cond;
    forEachStmt(Upd->getRHS(), [&](const Stmt *X) {
      bool IsCond = isa<ConditionalOperator>(X) ||
                    isa<BinaryConditionalOperator>(X);
      if (const auto *B = dyn_cast<BinaryOperator>(X))
        IsCond |= B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr;
      if (!IsCond || !Cond.empty())
        return;
      for (const Operand &O : Ops)
        if (isWithin(SM, O.AS->getSourceRange(), X->getSourceRange()))
          Cond = sourceText(Ctx, X->getSourceRange());
    });
    if (!Cond.empty())
      return Refuse("an operand is read only under a condition ('" + Cond +
                    "'): the tiles would load it for every output");
  }
  if (RowTV0.V == ColTV0.V)
    return;

  // --- body structure: declarations / exits, guard, core ---------------------
  std::vector<const DeclStmt *> PreDecls;
  std::vector<const Expr *> Exits;
  const IfStmt *GuardIf = nullptr;
  std::vector<const Stmt *> Core;
  {
    auto It = Body->body_begin(), E = Body->body_end();
    for (; It != E; ++It) {
      if (const auto *DS = dyn_cast<DeclStmt>(*It)) {
        // The accumulator's declaration starts the core when it reads
        // memory (it is prologue code).
        bool Plain = true;
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          if (!V || (V->getInit() && !isPureNoMemory(V->getInit())))
            Plain = false;
        }
        if (Plain) {
          PreDecls.push_back(DS);
          continue;
        }
        break;
      }
      if (const Expr *C = earlyExit(*It)) {
        Exits.push_back(C);
        continue;
      }
      break;
    }
    if (It != E && std::next(It) == E)
      if (const auto *If = dyn_cast<IfStmt>(*It);
          If && !If->getElse() && !If->getInit() &&
          !If->getConditionVariable() && !earlyExit(If)) {
        GuardIf = If;
        if (const auto *CS = dyn_cast<CompoundStmt>(If->getThen()))
          Core.assign(CS->body_begin(), CS->body_end());
        else
          Core.push_back(If->getThen());
      }
    if (!GuardIf)
      Core.assign(It, E);
  }
  auto LoopIt = std::find_if(Core.begin(), Core.end(), [&](const Stmt *S) {
    if (const auto *AS = dyn_cast<AttributedStmt>(S))
      S = AS->getSubStmt();
    return S == Loop;
  });
  if (LoopIt == Core.end())
    return Refuse("the loop is nested in control flow other than the guard "
                  "`if (...) { ... }` that ends the kernel");
  std::vector<const Stmt *> Prologue(Core.begin(), LoopIt);
  std::vector<const Stmt *> Epilogue(std::next(LoopIt), Core.end());

  // Threads indices: declared at the top, the only uses of the built-ins.
  for (const ThreadVar *TV : {&RowTV0, &ColTV0}) {
    bool Top = false;
    for (const DeclStmt *DS : PreDecls)
      for (const Decl *D : DS->decls())
        if (D == TV->V)
          Top = true;
    if (!Top)
      return Refuse("'" + TV->V->getName().str() +
                    "' is not declared before the guard");
  }
  {
    bool Other = false;
    forEachStmt(Body, [&](const Stmt *X) {
      const auto *PO = dyn_cast<PseudoObjectExpr>(X);
      if (!PO || builtinName(PO).empty())
        return;
      if (!isWithin(SM, PO->getSourceRange(),
                    RowTV0.V->getInit()->getSourceRange()) &&
          !isWithin(SM, PO->getSourceRange(),
                    ColTV0.V->getInit()->getSourceRange()))
        Other = true;
    });
    if (Other)
      return Refuse("the kernel reads threadIdx/blockIdx other than in the "
                    "declarations of '" + RowTV0.V->getName().str() +
                    "' and '" + ColTV0.V->getName().str() +
                    "' (the tiles give threads other roles)");
  }

  // The declarations before the guard: the thread indices, uniform values
  // (emitted once at the top of the fast path), and per-output values
  // (re-emitted in each output's scope), never mixed in one statement.
  std::set<const VarDecl *> Uniform, PerOutput;
  std::vector<const DeclStmt *> UniformDecls, PerOutputDecls;
  for (const DeclStmt *DS : PreDecls) {
    int Kind = -1; // 0 thread index, 1 uniform, 2 per output
    for (const Decl *D : DS->decls()) {
      const auto *V = cast<VarDecl>(D);
      int VK;
      if (V == RowTV0.V || V == ColTV0.V)
        VK = 0;
      else if (V == Acc)
        VK = 2;
      else {
        if (F.isMutated(V) || !V->getInit() || V->isStaticLocal() ||
            V->hasAttr<CUDASharedAttr>())
          return Refuse("'" + V->getName().str() +
                        "' is declared before the guard and changed later");
        bool Dep = false;
        for (const VarDecl *R : varsRead(V->getInit()))
          if (R == RowTV0.V || R == ColTV0.V || PerOutput.count(R) ||
              (!isa<ParmVarDecl>(R) && R->hasLocalStorage() &&
               !Uniform.count(R)))
            Dep = true;
        VK = Dep ? 2 : 1;
      }
      if (Kind >= 0 && Kind != VK)
        return Refuse("'" + sourceText(Ctx, DS->getSourceRange()) +
                      "' declares a thread index together with other values");
      Kind = VK;
      if (VK == 1)
        Uniform.insert(V);
      else if (VK == 2)
        PerOutput.insert(V);
    }
    if (Kind == 1)
      UniformDecls.push_back(DS);
    else if (Kind == 2)
      PerOutputDecls.push_back(DS);
  }

  // The loop: bounds the same for every thread; the accumulator an
  // arithmetic scalar declared before the loop.
  if (!isBlockUniform(K0, F) || !isBlockUniform(End, F))
    return Refuse("the bounds of the '" + KN +
                  "' loop depend on the thread (triangular or per-output "
                  "ranges): the tiles share one k range");
  for (const Expr *B : {K0, End})
    for (const VarDecl *R : varsRead(B))
      if (!isa<ParmVarDecl>(R) && R->hasLocalStorage() && !Uniform.count(R))
        return Refuse("the bounds of the '" + KN +
                      "' loop use a value declared after the guard");
  QualType AccT = Acc->getType();
  if (!AccT->isArithmeticType() || AccT.isVolatileQualified())
    return Refuse("the accumulator is not an arithmetic scalar");
  bool AccInPrologue = false;
  for (const Stmt *S : Prologue)
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == Acc)
          AccInPrologue = true;
  if (!AccInPrologue && !PerOutput.count(Acc))
    return Refuse("the accumulator '" + Acc->getName().str() +
                  "' is not declared before the loop, in the kernel's body "
                  "or the guard's block");

  // The update: besides the operands, only invariants.
  for (const Operand &O : Ops) {
    if (!O.AS->getType()->isArithmeticType())
      return Refuse("an operand is not an arithmetic value");
    const VarDecl *Own = TVs[O.TV].V;
    for (const VarDecl *R : varsRead(O.AS))
      if (R != IV && R != Own && !isa<ParmVarDecl>(R) && !Uniform.count(R) &&
          R->hasLocalStorage())
        return Refuse("the operand '" +
                      sourceText(Ctx, O.AS->getSourceRange()) + "' uses '" +
                      R->getName().str() + "'");
  }
  {
    std::string Bad;
    forEachStmt(Upd, [&](const Stmt *X) {
      if (!Bad.empty())
        return;
      for (const Operand &O : Ops)
        if (isWithin(SM, X->getSourceRange(), O.AS->getSourceRange()))
          return;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(X)) {
        const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        if (V && V != Acc && !Uniform.count(V) &&
            !(isa<ParmVarDecl>(V) && !F.isMutated(V)) && V->hasLocalStorage())
          Bad = "reads '" + V->getName().str() +
                "', which changes with the thread or the iteration";
      }
      if (const auto *CE = dyn_cast<CallExpr>(X)) {
        const FunctionDecl *FD = CE->getDirectCallee();
        if (!FD || !SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
          Bad = "calls a user function";
      }
      if (const auto *U = dyn_cast<UnaryOperator>(X);
          U && U->isIncrementDecrementOp())
        Bad = "changes a variable";
      if (const auto *B2 = dyn_cast<BinaryOperator>(X);
          B2 && B2 != Upd && B2->isAssignmentOp())
        Bad = "assigns";
    });
    if (!Bad.empty())
      return Refuse("the summed expression " + Bad);
    unsigned AccRefs = 0;
    forEachStmt(Upd, [&](const Stmt *X) {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
        if (DRE->getDecl() == Acc)
          ++AccRefs;
    });
    if (AccRefs != (Upd->getOpcode() == BO_Assign ? 2u : 1u))
      return Refuse("the summed expression reads the accumulator");
  }

  // The guard: exits and the final if, without memory reads.
  std::vector<std::string> GuardParts;
  for (const Expr *C : Exits) {
    if (!isPureNoMemory(C))
      return Refuse("the guard reads memory or calls a function");
    GuardParts.push_back("!(" + sourceText(Ctx, C->getSourceRange()) + ")");
  }
  if (GuardIf) {
    if (!isPureNoMemory(GuardIf->getCond()))
      return Refuse("the guard reads memory or calls a function");
    GuardParts.push_back("(" +
                         sourceText(Ctx, GuardIf->getCond()->getSourceRange()) +
                         ")");
  }

  // Prologue: the accumulator's declaration and stores; epilogue: anything
  // that does not leave, synchronise or write elsewhere than at (i, j).
  std::map<const VarDecl *, std::string> OutSyms{{RowTV0.V, "@r"},
                                                 {ColTV0.V, "@c"}};
  std::set<const ParmVarDecl *> Written;
  const ArraySubscriptExpr *FirstStore = nullptr;
  auto AtOwnOutput = [&](const ArraySubscriptExpr *AS,
                         const ParmVarDecl *&P) -> bool {
    AffineExpr Idx;
    P = rowWalkAccess(AS, F, OutSyms, Idx);
    if (!P || !Idx.isKnown())
      return false;
    bool R = false, C = false;
    for (const std::string &Sym : Idx.symbols()) {
      if (Sym == "@r")
        R = true;
      else if (Sym == "@c")
        C = true;
      else if (StringRef(Sym).starts_with("threadIdx.") ||
               StringRef(Sym).starts_with("blockIdx."))
        return false;
    }
    return R && C;
  };
  for (const Stmt *S : Prologue) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      if (!DS->isSingleDecl() || DS->getSingleDecl() != Acc)
        return Refuse("'" + sourceText(Ctx, S->getSourceRange()) +
                      "' before the loop declares something other than the "
                      "accumulator");
      continue;
    }
    const auto *BO = dyn_cast<BinaryOperator>(S);
    const auto *AS =
        BO ? dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens())
           : nullptr;
    if (!BO || !BO->isAssignmentOp() || !AS)
      return Refuse("'" + sourceText(Ctx, S->getSourceRange()) +
                    "' before the loop is neither the accumulator's "
                    "declaration nor a store to the output");
  }
  std::set<const VarDecl *> EpiLocals{Acc};
  for (const Stmt *S : Epilogue) {
    if (containsEscape(S, /*AllowContinue=*/false))
      return Refuse("the code after the loop returns or jumps");
  }
  for (const std::vector<const Stmt *> *Part : {&Prologue, &Epilogue})
    for (const Stmt *S : *Part) {
      std::string Why;
      std::set<const VarDecl *> Locals{Acc};
      // Stores: only at (i, j) of pointer parameters; other effects: none.
      forEachStmt(S, [&](const Stmt *X) {
        if (!Why.empty())
          return;
        const Expr *Lhs = nullptr;
        if (const auto *B2 = dyn_cast<BinaryOperator>(X);
            B2 && B2->isAssignmentOp())
          Lhs = B2->getLHS();
        else if (const auto *U = dyn_cast<UnaryOperator>(X);
                 U && U->isIncrementDecrementOp())
          Lhs = U->getSubExpr();
        else if (const auto *CE = dyn_cast<CallExpr>(X)) {
          std::string What;
          if (callWrites(CE, SM, 3, What))
            Why = "calls '" + sourceText(Ctx, CE->getSourceRange()) +
                  "' (" + What + ")";
          return;
        }
        if (!Lhs)
          return;
        Lhs = Lhs->IgnoreParens();
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Lhs)) {
          const ParmVarDecl *P = nullptr;
          if (!AtOwnOutput(AS, P))
            Why = "stores to '" + sourceText(Ctx, AS->getSourceRange()) +
                  "', not provably the output at (" +
                  RowTV0.V->getName().str() + ", " +
                  ColTV0.V->getName().str() + ") alone";
          else {
            Written.insert(P);
            if (!FirstStore)
              FirstStore = AS;
          }
          return;
        }
        const VarDecl *V = varOf(Lhs);
        if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() ||
            V->getType()->isReferenceType() || Uniform.count(V) ||
            PerOutput.count(V) || V == RowTV0.V || V == ColTV0.V)
          if (V != Acc)
            Why = "writes '" + sourceText(Ctx, Lhs->getSourceRange()) + "'";
      });
      if (!Why.empty())
        return Refuse("the code " +
                      std::string(Part == &Prologue ? "before" : "after") +
                      " the loop " + Why);
    }
  // Reads of the written arrays: at (i, j) too.
  for (const std::vector<const Stmt *> *Part : {&Prologue, &Epilogue})
    for (const Stmt *S : *Part) {
      std::string Why;
      forEachStmt(S, [&](const Stmt *X) {
        const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
        if (!AS || AS->getType()->isArrayType() || !Why.empty())
          return;
        AffineExpr Idx;
        const ParmVarDecl *P = rowWalkAccess(AS, F, OutSyms, Idx);
        if (!P || !Written.count(P))
          return;
        const ParmVarDecl *P2 = nullptr;
        if (!AtOwnOutput(AS, P2))
          Why = "reads '" + sourceText(Ctx, AS->getSourceRange()) +
                "', an element another output may write";
      });
      if (!Why.empty())
        return Refuse("the code around the loop " + Why);
    }
  // Per-output declarations must not be needed by the loop; prologue
  // declarations other than the accumulator were refused above.
  for (const VarDecl *R : varsRead(Upd))
    if (PerOutput.count(R) && R != Acc)
      return Refuse("the summed expression uses '" + R->getName().str() +
                    "'");

  // Aliasing: the outputs never overlap the operands.
  for (const ParmVarDecl *W : Written)
    for (const Operand &O : Ops) {
      if (W == O.P)
        return Refuse("the kernel writes '" + W->getName().str() +
                      "', which the product reads");
      std::string How, Why;
      if (!provenDistinct(Ctx, context(), K, W, O.P, How, Why))
        return Refuse(Why + " (mark them __restrict__ if they never overlap)");
      bool Dup = false;
      for (const FindingNote &N : Fd.Notes)
        if (N.Message == "no aliasing: " + How)
          Dup = true;
      if (!Dup)
        note(Fd, Upd->getBeginLoc(), "no aliasing: " + How);
    }

  // Rows and columns of the tile: the columns are the index the output is
  // contiguous in (coalesced stores).
  const ThreadVar *RowTV = &RowTV0, *ColTV = &ColTV0;
  int RowI = RowI0, ColI = ColI0;
  {
    bool Swap = false;
    AffineExpr Idx;
    if (FirstStore && rowWalkAccess(FirstStore, F, OutSyms, Idx) &&
        Idx.isKnown()) {
      bool RowUnit = Idx.coefficientOf("@r") == AffineExpr::constant(1);
      bool ColUnit = Idx.coefficientOf("@c") == AffineExpr::constant(1);
      Swap = RowUnit && !ColUnit;
    } else {
      Swap = RowTV0.TDim == "x";
    }
    if (Swap) {
      std::swap(RowTV, ColTV);
      std::swap(RowI, ColI);
    }
  }

  const unsigned TY = TS.TM / TS.RM, TX = TS.TN / TS.RN;
  // Unit stride in k: consecutive threads take consecutive k (the tile is
  // stored transposed, padded so that the stores hit distinct banks).
  auto KUnit = [](const Operand &O, const std::string &TVS) {
    AffineExpr CK = O.Idx.coefficientOf("@k");
    AffineExpr CT = O.Idx.coefficientOf(TVS);
    return !(CT == AffineExpr::constant(1) && CK != AffineExpr::constant(1));
  };
  // One staged tile per distinct operand (array and index): rows of the
  // tile's row index (A), columns of its column index (B).
  struct Slot {
    const Operand *O = nullptr;
    std::vector<const ArraySubscriptExpr *> Uses;
    bool Row = false, KU = false;
    unsigned Pad = 0, Width = 0;
    QualType ElT;
    std::string Ts, Text, Tile, Regs, Reg, Mask, Cmt;
  };
  std::vector<Slot> Slots;
  for (int Side : {RowI, ColI})
    for (const Operand &O : Ops) {
      if (O.TV != Side)
        continue;
      QualType ElT = O.AS->getType().getUnqualifiedType();
      Slot *Same = nullptr;
      for (Slot &SL : Slots)
        // The same parameter, index and element type, and the same base as
        // written (`a[...]` and `(a + n * m)[...]` or a local `b = a + off`
        // share the parameter and the index, not the element).
        if (SL.O->P == O.P && SL.O->TV == O.TV && SL.O->Idx == O.Idx &&
            Ctx.hasSameType(SL.ElT, ElT) &&
            sourceText(Ctx, SL.O->AS->getBase()->getSourceRange()) ==
                sourceText(Ctx, O.AS->getBase()->getSourceRange()) &&
            !sourceText(Ctx, O.AS->getBase()->getSourceRange()).empty())
          Same = &SL;
      if (Same) {
        Same->Uses.push_back(O.AS);
        continue;
      }
      Slot SL;
      SL.O = &O;
      SL.Uses = {O.AS};
      SL.Row = Side == RowI;
      SL.KU = KUnit(O, "@tv" + std::to_string(Side));
      SL.Width = SL.Row ? TS.TM : TS.TN;
      // Rows of a tile stored transposed (k-unit loads) get 4 elements of
      // padding: rows stay 16-byte aligned for the vector reads of each
      // thread's contiguous outputs, and the transposed stores spread over
      // banks.
      SL.Pad = SL.KU ? 4 : 0;
      SL.ElT = ElT;
      Slots.push_back(SL);
    }
  // Two buffers of each tile (the next slice is stored while the current
  // one is read).
  // In a kernel template the tiles are written once for every
  // instantiation: sized for 8-byte elements, whatever this one uses.
  auto ElSize = [&](QualType T) -> uint64_t {
    uint64_t Sz = Ctx.getTypeSizeInChars(T).getQuantity();
    return Kernel.Pattern ? std::max<uint64_t>(Sz, 8) : Sz;
  };
  auto SmemFor = [&](unsigned TK) -> uint64_t {
    uint64_t B = 4 * (TS.TM + TS.TN);
    for (const Slot &SL : Slots)
      B += 2 * TK * (SL.Width + SL.Pad) * ElSize(SL.ElT);
    return B;
  };
  // 8-byte elements: shallower slices so that both buffers fit.
  while (SmemFor(TS.TK) > 48 * 1024 && TS.TK > 8 &&
         (TS.TK / 2 * TS.TM) % NT == 0 && (TS.TK / 2 * TS.TN) % NT == 0)
    TS.TK /= 2;
  uint64_t Smem = SmemFor(TS.TK);
  if ((TS.TK * TS.TM) % NT || (TS.TK * TS.TN) % NT)
    return Refuse("the tile shape does not give every thread the same "
                  "number of elements to load");
  if (Smem > 48 * 1024)
    return Refuse("the tiles would not fit in 48 KiB of shared memory");
  if (TS.TK * TS.TM / NT > 64 || TS.TK * TS.TN / NT > 64)
    return Refuse("the tile shape gives a thread more than 64 elements of a "
                  "slice to load (one bit each in a 64-bit mask)");
  if (inMacro(Body->getSourceRange()) || inMacro(Upd->getSourceRange()))
    return Refuse("the kernel body comes from a macro expansion");

  // --- the rewrite ------------------------------------------------------------
  auto Name = [&](const std::string &B) { return uniqueName(K, "cudal1_" + B); };
  std::string NRowUsed = Name("rowUsed"),
              NColUsed = Name("colUsed"), NT_ = Name("t"), NTy = Name("ty"),
              NTx = Name("tx"), NRows = Name("rows"), NCols = Name("cols"),
              NTileCols = Name("tileCols"), NTiles = Name("tiles"),
              NTile = Name("tile"), NR0 = Name("r0"), NC0 = Name("c0"),
              NAcc = Name("acc"), NAny = Name("any"), NR = Name("r"),
              NC = Name("c"), NGI = Name("gi"), NGJ = Name("gj"),
              NE = Name("e"), NK0 = Name("k0"), NKK = Name("kk"),
              NM = Name("m"), NV = Name("v"), NBuf = Name("buf"),
              NMore = Name("more"), NU = Name("u"), NFull = Name("full");
  std::string S_NT = std::to_string(NT), S_TM = std::to_string(TS.TM),
              S_TN = std::to_string(TS.TN), S_TK = std::to_string(TS.TK),
              S_RM = std::to_string(TS.RM), S_RN = std::to_string(TS.RN),
              S_TY = std::to_string(TY), S_TX = std::to_string(TX);
  // Per tile: As/ra/a/maskA for the first of the rows, Bs/rb/b/maskB for
  // the first of the columns, numbered from 2 for the others (one mask per
  // side and load layout).
  {
    unsigned NRow = 0, NCol = 0;
    std::map<std::pair<bool, bool>, std::string> Masks;
    for (Slot &SL : Slots) {
      unsigned N = SL.Row ? ++NRow : ++NCol;
      std::string Suf = N == 1 ? "" : std::to_string(N);
      SL.Tile = Name(std::string(SL.Row ? "As" : "Bs") + Suf);
      SL.Regs = Name(std::string(SL.Row ? "ra" : "rb") + Suf);
      SL.Reg = Name(std::string(SL.Row ? "a" : "b") + Suf);
      std::string &M = Masks[{SL.Row, SL.KU}];
      if (M.empty()) {
        unsigned NM2 = 0;
        for (const auto &[Key, V] : Masks)
          if (Key.first == SL.Row && !V.empty())
            ++NM2;
        M = Name(std::string(SL.Row ? "maskA" : "maskB") +
                 (NM2 == 0 ? "" : std::to_string(NM2 + 1)));
      }
      SL.Mask = M;
      SL.Ts = spelledType(Ctx, SL.ElT, SL.O->AS);
      SL.Text = sourceText(Ctx, SL.O->AS->getSourceRange());
    }
  }
  std::string AccTs = spelledType(Ctx, Acc);
  std::string IVTs = spelledType(Ctx, IV);
  std::string RowTs = spelledType(Ctx, RowTV->V);
  std::string ColTs = spelledType(Ctx, ColTV->V);
  std::string RowN = RowTV->V->getName().str(), ColN = ColTV->V->getName().str();
  std::string AccN = Acc->getName().str();
  std::string K0T = sourceText(Ctx, K0->getSourceRange());
  std::string EndT = sourceText(Ctx, End->getSourceRange());
  std::string Guard;
  for (const std::string &G : GuardParts)
    Guard += (Guard.empty() ? "" : " && ") + G;
  if (Guard.empty())
    Guard = "true";
  // A separable guard: every term reads the row index or the column index,
  // never both, and nothing else per output. The rows (columns) some output
  // of a tile needs are then those passing the row (column) terms, so the
  // loads test the terms themselves instead of shared masks filled by the
  // prologue. (A tile whose outputs all fail the guard is skipped before any
  // load, so terms reading neither index can be left out.)
  std::vector<std::string> RowTerms, ColTerms;
  bool Separable = optionBool("SeparableGuard", true);
  {
    std::vector<std::pair<const Expr *, bool>> All; // term, negated
    for (const Expr *C : Exits) {
      std::vector<const Expr *> ET;
      splitAt(C, BO_LOr, ET);
      for (const Expr *X : ET)
        All.push_back({X, true});
    }
    if (GuardIf) {
      std::vector<const Expr *> GT;
      splitAt(GuardIf->getCond(), BO_LAnd, GT);
      for (const Expr *X : GT)
        All.push_back({X, false});
    }
    for (const auto &[X, Neg] : All) {
      bool R = false, C = false;
      for (const VarDecl *V : varsRead(X)) {
        if (V == RowTV->V)
          R = true;
        else if (V == ColTV->V)
          C = true;
        else if (!isa<ParmVarDecl>(V) && V->hasLocalStorage() &&
                 !Uniform.count(V))
          Separable = false;
      }
      // No side effects, no division by a value that an earlier term of
      // the original might have checked.
      forEachStmt(X, [&](const Stmt *S) {
        if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
          if (BO->isAssignmentOp() ||
              ((BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Rem) &&
               !BO->getRHS()->isIntegerConstantExpr(Ctx)))
            Separable = false;
        } else if (const auto *UO = dyn_cast<UnaryOperator>(S);
                   UO && UO->isIncrementDecrementOp())
          Separable = false;
      });
      std::string Txt = sourceText(Ctx, X->getSourceRange());
      if (Txt.empty() || (R && C))
        Separable = false;
      if (!Separable)
        break;
      std::string Term = Neg ? "!(" + Txt + ")" : "(" + Txt + ")";
      if (R)
        RowTerms.push_back(Term);
      else if (C)
        ColTerms.push_back(Term);
    }
  }
  std::string UpdT =
      rewrittenText(Ctx, Upd,
                    [&] {
                      std::vector<std::pair<const Stmt *, std::string>> R;
                      for (const Slot &SL : Slots)
                        for (const ArraySubscriptExpr *U : SL.Uses)
                          R.push_back({U, SL.Reg + "[" +
                                              (SL.Row ? NR : NC) + "]"});
                      forEachStmt(Upd, [&](const Stmt *X) {
                        if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
                          if (DRE->getDecl() == Acc)
                            R.push_back({DRE, NAcc + "[" + NR + "][" + NC +
                                                  "]"});
                      });
                      return R;
                    }());
  bool NoText = false;
  for (const Slot &SL : Slots)
    NoText |= SL.Text.empty();
  if (K0T.empty() || EndT.empty() || NoText || UpdT.empty())
    return Refuse("the loop comes from a macro expansion");
  // A statement's text, its continuation lines without the statement's own
  // indentation (re-indented where it is emitted).
  auto TextOf = [&](const Stmt *S) {
    SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
    SourceLocation E = afterStmt(Ctx, S);
    bool Inv = false;
    std::string Txt =
        Lexer::getSourceText(CharSourceRange::getCharRange(B, E), SM,
                             Ctx.getLangOpts(), &Inv)
            .str();
    if (Inv)
      return std::string();
    std::string Ind = indentOf(Ctx, S->getBeginLoc()), Out;
    std::istringstream In(Txt);
    std::string L;
    bool First = true;
    while (std::getline(In, L)) {
      if (!First && StringRef(L).starts_with(Ind))
        L = L.substr(Ind.size());
      Out += (First ? "" : "\n") + L;
      First = false;
    }
    return Out;
  };
  std::string UniformText, PerOutputText, PerOutputNoAcc, PrologueText,
      EpilogueText;
  for (const DeclStmt *DS : UniformDecls)
    UniformText += TextOf(DS) + "\n";
  for (const DeclStmt *DS : PerOutputDecls) {
    std::string T = TextOf(DS) + "\n";
    PerOutputText += T;
    if (!(DS->isSingleDecl() && DS->getSingleDecl() == Acc))
      PerOutputNoAcc += T;
  }
  for (const DeclStmt *DS : PerOutputDecls)
    if (!DS->isSingleDecl())
      for (const Decl *D : DS->decls())
        if (D == Acc)
          return Refuse("the accumulator is declared together with other "
                        "values");
  for (const Stmt *S : Prologue)
    PrologueText += TextOf(S) + "\n";
  for (const Stmt *S : Epilogue)
    EpilogueText += TextOf(S) + "\n";
  auto Trim = [](std::string S) {
    while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
      S.pop_back();
    return S;
  };
  auto Lines = [&](const std::string &Txt, const std::string &Ind) {
    std::string Out;
    std::istringstream In(Txt);
    std::string L;
    while (std::getline(In, L))
      Out += (L.find_first_not_of(" \t") == std::string::npos ? "" : Ind + L) +
             "\n";
    return Out;
  };
  std::string I0 = indentOf(Ctx, Body->body_front()->getBeginLoc());
  std::string I1 = I0 + "  ", I2 = I1 + "  ", I3 = I2 + "  ",
              I4 = I3 + "  ", I5 = I4 + "  ", I6 = I5 + "  ";
  std::string Shape = S_TM + "x" + S_TN;
  std::string Cov = [&](const ThreadVar *TV) {
    return "(long long)gridDim." + TV->Dim + " * " +
           (TV->ConstStride ? std::to_string(*TV->ConstStride)
                            : "blockDim." + TV->TDim);
  }(RowTV);
  std::string CovC = "(long long)gridDim." + ColTV->Dim + " * " +
                     (ColTV->ConstStride ? std::to_string(*ColTV->ConstStride)
                                         : "blockDim." + ColTV->TDim);
  std::string D3 = "xyz";
  D3.erase(D3.find(RowTV->Dim), 1);
  D3.erase(D3.find(ColTV->Dim), 1);

  std::string T;
  // Fallback: the original body for other block shapes.
  std::string FallCond = "blockDim.x * blockDim.y * blockDim.z != " + S_NT +
                         "u || blockDim." + D3 + " != 1u || gridDim." + D3 +
                         " != 1u";
  for (const ThreadVar *TV : {RowTV, ColTV})
    if (TV->ConstStride)
      FallCond += " || blockDim." + TV->TDim +
                  " != " + std::to_string(*TV->ConstStride) + "u";
  SourceLocation LB = SM.getExpansionLoc(Body->getLBracLoc()).getLocWithOffset(1);
  SourceLocation RB = SM.getExpansionLoc(Body->getRBracLoc());
  bool Inv = false;
  std::string Orig = Lexer::getSourceText(CharSourceRange::getCharRange(LB, RB),
                                          SM, Ctx.getLangOpts(), &Inv)
                         .str();
  if (Inv)
    return Refuse("the kernel body cannot be read");
  // The original body, one level deeper.
  std::string OrigT = Trim(Orig);
  while (!OrigT.empty() && OrigT.front() == '\n')
    OrigT.erase(0, 1);
  T += "\n" + I0 + "// cuda-l1 " + RuleId + ": " + Shape +
       " output tiles through shared memory, " + S_TK + " deep, " + S_RM +
       "x" + S_RN + " outputs per thread, for blocks of " + S_NT +
       " threads;\n" + I0 +
       "// other block shapes run the original code. Same products, same "
       "order: bitwise.\n";
  T += I0 + "if (" + FallCond + ") {\n";
  {
    std::istringstream In(OrigT);
    std::string L;
    while (std::getline(In, L))
      T += (L.find_first_not_of(" \t") == std::string::npos ? "" : "  " + L) +
           "\n";
  }
  T += I1 + "return;\n" + I0 + "}\n";
  T += Lines(UniformText, I0);
  for (const Slot &SL : Slots)
    T += I0 + "__shared__ __align__(16) " + SL.Ts + " " + SL.Tile + "[2][" +
         S_TK + "][" + std::to_string(SL.Width) + " + " +
         std::to_string(SL.Pad) + "];\n";
  if (!Separable)
    T += I0 + "__shared__ int " + NRowUsed + "[" + S_TM + "], " + NColUsed +
         "[" + S_TN + "];\n";
  T += I0 + "const int " + NT_ +
       " = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
       "threadIdx.z));\n";
  T += I0 + "const int " + NTy + " = " + NT_ + " / " + S_TX + ", " + NTx +
       " = " + NT_ + " % " + S_TX + ";\n";
  // The outputs the original grid covers, clamped by `i < M` in the guard.
  auto Clamp = [&](const std::string &Var, const ThreadVar *TV,
                   const std::string &CovT) {
    std::string Out = I0 + "long long " + Var + " = " + CovT + ";\n";
    std::vector<const Expr *> Terms;
    if (GuardIf)
      splitAt(GuardIf->getCond(), BO_LAnd, Terms);
    std::vector<const Expr *> ExitTerms;
    for (const Expr *C : Exits)
      splitAt(C, BO_LOr, ExitTerms);
    for (int Neg = 0; Neg < 2; ++Neg)
      for (const Expr *X : Neg ? ExitTerms : Terms)
        if (const Expr *UB = upperBoundOf(X, TV->V, Neg);
            UB && isBlockUniform(UB, F) &&
            UB->getType()->isIntegerType()) {
          bool Local = false;
          for (const VarDecl *R : varsRead(UB))
            if (!isa<ParmVarDecl>(R) && R->hasLocalStorage() &&
                !Uniform.count(R))
              Local = true;
          std::string UT = sourceText(Ctx, UB->getSourceRange());
          if (Local || UT.empty())
            continue;
          Out += I0 + "if ((long long)(" + UT + ") < " + Var + ")\n" + I1 +
                 Var + " = (long long)(" + UT + ");\n";
        }
    Out += I0 + "if (" + Var + " < 0)\n" + I1 + Var + " = 0;\n";
    return Out;
  };
  T += Clamp(NRows, RowTV, Cov);
  T += Clamp(NCols, ColTV, CovC);
  T += I0 + "const long long " + NTileCols + " = (" + NCols + " + " + S_TN +
       " - 1) / " + S_TN + ";\n";
  T += I0 + "const long long " + NTiles + " = (" + NRows + " + " + S_TM +
       " - 1) / " + S_TM + " * " + NTileCols + ";\n";
  std::string Da = RowTV->Dim < ColTV->Dim ? RowTV->Dim : ColTV->Dim;
  std::string Db = RowTV->Dim < ColTV->Dim ? ColTV->Dim : RowTV->Dim;
  T += I0 + "for (long long " + NTile + " = blockIdx." + Da +
       " + (long long)gridDim." + Da + " * blockIdx." + Db + "; " + NTile +
       " < " + NTiles + "; " + NTile + " += (long long)gridDim." + Da +
       " * gridDim." + Db + ") {\n";
  T += I1 + "const long long " + NR0 + " = " + NTile + " / " + NTileCols +
       " * " + S_TM + ", " + NC0 + " = " + NTile + " % " + NTileCols + " * " +
       S_TN + ";\n";
  T += I1 + AccTs + " " + NAcc + "[" + S_RM + "][" + S_RN + "];\n";
  if (!Separable) {
    T += I1 + "for (int " + NE + " = " + NT_ + "; " + NE + " < " + S_TM +
         "; " + NE + " += " + S_NT + ")\n" + I2 + NRowUsed + "[" + NE +
         "] = 0;\n";
    T += I1 + "for (int " + NE + " = " + NT_ + "; " + NE + " < " + S_TN +
         "; " + NE + " += " + S_NT + ")\n" + I2 + NColUsed + "[" + NE +
         "] = 0;\n";
    T += I1 + "__syncthreads();\n";
  }
  // Per owned output: i and j bound, the guard, the code before the loop.
  auto ForOwned = [&](const std::string &Inner, const std::string &What) {
    std::string O;
    O += I1 + "// " + What + "\n";
    O += I1 + "#pragma unroll\n";
    O += I1 + "for (int " + NR + " = 0; " + NR + " < " + S_RM + "; ++" + NR +
         ") {\n";
    O += I2 + "#pragma unroll\n";
    O += I2 + "for (int " + NC + " = 0; " + NC + " < " + S_RN + "; ++" + NC +
         ") {\n";
    O += Inner;
    O += I2 + "}\n" + I1 + "}\n";
    return O;
  };
  std::string Bind =
      I3 + "const long long " + NGI + " = " + NR0 + " + " + NTy + " * " +
      S_RM + " + " + NR + ", " + NGJ + " = " + NC0 + " + " + NTx + " * " +
      S_RN + " + " + NC + ";\n" + I3 + "if (" + NGI + " < " + NRows + " && " +
      NGJ + " < " + NCols + ") {\n" + I4 + "const " + RowTs + " " + RowN +
      " = (" + RowTs + ")" + NGI + ";\n" + I4 + "const " + ColTs + " " + ColN +
      " = (" + ColTs + ")" + NGJ + ";\n";
  std::string Pro = I3 + NAcc + "[" + NR + "][" + NC + "] = 0;\n" + Bind;
  Pro += Lines(PerOutputText, I4);
  Pro += I4 + "if (" + Guard + ") {\n";
  Pro += Lines(PrologueText, I5);
  Pro += I5 + NAcc + "[" + NR + "][" + NC + "] = " + AccN + ";\n";
  if (!Separable) {
    Pro += I5 + NRowUsed + "[" + NTy + " * " + S_RM + " + " + NR +
           "] = 1;\n";
    Pro += I5 + NColUsed + "[" + NTx + " * " + S_RN + " + " + NC +
           "] = 1;\n";
  }
  Pro += I5 + NAny + " = 1;\n" + I4 + "}\n" + I3 + "}\n";
  T += I1 + "int " + NAny + " = 0;\n";
  T += ForOwned(Pro, "the code before the loop, per output inside the guard");
  T += I1 + "if (!__syncthreads_or(" + NAny + "))\n" + I2 +
       "continue; // no output of this tile passes the guard\n";
  // The k loop over TK-deep slices: each thread loads its share of the
  // next slice into registers while the current one is multiplied, then
  // stores it into the other shared buffer (one barrier per slice).
  // Element e of a thread's share of a slice: its k offset and its row
  // (column) in the tile; k-unit tiles put consecutive threads along k.
  auto SliceIndex = [&](unsigned Width, bool KU, const std::string &E,
                        bool ForK) {
    std::string W = KU ? S_TK : std::to_string(Width);
    bool Mod = KU == ForK; // k along the fast axis of a k-unit tile
    return E + (Mod ? " % " : " / ") + W;
  };
  // Which of a thread's loads of a slice read a row (column) that some
  // output of the tile needs: inside the covered range and passing the
  // guard's terms (separable guard), or marked in the shared mask \p Used.
  // The answer does not change along k, so it is computed once per tile
  // into the bits of \p Mask (the loads of every slice test one bit: on the
  // H200 the per-load guards cost 1.2x at 4096^3).
  auto LoadCount = [&](unsigned Width) { return TS.TK * Width / NT; };
  auto MaskType = [&](unsigned Width) {
    return LoadCount(Width) > 32 ? std::string("unsigned long long")
                                 : std::string("unsigned");
  };
  auto MaskOne = [&](unsigned Width) {
    return LoadCount(Width) > 32 ? std::string("1ull") : std::string("1u");
  };
  auto RowInUse = [&](const std::string &Used, const std::string &Lim,
                      const std::string &Base) {
    return Separable ? Base + " + " + NM + " < " + Lim : Used + "[" + NM + "]";
  };
  // The loop over a thread's loads of a slice: its head, down to the
  // element index e = t + NT * u.
  auto LoadLoop = [&](const std::string &Ind, unsigned Width) {
    return Ind + "#pragma unroll\n" + Ind + "for (int " + NU + " = 0; " + NU +
           " < " + std::to_string(LoadCount(Width)) + "; ++" + NU + ") {\n" +
           Ind + "  const int " + NE + " = " + NT_ + " + " + S_NT + " * " + NU +
           ";\n";
  };
  auto ComputeMask = [&](const std::string &Ind, const std::string &Mask,
                         unsigned Width, bool KU, const std::string &Used,
                         const std::vector<std::string> &Terms,
                         const std::string &Lim, const std::string &Base,
                         const std::string &VT, const std::string &VN) {
    std::string J1 = Ind + "  ", J2 = J1 + "  ", J3 = J2 + "  ";
    std::string O;
    O += Ind + MaskType(Width) + " " + Mask + " = 0;\n";
    O += LoadLoop(Ind, Width);
    O += J1 + "const int " + NM + " = " + SliceIndex(Width, KU, NE, false) +
         ";\n";
    std::string Cond;
    for (const std::string &X : Terms)
      Cond += (Cond.empty() ? "" : " && ") + X;
    std::string Set = Mask + " |= " + MaskOne(Width) + " << " + NU + ";\n";
    if (Cond.empty()) {
      O += J1 + "if (" + RowInUse(Used, Lim, Base) + ")\n" + J2 + Set;
    } else {
      O += J1 + "if (" + RowInUse(Used, Lim, Base) + ") {\n";
      O += J2 + "const " + VT + " " + VN + " = (" + VT + ")(" + Base + " + " +
           NM + ");\n";
      O += J2 + "if (" + Cond + ")\n" + J3 + Set;
      O += J1 + "}\n";
    }
    O += Ind + "}\n";
    return O;
  };
  // Fetch: global -> registers for the slice starting at \p K0E: the loads
  // whose bit is set in \p Mask, and only those whose k passes the loop's
  // test (all of them when the slice's last k passes it: the test is
  // monotone in k, as for the full slices below).
  auto Fetch = [&](const std::string &Ind, const std::string &Regs,
                   unsigned Width, bool KU, const std::string &Mask,
                   const std::string &Base, const std::string &VT,
                   const std::string &VN, const std::string &Text,
                   const std::string &K0E, const std::string &Comment) {
    std::string J1 = Ind + "  ", J2 = J1 + "  ", J3 = J2 + "  ";
    std::string O;
    O += Ind + "// " + Comment + "\n";
    O += LoadLoop(Ind, Width);
    O += J1 + "const int " + NKK + " = " + SliceIndex(Width, KU, NE, true) +
         ", " + NM + " = " + SliceIndex(Width, KU, NE, false) + ";\n";
    O += J1 + Regs + "[" + NU + "] = 0;\n";
    O += J1 + "if ((" + Mask + " >> " + NU + ") & " + MaskOne(Width) +
         ") {\n";
    O += J2 + "const " + VT + " " + VN + " = (" + VT + ")(" + Base + " + " +
         NM + ");\n";
    O += J2 + "const " + IVTs + " " + KN + " = " + K0E + " + " + NKK + ";\n";
    O += J2 + "if (" + NFull + " || " + KN + " < " + EndT + ")\n" + J3 +
         Regs + "[" + NU + "] = " + Text + ";\n";
    O += J1 + "}\n";
    O += Ind + "}\n";
    return O;
  };
  auto FullTest = [&](const std::string &K0E) {
    return "(" + IVTs + ")(" + K0E + " + " + std::to_string(TS.TK - 1) +
           ") < " + EndT;
  };
  // Put: registers -> shared buffer \p Buf.
  auto Put = [&](const std::string &Ind, const std::string &Tile,
                 const std::string &Regs, unsigned Width, bool KU,
                 const std::string &Buf) {
    std::string J1 = Ind + "  ";
    std::string O = LoadLoop(Ind, Width);
    O += J1 + Tile + "[" + Buf + "][" + SliceIndex(Width, KU, NE, true) +
         "][" + SliceIndex(Width, KU, NE, false) + "] = " + Regs + "[" + NU +
         "];\n";
    O += Ind + "}\n";
    return O;
  };
  // The operands in their tile roles (after the row/column choice).
  for (Slot &SL : Slots)
    SL.Cmt = "'" + SL.Text + "': consecutive threads along " +
             (SL.KU ? KN : SL.Row ? RowN : ColN) + ", only " +
             (SL.Row ? "rows" : "columns") + " some output needs";
  for (const Slot &SL : Slots)
    T += I1 + SL.Ts + " " + SL.Regs + "[" +
         std::to_string(TS.TK * SL.Width / NT) + "];\n";
  T += I1 + "// the rows of A and the columns of B some output of the tile "
            "needs, per load of this thread\n";
  {
    std::set<std::string> Done;
    for (const Slot &SL : Slots)
      if (Done.insert(SL.Mask).second)
        T += SL.Row ? ComputeMask(I1, SL.Mask, TS.TM, SL.KU, NRowUsed,
                                  RowTerms, NRows, NR0, RowTs, RowN)
                    : ComputeMask(I1, SL.Mask, TS.TN, SL.KU, NColUsed,
                                  ColTerms, NCols, NC0, ColTs, ColN);
  }
  auto FetchAll = [&](const std::string &Ind, const std::string &K0E) {
    std::string O;
    for (const Slot &SL : Slots)
      O += SL.Row ? Fetch(Ind, SL.Regs, TS.TM, SL.KU, SL.Mask, NR0, RowTs,
                          RowN, SL.Text, K0E, SL.Cmt)
                  : Fetch(Ind, SL.Regs, TS.TN, SL.KU, SL.Mask, NC0, ColTs,
                          ColN, SL.Text, K0E, SL.Cmt);
    return O;
  };
  auto PutAll = [&](const std::string &Ind, const std::string &Buf) {
    std::string O;
    for (const Slot &SL : Slots)
      O += Put(Ind, SL.Tile, SL.Regs, SL.Width, SL.KU, Buf);
    return O;
  };
  T += I1 + "{ // the first slice\n";
  T += I2 + "const " + IVTs + " " + NK0 + " = " + K0T + ";\n";
  T += I2 + "const bool " + NFull + " = " + FullTest(NK0) + ";\n";
  T += FetchAll(I2, NK0);
  T += I1 + "}\n";
  T += PutAll(I1, "0");
  T += I1 + "__syncthreads();\n";
  T += I1 + "int " + NBuf + " = 0;\n";
  T += I1 + "for (" + IVTs + " " + NK0 + " = " + K0T + "; " + NK0 + " < " +
       EndT + "; " + NK0 + " += " + S_TK + ") {\n";
  T += I2 + "const bool " + NMore + " = (" + IVTs + ")(" + NK0 + " + " +
       S_TK + ") < " + EndT + ";\n";
  T += I2 + "if (" + NMore + ") { // the next slice, into registers\n";
  std::string NextK0 = "(" + NK0 + " + " + S_TK + ")";
  T += I3 + "const bool " + NFull + " = " + FullTest(NextK0) + ";\n";
  T += FetchAll(I3, NextK0);
  T += I2 + "}\n";
  auto Inner = [&](const std::string &Ind) {
    std::string J1 = Ind + "  ", J2 = J1 + "  ", J3 = J2 + "  ";
    std::string O;
    for (const Slot &SL : Slots)
      O += J1 + SL.Ts + " " + SL.Reg + "[" + (SL.Row ? S_RM : S_RN) + "];\n";
    for (const Slot &SL : Slots) {
      const std::string &X = SL.Row ? NR : NC;
      O += J1 + "#pragma unroll\n";
      O += J1 + "for (int " + X + " = 0; " + X + " < " +
           (SL.Row ? S_RM : S_RN) + "; ++" + X + ")\n" + J2 + SL.Reg + "[" +
           X + "] = " + SL.Tile + "[" + NBuf + "][" + NKK + "][" +
           (SL.Row ? NTy + " * " + S_RM : NTx + " * " + S_RN) + " + " + X +
           "];\n";
    }
    O += J1 + "#pragma unroll\n";
    O += J1 + "for (int " + NR + " = 0; " + NR + " < " + S_RM + "; ++" + NR +
         ") {\n";
    O += J2 + "#pragma unroll\n";
    O += J2 + "for (int " + NC + " = 0; " + NC + " < " + S_RN + "; ++" + NC +
         ")\n";
    O += J3 + UpdT + ";\n";
    O += J1 + "}\n";
    return O;
  };
  // A full slice when its last k passes the loop's test (the test is
  // monotone in k); the last, partial one stops where the original loop
  // does: no padded products.
  T += I2 + "if (" + FullTest(NK0) + ") {\n";
  T += I3 + "#pragma unroll\n";
  T += I3 + "for (int " + NKK + " = 0; " + NKK + " < " + S_TK + "; ++" + NKK +
       ") {\n" + Inner(I3) + I3 + "}\n";
  T += I2 + "} else {\n";
  T += I3 + "for (int " + NKK + " = 0; " + NKK + " < " + S_TK + " && (" +
       IVTs + ")(" + NK0 + " + " + NKK + ") < " + EndT + "; ++" + NKK +
       ") {\n" + Inner(I3) + I3 + "}\n";
  T += I2 + "}\n";
  T += I2 + "if (" + NMore + ") {\n";
  T += PutAll(I3, "1 - " + NBuf);
  T += I2 + "}\n";
  T += I2 + "__syncthreads();\n";
  T += I2 + NBuf + " = 1 - " + NBuf + ";\n";
  T += I1 + "}\n";
  // Per owned output: the code after the loop.
  std::string Epi = Bind;
  Epi += Lines(PerOutputNoAcc, I4);
  Epi += I4 + "if (" + Guard + ") {\n";
  Epi += I5 + AccTs + " " + AccN + " = " + NAcc + "[" + NR + "][" + NC +
         "];\n";
  Epi += Lines(EpilogueText, I5);
  Epi += I4 + "}\n" + I3 + "}\n";
  T += ForOwned(Epi, "the code after the loop, per output inside the guard");
  T += I0 + "}\n";
  (void)I6;

  FixIt Fix;
  Fix.Exact = Exactness::Bitwise;
  Fix.NeedsMeasurement = optionBool("MeasureFirst", true);
  Fix.Description = "tile the product: " + Shape + " outputs per block of " +
                    S_NT + " threads through shared memory (" + S_TK +
                    " deep), " + S_RM + "x" + S_RN +
                    " per thread, original code for other block shapes";
  Fix.Edits.push_back(
      makeTextEdit(Ctx, CharSourceRange::getCharRange(LB, RB), T));
  // __launch_bounds__ (when the kernel has none): the fast path uses more
  // registers than the original, so the bound keeps every launch possible:
  // NT when every launch is visible and uses NT threads, else 1024 (any
  // block size).
  bool HasBounds = false;
  for (const FunctionDecl *R : K->redecls())
    if (R->hasAttr<CUDALaunchBoundsAttr>())
      HasBounds = true;
  std::string VisWhy;
  if (!HasBounds) {
    unsigned Bound = FromLaunch && allLaunchesVisible(Ctx, context(), K, VisWhy)
                         ? NT
                         : 1024;
    SourceLocation NameLoc = K->getLocation();
    std::string EW;
    auto ER = editableRange(
        Ctx, CharSourceRange::getTokenRange(NameLoc, NameLoc), EW);
    if (!ER)
      return Refuse("the kernel's name comes from a macro expansion (" + EW +
                    "): no place for __launch_bounds__");
    // With every launch known, also ask for enough resident blocks that a
    // 4x4 register block stays within 128 registers per thread (two blocks
    // of 256 threads per SM on Hopper: 1.3x faster on the H200 than one
    // block of 142-register threads), as far as shared memory allows.
    std::string MinBlocks;
    if (Bound == NT && TS.RM * TS.RN <= 16) {
      uint64_t MinB = std::max<uint64_t>(1, 65536 / (uint64_t(NT) * 128));
      MinB = std::min<uint64_t>(MinB, std::max<uint64_t>(1, 227 * 1024 / Smem));
      if (MinB > 1)
        MinBlocks = ", " + std::to_string(MinB);
    }
    Fix.Edits.push_back(makeInsertion(
        Ctx, ER->getBegin(),
        "__launch_bounds__(" + std::to_string(Bound) + MinBlocks + ") "));
  }
  Fd.Fix = std::move(Fix);
  report(std::move(Fd));
}

} // namespace cudal1
