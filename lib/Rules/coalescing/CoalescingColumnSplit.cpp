//===- CoalescingColumnSplit.cpp - coalescing-column-split ----------------===//
//
// Column-walking reductions with one thread per column:
//
//   j = blockIdx.x * blockDim.x + threadIdx.x;   (the only thread index)
//   [if (c) return; ...]
//   if (guard) {                                 (or no guard)
//     prologue: declarations (T s = 0; T s = y[j]; T mu = mean[j]; ...)
//     for (T i = I0; i < END; ++i)               (<= too)
//       s += E(i, j); [ss += F(i, j); local declarations]
//     epilogue (anything without barriers or warp operations)
//   }
//
// with a load in E at `i * LD + j` (or A[i][j]): the lanes of a warp read
// consecutive addresses (coalesced), but the kernel has as many threads as
// columns, each walking every row serially: a few thousand threads on a GPU
// that needs 100k+ loads in flight. The rewrite edits the launch sites (the
// grid gets blockDim.x / CW times more blocks) and the kernel:
//   - block b covers the CW columns b*CW .. b*CW+CW-1 (the original grid
//     covers the same columns: gridDim.x * CW new = gridDim.x * blockDim.x
//     old), thread t of the block takes column t % CW and the row segment
//     t / CW: rows I0 + seg, I0 + seg + S, ... (S = threads / CW);
//   - each thread sums its rows with the original update text (segment 0
//     starts from the accumulator's initial value, the others from 0),
//     stores its partial sums in shared memory; after a barrier reached by
//     every thread (the guard moves inside), segment 0 adds the partial sums
//     of its column in segment order (a fixed order: deterministic) and runs
//     the original epilogue once per column;
//   - a row loop that ends the epilogue and only updates elements of the
//     column (a map over the rows: Gram-Schmidt's projection) becomes a
//     third phase after a second barrier, split over the segments like the
//     sums (splittableMapLoop).
// Reassociating for floating-point sums (tolerance), bitwise for integers.
//
//===----------------------------------------------------------------------===//
#include "CoalescingColumnSplit.h"
#include "CoalescingWarpPerRowPasses.h"
#include "RowWalk.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/BuiltinUse.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const char *RuleId = "coalescing-column-split";

/// `v = blockIdx.x * blockDim.x + threadIdx.x` (or `blockIdx.x * C +
/// threadIdx.x`, which needs blockDim.x == C).
struct ColumnVar {
  const VarDecl *V = nullptr;
  std::optional<int64_t> ConstStride;
};

std::optional<ColumnVar> columnVar(const VarDecl *V, const FunctionFacts &F) {
  if (!V->getInit() || F.isMutated(V) || !V->getType()->isIntegerType() ||
      V->getType().isVolatileQualified())
    return std::nullopt;
  AffineExpr A = toAffine(V->getInit(), F);
  if (!A.isKnown())
    return std::nullopt;
  AffineExpr Blk = AffineExpr::symbol("blockIdx.x");
  AffineExpr Th = AffineExpr::symbol("threadIdx.x");
  if (A == Blk * AffineExpr::symbol("blockDim.x") + Th)
    return ColumnVar{V, std::nullopt};
  AffineExpr Rest = A - Th;
  AffineExpr C = Rest.coefficientOf("blockIdx.x");
  if (auto CV = C.constantValue(); CV && *CV > 0 && Rest == Blk * C)
    return ColumnVar{V, *CV};
  return std::nullopt;
}

/// One accumulation `acc += E`, `acc -= E`, `acc = acc + E`, `acc = E +
/// acc` or `acc = acc - E` on a local variable.
struct Update {
  const BinaryOperator *BO = nullptr;
  const VarDecl *Acc = nullptr;
  const Expr *E = nullptr;
};

std::optional<Update> accUpdate(const Stmt *S) {
  const auto *BO = dyn_cast<BinaryOperator>(S);
  if (!BO || !BO->isAssignmentOp())
    return std::nullopt;
  const VarDecl *A = varOf(BO->getLHS());
  if (!A || !A->hasLocalStorage() || isa<ParmVarDecl>(A))
    return std::nullopt;
  if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign)
    return Update{BO, A, BO->getRHS()};
  if (BO->getOpcode() != BO_Assign)
    return std::nullopt;
  const auto *R = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParens());
  if (!R || (R->getOpcode() != BO_Add && R->getOpcode() != BO_Sub))
    return std::nullopt;
  if (varOf(R->getLHS()) == A)
    return Update{BO, A, R->getRHS()};
  if (R->getOpcode() == BO_Add && varOf(R->getRHS()) == A)
    return Update{BO, A, R->getLHS()};
  return std::nullopt;
}

/// A load in \p E at `i * LD + j` (LD uniform, not a small constant): the
/// column walk. Null when none.
const ArraySubscriptExpr *columnLoad(const Expr *E, const FunctionFacts &F,
                                     const VarDecl *Col, const VarDecl *IV) {
  std::map<const VarDecl *, std::string> Syms{{Col, "@col"}, {IV, "@k"}};
  const ArraySubscriptExpr *Found = nullptr;
  forEachStmt(E, [&](const Stmt *S) {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(S);
    if (!AS || Found)
      return;
    AffineExpr Idx;
    if (!rowWalkAccess(AS, F, Syms, Idx) || !Idx.isKnown())
      return;
    if (Idx.coefficientOf("@col") != AffineExpr::constant(1))
      return;
    AffineExpr CK = Idx.coefficientOf("@k");
    if (!CK.isKnown() || CK.dependsOnThread() ||
        CK.dependsOn([](const std::string &N) { return N == "@col"; }))
      return;
    if (auto V = CK.constantValue(); V && *V > -32 && *V < 32)
      return; // no row stride (a 1-D window, or no k at all)
    if (CK.coefficientOf("@k") != AffineExpr())
      return;
    Found = AS;
  });
  return Found;
}

/// The row loop that ends the epilogue, when its iterations can be split
/// over the row segments as well: `for (T i = I0; i < END; ++i)` whose body
/// declares locals and updates elements of the column (`X[i * LD + j] op=
/// E`, one element per buffer and iteration), reading a buffer it writes
/// only at the element the same iteration writes. A Gram-Schmidt projection
/// (`A[i * n + j] -= q[i] * dot`), a normalisation (`x[i * m + j] /= s`).
struct MapLoop {
  const Stmt *S = nullptr; ///< the statement (the loop, or its #pragma)
  const ForStmt *L = nullptr;
  LoopShape LS;
  std::set<const ParmVarDecl *> Written;
  std::set<const ParmVarDecl *> Accessed; ///< written or read in the loop
};

std::optional<MapLoop> splittableMapLoop(ASTContext &Ctx, const Stmt *Last,
                                         const FunctionFacts &F,
                                         const VarDecl *Col,
                                         std::string &Why) {
  MapLoop M;
  M.S = Last;
  M.L = dyn_cast<ForStmt>(Last);
  if (const auto *AS = dyn_cast<AttributedStmt>(Last))
    M.L = dyn_cast<ForStmt>(AS->getSubStmt());
  if (!M.L)
    return std::nullopt; // no row loop after the sums: nothing to say
  std::optional<LoopShape> LS = analyzeFor(Ctx, M.L);
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(M.L->getCond());
  if (!LS || !LS->IV || LS->Step != 1 ||
      (LS->Cmp != BO_LT && LS->Cmp != BO_LE) || !M.L->getInc() ||
      !isa_and_nonnull<DeclStmt>(M.L->getInit()) || !Cond ||
      varOf(Cond->getLHS()) != LS->IV || !isPure(Ctx, LS->Init) ||
      !isPure(Ctx, LS->Bound) || Ctx.getTypeSize(LS->IV->getType()) < 32) {
    Why = "it is not `for (T i = I0; i < END; ++i)` with 'i' declared in it "
          "and at least as wide as int";
    return std::nullopt;
  }
  M.LS = *LS;
  std::vector<const Stmt *> Stmts;
  if (const auto *CS = dyn_cast<CompoundStmt>(M.L->getBody()))
    Stmts.assign(CS->body_begin(), CS->body_end());
  else
    Stmts.push_back(M.L->getBody());
  std::map<const VarDecl *, std::string> Syms{{Col, "@col"}, {LS->IV, "@k"}};
  std::map<const ParmVarDecl *, AffineExpr> WriteIdx;
  std::set<const VarDecl *> Locals;
  for (const Stmt *S : Stmts) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || V->isStaticLocal() || V->getType()->isReferenceType() ||
            (V->getInit() && !isPure(Ctx, V->getInit()))) {
          Why = "it declares '" + sourceText(Ctx, S->getSourceRange()) +
                "', which has side effects";
          return std::nullopt;
        }
        Locals.insert(V);
      }
      continue;
    }
    const auto *BO = dyn_cast<BinaryOperator>(S);
    const auto *AS =
        BO && BO->isAssignmentOp()
            ? dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens())
            : nullptr;
    AffineExpr Idx;
    const ParmVarDecl *B =
        AS ? rowWalkAccess(AS, F, Syms, Idx) : nullptr;
    if (!AS || !B || columnLoad(AS, F, Col, LS->IV) != AS ||
        !isPure(Ctx, BO->getRHS())) {
      Why = "'" + sourceText(Ctx, S->getSourceRange()) +
            "' is not a store of one element of the column per iteration";
      return std::nullopt;
    }
    auto [It, New] = WriteIdx.emplace(B, Idx);
    if (!New && It->second != Idx) {
      Why = "it writes two elements of '" + B->getNameAsString() +
            "' per iteration";
      return std::nullopt;
    }
    M.Written.insert(B);
  }
  for (const VarDecl *V : varsWrittenIn(M.L->getBody()))
    if (!Locals.count(V)) {
      Why = "it changes '" + V->getNameAsString() + "'";
      return std::nullopt;
    }
  std::string Bad;
  forEachStmt(M.L->getBody(), [&](const Stmt *X) {
    if (!Bad.empty())
      return;
    if (const auto *UO = dyn_cast<UnaryOperator>(X);
        UO && UO->getOpcode() == UO_Deref) {
      Bad = sourceText(Ctx, UO->getSourceRange());
      return;
    }
    const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
    if (!AS || AS->getType()->isArrayType())
      return;
    const ParmVarDecl *B = subscriptParam(AS, F);
    if (!B) {
      Bad = sourceText(Ctx, AS->getSourceRange());
      return;
    }
    M.Accessed.insert(B);
    AffineExpr Idx;
    if (M.Written.count(B) &&
        (!rowWalkAccess(AS, F, Syms, Idx) || Idx != WriteIdx[B]))
      Bad = sourceText(Ctx, AS->getSourceRange());
  });
  if (!Bad.empty()) {
    Why = "it reads '" + Bad + "', which is not a parameter's element or is "
          "an element of a written buffer that its iteration does not write";
    return std::nullopt;
  }
  return M;
}

/// The declarations among \p Stmts (in order) that declare a variable of
/// \p Needed, or one that a later such declaration reads; \p Needed grows
/// by what they read. Other statements are passed over.
std::vector<const DeclStmt *> neededDecls(ArrayRef<const Stmt *> Stmts,
                                          std::set<const VarDecl *> &Needed) {
  std::vector<const DeclStmt *> Out;
  for (auto It = Stmts.rbegin(); It != Stmts.rend(); ++It) {
    const auto *DS = dyn_cast<DeclStmt>(*It);
    if (!DS || llvm::none_of(DS->decls(), [&](const Decl *D) {
          return Needed.count(dyn_cast<VarDecl>(D)) > 0;
        }))
      continue;
    for (const VarDecl *V : varsRead(DS))
      Needed.insert(V);
    Out.insert(Out.begin(), DS);
  }
  return Out;
}

/// Does \p S read an element of a buffer in \p Written (or memory it cannot
/// place: a dereference, a subscript of something else than a parameter)?
bool readsWritten(const Stmt *S, const FunctionFacts &F,
                  const std::set<const ParmVarDecl *> &Written) {
  bool Bad = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *UO = dyn_cast<UnaryOperator>(X);
        UO && UO->getOpcode() == UO_Deref)
      Bad = true;
    const auto *AS = dyn_cast<ArraySubscriptExpr>(X);
    if (!AS || AS->getType()->isArrayType())
      return;
    const ParmVarDecl *B = subscriptParam(AS, F);
    if (!B || Written.count(B))
      Bad = true;
  });
  return Bad;
}

bool isSimpleText(const Expr *E) {
  E = E->IgnoreImpCasts();
  return isa<IntegerLiteral>(E) || isa<DeclRefExpr>(E) || isa<ParenExpr>(E);
}

std::string textBetween(const ASTContext &Ctx, SourceLocation B,
                        SourceLocation E, bool &Invalid) {
  return Lexer::getSourceText(CharSourceRange::getCharRange(B, E),
                              Ctx.getSourceManager(), Ctx.getLangOpts(),
                              &Invalid)
      .str();
}

std::string trimLeft(std::string S) {
  size_t P = S.find_first_not_of(" \t\n");
  return P == std::string::npos ? "" : S.substr(P);
}

std::string trimRight(std::string S) {
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t' ||
                        S.back() == '\n'))
    S.pop_back();
  return S;
}

} // namespace

RuleInfo CoalescingColumnSplit::info() const {
  RuleInfo I;
  I.Id = RuleId;
  I.Category = "coalescing";
  I.Summary = "one thread per column walking every row -> the rows of each "
              "column split across a block's threads, partial sums combined "
              "in shared memory (grid rewritten)";
  I.Exactness = Exactness::Reassociating;
  I.ExactnessNote = "reassociating (bitwise for integer sums); the partial "
                    "sums are combined in a fixed order (deterministic)";
  I.DefaultOptions["Columns"] = "8";
  I.DefaultOptions["EnoughThreads"] = "131072";
  I.DefaultOptions["MinRows"] = "64";
  I.Help =
      "When thread j = blockIdx.x*blockDim.x + threadIdx.x sums "
      "data[i*LD + j] over every row i, the loads are coalesced but the "
      "kernel has only as many threads as columns, each walking thousands "
      "of rows one load after the other: the GPU's memory system waits on "
      "too few loads in flight. The rewrite lets the threads of a block "
      "split the rows of a few columns and combine their partial sums "
      "through shared memory in a fixed order; every launch site's grid "
      "gets blockDim.x / Columns times more blocks. The sum is "
      "reassociated.";
  I.Doc.Detects =
      "Kernels with one thread index `j = blockIdx.x * blockDim.x + "
      "threadIdx.x` (any integer type; a 2-D block whose `threadIdx.y` is "
      "never read counts as one-dimensional) whose loop `for (T i = I0; i < "
      "END; ++i)` (or `<=`) accumulates into local variables, `acc += E`, "
      "with a load in `E` at `i * LD + j` (`data[i * m + j]`, `A[i][j]` on "
      "a `T A[][N]` parameter, `size_t` or macro indices): one thread per "
      "column walks all the rows of a row-major matrix. Column means, "
      "column sums of squares (several accumulators in one loop), the "
      "transposed matrix-vector product `g[j] += A[i * n + j] * r[i]`, "
      "with an epilogue such as `mean[j] = s / n`, `sqrt`, `alpha * s` or "
      "another store. Accumulations into global memory (`mean[j] += "
      "data[i * m + j]`) are reached by composition: "
      "[memory-register-accumulation](memory-register-accumulation.md) "
      "makes them register sums in round 1 and this rule splits them in "
      "round 2 of the same `--fix` run.\n"
      "\n"
      "No finding when the launch facts show enough threads (every launch's "
      "grid and block known and at least `EnoughThreads` threads, default "
      "131072: about 1000 per SM of an H200), when the row loop's trip "
      "count is a constant below `MinRows` (default 64), or when the "
      "kernel already shares the work of a column (it reads `threadIdx.y`, "
      "`blockIdx.y`, uses shared memory or barriers). When a launch's "
      "size is not known the finding says that it assumes few threads, and "
      "is reported only when the rule has a rewrite for it (proven, or one "
      "that needs `--verify=run`, which measures it): a finding with no "
      "rewrite resting on that assumption is left out (a column count read "
      "from a file or the command line may well fill the GPU). A "
      "kernel that makes passes over each thread's row (row moments, a "
      "softmax) is left to "
      "[coalescing-warp-per-row-passes](coalescing-warp-per-row-passes.md), "
      "which splits every pass, not only the first sum.";
  I.Doc.WhySlow =
      "The loads of a warp are coalesced (consecutive columns), but with "
      "one thread per column a 4096-column matrix gives 4096 threads: 16 "
      "blocks of 256 on a 132-SM GPU, each thread walking thousands of "
      "rows with a few loads in flight at a time. The kernel is bound by "
      "memory latency, at a small fraction of the bandwidth.";
  I.Doc.Example = R"cuda(int j = blockIdx.x * blockDim.x + threadIdx.x;
if (j < m) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += data[i * m + j];        // warning
  mean[j] = s / n;
}
...
colmean<<<(m + 255) / 256, 256>>>(data, mean, m, n);)cuda";
  I.Doc.Fixed = R"cuda(// cuda-l1 coalescing-column-split: 8 columns per block, the block's threads
// split the rows (partial sums combined in shared memory in a fixed order).
const unsigned int cudal1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
const unsigned int cudal1_seg = cudal1_t / 8u;
const unsigned int cudal1_nseg = blockDim.x * blockDim.y * blockDim.z / 8u;
__shared__ float cudal1_part_s[1024];
int j = blockIdx.x * 8u + cudal1_t % 8u;
if (j < m) {
  float s = 0;
  for (int i = 0 + (int)cudal1_seg; i < n; i += (int)cudal1_nseg)
    s += data[i * m + j];
  cudal1_part_s[cudal1_t] = s;
}
__syncthreads();
if (cudal1_seg == 0u && (j < m)) {
  float s = 0;
  s = cudal1_part_s[cudal1_t];
  for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
    s += cudal1_part_s[cudal1_t + 8u * cudal1_q];
  mean[j] = s / n;
}
...
colmean<<<((m + 255) / 256) * 32, 256>>>(data, mean, m, n);)cuda";
  I.Doc.Fix =
      "The kernel's threads are remapped and every launch site's grid is "
      "multiplied by `blockDim.x / Columns` (option `Columns`, default 8: "
      "a warp reads 8 consecutive columns of 4 rows, four whole 32-byte "
      "sectors per load; 32 gives whole 128-byte lines but 4x fewer "
      "blocks). The block size is not changed: block `b` covers the "
      "`Columns` columns from `b * Columns`, so the rewritten grid covers "
      "exactly the columns the original one did, and its `T` threads split "
      "the rows of each column into `T / Columns` interleaved segments "
      "(rows `I0 + seg`, `I0 + seg + T / Columns`, ...: the warps of a "
      "block read neighbouring rows). Each thread runs the original loop "
      "body over its rows; its partial sums go to shared memory "
      "(`__shared__ T cudal1_part_<acc>[1024]`, one per accumulator, enough "
      "for any block), and after a barrier that every thread reaches (the "
      "guard and early returns become conditions of the two phases) "
      "segment 0 adds the partial sums of its column in segment order and "
      "runs the code after the loop once per column. The declarations "
      "before the loop run in both phases (they only compute values; the "
      "accumulators get the combined sums). With a 2-D block whose y "
      "index is never read (`dim3 block(32, 8)`), the duplicate threads "
      "become row segments.\n"
      "\n"
      "Why the launch changes: with the launch unchanged, a block of `T` "
      "threads would still have to produce `T` columns, so splitting the "
      "rows would give each thread the same number of loads in the same "
      "few threads: no more loads in flight. The parallelism has to come "
      "from more threads, and only the host can launch them. The fix "
      "therefore needs every launch to be visible in the file, with a "
      "constant block whose x-extent is a multiple of `Columns`.\n"
      "\n"
      "The sum is reassociated: `((p0 + p1) + p2) + ...` over the segments' "
      "partial sums, where `p0` starts from the accumulator's initial value "
      "(a bias, `y[j]` from register accumulation) and the others from 0. "
      "The order is fixed, so the result is deterministic; it differs from "
      "the sequential sum within floating-point rounding (verified with "
      "the tolerance of reassociating fixes: rtol 1e-4, atol 1e-5, and "
      "1e-4 of the output's largest magnitude). Integer sums are exact "
      "(bitwise). A reassociating fix is applied only after verification "
      "(`--verify=run`) or with `--allow-unverified`.\n"
      "\n"
      "Memory: the loop only reads (its body may only update the "
      "accumulators and declare locals), the epilogue runs after every "
      "segment of its column has finished reading, so a kernel that "
      "overwrites the column it summed (Gram-Schmidt's projection) keeps "
      "its order; threads of different columns were unordered already.\n"
      "\n"
      "Sums over loads that are not a column (an n-body step: `sx += (x[j] "
      "- x[i]) * m[j]`, x[j] the same in every thread) are split the same "
      "way when every launch is known to run fewer than `EnoughThreads` "
      "threads (4096 bodies in 16 blocks): their loads are coalesced or "
      "shared already, the gain is the parallelism. With a launch of "
      "unknown size there is no finding for them.\n"
      "\n"
      "The sums may sit in the body of an outer loop whose bounds are the "
      "same in every thread (`for (int i = 0; i < n; i++) { float s = "
      "B[i * nrhs + c]; for (int k = 0; k < i; k++) s -= L[i * n + k] * "
      "Y[k * nrhs + c]; Y[i * nrhs + c] = s / L[i * n + i]; }`, a forward "
      "substitution with one thread per right-hand side): the phases run in "
      "each of its iterations, and a barrier ends each iteration, so the "
      "next one reads what segment 0 stored.\n"
      "\n"
      "A row loop that ends the code after the sums and only updates "
      "elements of the column (`for (int i = 0; i < m; i++) A[i * n + j] -= "
      "q[i] * dot;`, Gram-Schmidt's projection; `X[i * n + j] /= norm`) is "
      "split over the segments too: segment 0 runs the code before it and "
      "puts the combined sums back in shared memory; after a second barrier "
      "every segment takes the sums, runs the declarations before the loop "
      "again (they only compute values) and walks its rows of the loop "
      "(rows `I0 + seg`, step `T / Columns`). Conditions: the loop is "
      "`for (T i = I0; i < END; ++i)` with `T` at least as wide as `int`; "
      "its body declares locals and stores `X[i * LD + j] op= E`, one "
      "element per buffer and iteration; a buffer it writes is read only at "
      "the element the same iteration writes, and not before the loop; the "
      "code before it changes no local variable, cannot leave the kernel "
      "(`return`: segment 0 must reach the second barrier), and a "
      "declaration there that reads memory comes after its stores; when it "
      "stores, the declarations before the sums read no memory (they run "
      "again after the stores); each buffer it writes is "
      "proven distinct from the others it reads (`__restrict__`, or "
      "separate allocations at every launch), or the fix needs "
      "`--verify=run`. Otherwise the loop stays in segment 0 and a note "
      "says why.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- a launch site is not visible (the kernel is launched from another "
      "file, or its name is used otherwise), the block is not a constant "
      "shared by every launch, or its x-extent is not a multiple of "
      "`Columns`; a grid is written in a macro or is not an integer, a "
      "`dim3` variable or `dim3(...)`;\n"
      "- the kernel reads `threadIdx`/`blockIdx`/`blockDim`/`gridDim` "
      "other than in the column's declaration, or calls a function that "
      "reads them, or uses warp operations;\n"
      "- the loop is nested in control flow other than a final `if (...) "
      "{ ... }` and one outer loop, or that outer loop's bounds may differ "
      "between threads (they read the column), its body returns, breaks "
      "or continues, or changes a variable declared outside it (only "
      "segment 0 runs the code after the sums); the loop's body does more "
      "than update the "
      "accumulators and declare locals (stores, calls of user functions, "
      "reads of an accumulator); its induction variable is declared "
      "outside it or its bounds depend on the row segment;\n"
      "- code before the loop (after the guard) is not a declaration, or a "
      "declaration has side effects; the guard reads memory, calls a "
      "function or uses a variable the kernel changes; an accumulator is "
      "not an arithmetic local declared before the loop;\n"
      "- the code after the loop synchronises or uses warp operations;\n"
      "- kernel templates (no finding), code from macro expansions.\n"
      "\n"
      "## Verified on the CPU, to be measured on the GPU\n"
      "\n"
      "test/Rules/coalescing/coalescing-column-split-emu.cu runs original "
      "and rewritten kernels on the CPU emulation (utils/bench/cuemu): "
      "integer sums match bit for bit and floating-point sums within the "
      "tolerance, for odd sizes, 1-D and 2-D blocks and grids larger than "
      "the matrix. GPU speed: utils/bench-structural.sh (colsum cases, "
      "`Columns` 8 and 32).";
  return I;
}

// Over 150 lines: one pass from the pattern (column index, loop,
// accumulators, guard, prologue/epilogue, launches) to the two-phase body;
// the steps share the matched pieces and are commented blocks.
void CoalescingColumnSplit::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  ASTContext &Ctx = ctx();
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *K = Kernel.FD;
  const FunctionFacts &F = Kernel.Facts;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body || Body->body_empty())
    return;
  // Passes over each thread's row (row moments, a softmax): a warp per row
  // splits every pass, not only the first sum.
  if (hasRowPasses(Ctx, K, F))
    return;

  // --- the pattern -----------------------------------------------------------
  // The column index: a top-level declaration.
  std::optional<ColumnVar> Col;
  const DeclStmt *ColDS = nullptr;
  for (const Stmt *S : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (!Col)
            if (auto C = columnVar(V, F)) {
              Col = C;
              ColDS = DS;
            }
  if (!Col)
    return;
  // A loop whose body accumulates a column-walking load.
  const ForStmt *Loop = nullptr, *Walk = nullptr;
  std::optional<LoopShape> LS, WalkLS;
  const ArraySubscriptExpr *WalkLoad = nullptr;
  const BinaryOperator *WalkUpd = nullptr;
  const ArraySubscriptExpr *Load = nullptr;
  const BinaryOperator *FirstUpd = nullptr;
  for (const ForStmt *L : forLoopsIn(Body)) {
    std::optional<LoopShape> S = analyzeFor(Ctx, L);
    if (!S || !S->IV)
      continue;
    std::vector<const Stmt *> Stmts;
    if (const auto *CS = dyn_cast<CompoundStmt>(L->getBody()))
      Stmts.assign(CS->body_begin(), CS->body_end());
    else
      Stmts.push_back(L->getBody());
    // The load may be in the update or in a local the update reads
    // (`float v = data[i * m + j]; s += v; ss += v * v;`).
    const BinaryOperator *Upd = nullptr;
    const ArraySubscriptExpr *AS = nullptr;
    for (const Stmt *X : Stmts) {
      if (auto U = accUpdate(X); U && !Upd)
        Upd = U->BO;
      if (const auto *DS = dyn_cast<DeclStmt>(X))
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() && !AS)
            AS = columnLoad(V->getInit(), F, Col->V, S->IV);
      if (auto U = accUpdate(X); U && !AS)
        AS = columnLoad(U->E, F, Col->V, S->IV);
    }
    if (Upd && AS) {
      Loop = L;
      LS = S;
      Load = AS;
      FirstUpd = Upd;
      break;
    }
    // Otherwise a sum over loads that the loop walks but that are not a
    // column (`ax += dx * s` over x[j], the same for every thread: an
    // n-body step): split the same way when the launch has few threads.
    if (Upd && !Walk)
      for (const Stmt *X : Stmts) {
        const ArraySubscriptExpr *Found = nullptr;
        forEachStmt(X, [&](const Stmt *Y) {
          if (const auto *A = dyn_cast<ArraySubscriptExpr>(Y);
              A && !Found && varsRead(A->getIdx()).count(S->IV))
            Found = A;
        });
        if (Found) {
          Walk = L;
          WalkLS = S;
          WalkLoad = Found;
          WalkUpd = Upd;
          break;
        }
      }
  }
  bool Broadcast = false; // the sums walk loads that are not a column
  if (!Loop && Walk) {
    Loop = Walk;
    LS = WalkLS;
    Load = WalkLoad;
    FirstUpd = WalkUpd;
    Broadcast = true;
  }
  if (!Loop)
    return;

  // --- good code: no finding -------------------------------------------------
  // Already shared work: other thread indices, shared memory, barriers.
  BuiltinUse BU = builtinUse(Ctx, K);
  for (const char *N : {"threadIdx.y", "threadIdx.z", "blockIdx.y",
                        "blockIdx.z"})
    if (BU.reads(N))
      return;
  bool Shared = false;
  forEachStmt(Body, [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->hasAttr<CUDASharedAttr>())
            Shared = true;
  });
  if (Shared || containsCallTo(Body, {"__syncthreads*", "__syncwarp"}))
    return;
  // Few rows: nothing to split.
  int64_t MinRows = optionInt("MinRows", 64);
  if (auto B = evalInt(Ctx, LS->Bound))
    if (auto I0 = evalInt(Ctx, LS->Init))
      if (*B - *I0 + (LS->Cmp == BO_LE ? 1 : 0) < MinRows)
        return;
  // Enough threads: every launch's size known and large.
  int64_t Enough = optionInt("EnoughThreads", 131072);
  std::string QN = K->getQualifiedNameAsString();
  bool AllKnown = context().Model != nullptr, AnySite = false;
  uint64_t MinThreads = UINT64_MAX;
  if (context().Model)
    for (const LaunchSite &S : context().Model->LaunchSites) {
      if (S.Kernel != QN)
        continue;
      AnySite = true;
      auto Count = [](const std::array<uint64_t, 3> &D) {
        return D[0] * D[1] * D[2];
      };
      std::optional<uint64_t> T;
      if (S.Grid.Dim && S.Block.Dim)
        T = Count(*S.Grid.Dim) * Count(*S.Block.Dim);
      for (const LaunchValues &LV : S.Values)
        if (LV.Grid.known() && LV.Block.known()) {
          uint64_t X = Count(LV.Grid.Dims) * Count(LV.Block.Dims);
          T = T ? std::min(*T, X) : X;
        }
      if (!T)
        AllKnown = false;
      else
        MinThreads = std::min(MinThreads, *T);
    }
  AllKnown = AllKnown && AnySite;
  if (AllKnown && (int64_t)MinThreads >= Enough)
    return;
  // Sums over loads that are not a column: only when the launch is known
  // to have few threads (their loads are coalesced or shared already: the
  // gain is the parallelism alone).
  if (Broadcast && !AllKnown)
    return;

  // --- the finding -------------------------------------------------------------
  int64_t CW = optionInt("Columns", 8);
  if (CW < 1 || CW > 32 || (CW & (CW - 1)))
    CW = 8;
  std::string S_CW = std::to_string(CW);
  const VarDecl *IV = LS->IV;
  std::string ColN = Col->V->getName().str();
  std::string LoadT = sourceText(Ctx, Load->getSourceRange());
  if (LoadT.empty()) { // in a macro's body: the expression as Clang prints it
    llvm::raw_string_ostream OS(LoadT);
    Load->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
  }
  std::string Threads =
      AllKnown ? "only " + std::to_string(MinThreads) + " threads"
               : "as many threads as columns";
  Finding Fd = finding(
      FirstUpd->getBeginLoc(),
      (Broadcast ? "each thread sums a loop over '" + IV->getName().str() +
                       "' ('" + LoadT + "') with " + Threads
                 : "one thread per column walks every row ('" + LoadT +
                       "' over '" + IV->getName().str() + "') with " +
                       Threads) +
          ": too few loads in flight to fill the GPU; splitting each " +
          std::string(Broadcast ? "thread's loop across the threads of a "
                                  "block ("
                                : "column's rows across the threads of a "
                                  "block (") +
          S_CW + (Broadcast ? " former threads" : " columns") +
          " per block, partial sums combined in shared "
          "memory) launches blockDim.x / " + S_CW + " times more threads",
      K, FirstUpd->getSourceRange());
  if (!AllKnown)
    note(Fd, Col->V->getLocation(),
         "the launch's grid is not known here: this assumes the kernel "
         "runs fewer than " + std::to_string(Enough) +
         " threads (option EnoughThreads)");
  // Without a fix, a finding that only assumes few threads (a launch's
  // size unknown: a column count read from a file or the command line may
  // well fill the GPU) is not reported; with one, verification measures it.
  auto Refuse = [&](const std::string &Why) {
    if (AllKnown)
      reportWithoutFix(std::move(Fd), Why);
  };

  // --- launches ----------------------------------------------------------------
  std::string Why;
  if (!allLaunchesVisible(Ctx, context(), K, Why))
    return Refuse(Why + "; the grid must change at every launch");
  auto Block = constantBlock(context(), K, Why);
  if (!Block)
    return Refuse(Why + "; the split needs a constant block");
  uint64_t BX = (*Block)[0];
  if (BX % uint64_t(CW))
    return Refuse("the block's x-extent " + std::to_string(BX) +
                  " is not a multiple of " + S_CW +
                  " (the columns per block, option Columns)");
  if (Col->ConstStride && uint64_t(*Col->ConstStride) != BX)
    return Refuse("'" + ColN + "' strides blocks by " +
                  std::to_string(*Col->ConstStride) +
                  ", not by the block's x-extent " + std::to_string(BX));
  uint64_t Mult = BX / uint64_t(CW);

  // --- the kernel's shape --------------------------------------------------------
  if (BU.WarpOp || BU.BarrierCount)
    return Refuse("the kernel uses warp operations or counting barriers");
  if (!BU.Unknown.empty())
    return Refuse(BU.Unknown);
  {
    // Built-ins only in the column's declaration.
    bool Other = false;
    forEachStmt(Body, [&](const Stmt *X) {
      const auto *E = dyn_cast<Expr>(X);
      if (!E || !isa<PseudoObjectExpr>(E) || builtinName(E).empty())
        return;
      SourceLocation L = SM.getExpansionLoc(E->getBeginLoc());
      SourceRange CR(SM.getExpansionLoc(Col->V->getInit()->getBeginLoc()),
                     SM.getExpansionLoc(Col->V->getInit()->getEndLoc()));
      if (SM.isBeforeInTranslationUnit(L, CR.getBegin()) ||
          SM.isBeforeInTranslationUnit(CR.getEnd(), L))
        Other = true;
    });
    if (Other)
      return Refuse("the kernel reads threadIdx/blockIdx/blockDim/gridDim "
                    "other than in the declaration of '" + ColN +
                    "' (the split gives the threads other roles)");
    // Called functions must not read them.
    std::string Callee;
    forEachStmt(Body, [&](const Stmt *X) {
      const auto *CE = dyn_cast<CallExpr>(X);
      if (!CE || !Callee.empty())
        return;
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
        return;
      BuiltinUse CU = builtinUse(Ctx, FD);
      if (!CU.Reads.empty() || !CU.Unknown.empty() || CU.WarpOp)
        Callee = FD->getNameAsString();
    });
    if (!Callee.empty())
      return Refuse("the kernel calls '" + Callee +
                    "', which reads the thread index or its use is unknown");
  }
  // Top level: declarations, early returns, then a final guard or the core.
  std::vector<const Expr *> Exits;
  const IfStmt *GuardIf = nullptr;
  std::vector<const Stmt *> Core;
  const Stmt *RegionFirst = nullptr;
  {
    auto It = Body->body_begin(), E = Body->body_end();
    for (; It != E; ++It) {
      const auto *DS = dyn_cast<DeclStmt>(*It);
      if (!DS)
        break;
      bool Plain = true;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || (V->getInit() && !isPureNoMemory(V->getInit())) ||
            V->isStaticLocal())
          Plain = false;
      }
      if (!Plain)
        break;
    }
    for (; It != E; ++It) {
      const Expr *C = earlyExit(*It);
      if (!C)
        break;
      if (!RegionFirst)
        RegionFirst = *It;
      Exits.push_back(C);
    }
    if (It != E && std::next(It) == E)
      if (const auto *If = dyn_cast<IfStmt>(*It);
          If && !If->getElse() && !If->getInit() &&
          !If->getConditionVariable()) {
        GuardIf = If;
        if (const auto *CS = dyn_cast<CompoundStmt>(If->getThen()))
          Core.assign(CS->body_begin(), CS->body_end());
        else
          Core.push_back(If->getThen());
      }
    if (It != E && !RegionFirst)
      RegionFirst = *It;
    if (!GuardIf)
      Core.assign(It, E);
  }
  bool ColTop = false;
  for (const Stmt *S : Body->body()) {
    if (S == RegionFirst)
      break;
    if (S == ColDS)
      ColTop = true;
  }
  if (!ColTop || !RegionFirst)
    return Refuse("'" + ColN + "' is not declared before the guard");
  // The loop's statement: the loop, or the `#pragma unroll` written before
  // it (another rule's fix in an earlier round, or the user's).
  const Stmt *LoopS = loopStatement(Ctx, Loop);
  // The sums may be in the body of an outer loop that every thread runs the
  // same number of times (a triangular solve: row i of every column sums
  // the rows before it): the phases run in each of its iterations, and a
  // barrier ends each iteration (the next one reads what segment 0 stored).
  const ForStmt *Outer = nullptr;
  if (std::find(Core.begin(), Core.end(), LoopS) == Core.end() &&
      Core.size() == 1)
    if (const auto *OL = dyn_cast<ForStmt>(Core.front()))
      if (const auto *OB = dyn_cast<CompoundStmt>(OL->getBody()))
        if (std::find(OB->body_begin(), OB->body_end(), LoopS) !=
            OB->body_end()) {
          std::optional<LoopShape> OS = analyzeFor(Ctx, OL);
          bool Jumps = false;
          forEachStmt(OB, [&](const Stmt *X) {
            Jumps |= isa<ReturnStmt>(X) || isa<BreakStmt>(X) ||
                     isa<ContinueStmt>(X) || isa<GotoStmt>(X);
          });
          if (!OS || !OS->IV || !isa_and_nonnull<DeclStmt>(OL->getInit()) ||
              !OL->getInc() || !isBlockUniform(OS->Init, F) ||
              !isBlockUniform(OS->Bound, F) || varsWrittenIn(OB).count(OS->IV))
            return Refuse("the loop is nested in a loop whose trip count may "
                          "differ between threads (its bounds must be the "
                          "same in every thread: each iteration has "
                          "barriers)");
          if (Jumps)
            return Refuse("the loop around the sums returns, breaks or "
                          "continues (each of its iterations has barriers "
                          "every thread must reach)");
          // Every iteration starts from the same state in every segment:
          // the body changes only variables it declares (the code after the
          // sums runs in segment 0 alone).
          std::set<const VarDecl *> Inner;
          forEachStmt(OB, [&](const Stmt *X) {
            if (const auto *DS = dyn_cast<DeclStmt>(X))
              for (const Decl *D : DS->decls())
                if (const auto *V = dyn_cast<VarDecl>(D))
                  Inner.insert(V);
          });
          for (const VarDecl *V : varsWrittenIn(OB))
            if (V != OS->IV && !Inner.count(V))
              return Refuse("the loop around the sums changes '" +
                            V->getName().str() +
                            "', declared outside it (only segment 0 would "
                            "see the change)");
          Outer = OL;
          Core.assign(OB->body_begin(), OB->body_end());
        }
  auto LoopIt = std::find(Core.begin(), Core.end(), LoopS);
  if (LoopIt == Core.end())
    return Refuse("the loop is nested in another loop or in control flow "
                  "other than a final `if (...) { ... }` of the kernel");
  if (GuardIf && !isa<CompoundStmt>(GuardIf->getThen()))
    return Refuse("the guard's body is not a block");
  std::vector<const Stmt *> Prologue(Core.begin(), LoopIt);
  std::vector<const Stmt *> Epilogue(std::next(LoopIt), Core.end());

  // The loop: `for (T i = I0; i < END; ++i)`, bounds the same for every
  // segment of a column.
  if (!isa_and_nonnull<DeclStmt>(Loop->getInit()) || LS->Step != 1 ||
      (LS->Cmp != BO_LT && LS->Cmp != BO_LE) || !Loop->getInc())
    return Refuse("the loop is not `for (T i = I0; i < END; ++i)` with 'i' "
                  "declared in it");
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(Loop->getCond());
  if (!Cond || varOf(Cond->getLHS()) != IV)
    return Refuse("the loop's condition is not `i < END`");
  if (!isPure(Ctx, LS->Init) || !isPure(Ctx, LS->Bound))
    return Refuse("the loop's bounds have side effects");

  // The loop body: accumulator updates and local declarations.
  std::vector<const Stmt *> BodyStmts;
  if (const auto *CS = dyn_cast<CompoundStmt>(Loop->getBody()))
    BodyStmts.assign(CS->body_begin(), CS->body_end());
  else
    BodyStmts.push_back(Loop->getBody());
  std::vector<const VarDecl *> Accs;
  std::vector<Update> Updates;
  std::set<const VarDecl *> BodyLocals;
  for (const Stmt *S : BodyStmts) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || V->isStaticLocal() || V->getType()->isReferenceType() ||
            (V->getInit() && !isPure(Ctx, V->getInit())))
          return Refuse("the loop declares '" +
                        sourceText(Ctx, S->getSourceRange()) +
                        "', which has side effects");
        BodyLocals.insert(V);
      }
      continue;
    }
    auto U = accUpdate(S);
    if (!U)
      return Refuse("the loop does more than accumulate: '" +
                    sourceText(Ctx, S->getSourceRange()) + "'");
    if (std::find(Accs.begin(), Accs.end(), U->Acc) == Accs.end())
      Accs.push_back(U->Acc);
    Updates.push_back(*U);
  }
  for (const VarDecl *A : Accs) {
    QualType AT = A->getType();
    if (!AT->isArithmeticType() || AT.isVolatileQualified() ||
        A->isStaticLocal() || A->hasAttr<CUDASharedAttr>())
      return Refuse("the accumulator '" + A->getName().str() +
                    "' is not an arithmetic local");
    if (BodyLocals.count(A))
      return Refuse("the accumulator '" + A->getName().str() +
                    "' is declared in the loop");
  }
  auto IsAcc = [&](const VarDecl *V) {
    return std::find(Accs.begin(), Accs.end(), V) != Accs.end();
  };
  for (const Update &U : Updates) {
    std::string Bad;
    forEachStmt(U.E, [&](const Stmt *X) {
      if (!Bad.empty())
        return;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
        if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && IsAcc(V))
          Bad = "reads the accumulator '" + V->getName().str() + "'";
      if (const auto *B2 = dyn_cast<BinaryOperator>(X); B2 && B2->isAssignmentOp())
        Bad = "assigns";
      if (const auto *UO = dyn_cast<UnaryOperator>(X);
          UO && UO->isIncrementDecrementOp())
        Bad = "changes a variable";
    });
    if (Bad.empty() && !isPure(Ctx, U.E))
      Bad = "calls a function that may have side effects";
    if (!Bad.empty())
      return Refuse("the summed expression '" +
                    sourceText(Ctx, U.E->getSourceRange()) + "' " + Bad);
  }
  for (const VarDecl *V : BodyLocals)
    if (V->getInit())
      for (const VarDecl *R : varsRead(V->getInit()))
        if (IsAcc(R))
          return Refuse("a local of the loop reads the accumulator '" +
                        R->getName().str() + "'");
  for (const Expr *B : {LS->Init, LS->Bound})
    for (const VarDecl *R : varsRead(B))
      if (IsAcc(R) || BodyLocals.count(R))
        return Refuse("the loop's bounds read an accumulator");

  // Accumulators: declared at the top or before the loop; code before the
  // loop: declarations without side effects (run in both phases).
  std::set<const VarDecl *> ProLocals;
  for (const Stmt *S : Prologue) {
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return Refuse("'" + sourceText(Ctx, S->getSourceRange()) +
                    "' before the loop is not a declaration (the code before "
                    "the loop runs again after the barrier)");
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || V->isStaticLocal() || V->hasAttr<CUDASharedAttr>() ||
          (V->getInit() && !isPure(Ctx, V->getInit())))
        return Refuse("the declaration '" +
                      sourceText(Ctx, S->getSourceRange()) +
                      "' before the loop has side effects");
      ProLocals.insert(V);
    }
  }
  std::vector<const VarDecl *> NonZero;
  for (const VarDecl *A : Accs) {
    bool Top = false;
    for (const Stmt *S : Body->body()) {
      if (S == RegionFirst)
        break;
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (D == A)
            Top = true;
    }
    if (!Top && !ProLocals.count(A))
      return Refuse("the accumulator '" + A->getName().str() +
                    "' is not declared before the loop, in the kernel's "
                    "body or the guard's block");
    if (!A->getInit())
      return Refuse("the accumulator '" + A->getName().str() +
                    "' has no initial value");
    if (!isZeroConstant(Ctx, A->getInit(), /*RejectNegativeZero=*/true))
      NonZero.push_back(A);
  }
  // The loop writes only its accumulators and locals.
  for (const VarDecl *V : varsWrittenIn(Loop->getBody()))
    if (!IsAcc(V) && !BodyLocals.count(V))
      return Refuse("the loop changes '" + V->getName().str() + "'");

  // The guard: evaluated in both phases.
  std::vector<std::string> GuardParts;
  std::vector<const Expr *> GuardExprs;
  for (const Expr *C : Exits) {
    GuardParts.push_back("!(" + sourceText(Ctx, C->getSourceRange()) + ")");
    GuardExprs.push_back(C);
  }
  if (GuardIf) {
    GuardParts.push_back(
        "(" + sourceText(Ctx, GuardIf->getCond()->getSourceRange()) + ")");
    GuardExprs.push_back(GuardIf->getCond());
  }
  for (const Expr *G : GuardExprs) {
    if (!isPureNoMemory(G))
      return Refuse("the guard '" + sourceText(Ctx, G->getSourceRange()) +
                    "' reads memory or calls a function (it is evaluated "
                    "again after the barrier)");
    for (const VarDecl *R : varsRead(G))
      if (F.isMutated(R))
        return Refuse("the guard reads '" + R->getName().str() +
                      "', which the kernel changes");
  }
  // Phase 1: `if (G)`; phase 2: `if (seg == 0u && (G))`.
  std::string Guard, Guard2;
  if (GuardParts.size() == 1 && GuardIf) {
    Guard = sourceText(Ctx, GuardIf->getCond()->getSourceRange());
    Guard2 = "(" + Guard + ")";
  } else {
    for (const std::string &P : GuardParts)
      Guard += (Guard.empty() ? "" : " && ") + P;
    Guard2 = GuardParts.size() == 1 ? Guard : "(" + Guard + ")";
  }

  // The code after the loop: once per column, after the barrier.
  for (const Stmt *S : Epilogue)
    if (containsCallTo(S, {"__sync*", "__shfl*", "__ballot*", "__any*",
                           "__all*", "__activemask", "__match*",
                           "__reduce*"}))
      return Refuse("the code after the loop synchronises or uses warp "
                    "operations ('" + sourceText(Ctx, S->getSourceRange()) +
                    "')");

  // A row loop that ends the code after the loop and only updates elements
  // of the column is split over the segments too: a third phase after a
  // second barrier, every segment taking its rows, with the combined sums
  // and the declarations before it (run again: they only compute values).
  std::optional<MapLoop> Map;
  std::vector<const Stmt *> EpiPre;
  if (!Epilogue.empty()) {
    std::string MapWhy;
    Map = splittableMapLoop(Ctx, Epilogue.back(), F, Col->V, MapWhy);
    if (Map) {
      EpiPre.assign(Epilogue.begin(), std::prev(Epilogue.end()));
      bool StoreAfter = false; // a statement that is not a declaration follows
      for (auto It = EpiPre.rbegin(); It != EpiPre.rend() && MapWhy.empty();
           ++It) {
        const auto *DS = dyn_cast<DeclStmt>(*It);
        if (!DS) {
          StoreAfter = true;
          if (!varsWrittenIn(*It).empty())
            MapWhy = "'" + sourceText(Ctx, (*It)->getSourceRange()) +
                     "' before it changes a local variable";
          continue;
        }
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          if (!V || V->isStaticLocal() || V->hasAttr<CUDASharedAttr>() ||
              (V->getInit() && !isPure(Ctx, V->getInit())) ||
              (StoreAfter && V->getInit() && !isPureNoMemory(V->getInit())))
            MapWhy = "the declaration '" + sourceText(Ctx, DS->getSourceRange()) +
                     "' before it cannot run again in every segment";
        }
        if (MapWhy.empty() && readsWritten(DS, F, Map->Written))
          MapWhy = "'" + sourceText(Ctx, DS->getSourceRange()) +
                   "' before it reads a buffer the loop writes";
      }
      for (const Stmt *S : Prologue)
        if (MapWhy.empty() && readsWritten(S, F, Map->Written))
          MapWhy = "'" + sourceText(Ctx, S->getSourceRange()) +
                   "' before the sums reads a buffer the loop writes";
      // Segment 0 must reach the second barrier: no way out before it.
      for (const Stmt *S : EpiPre)
        forEachStmt(S, [&](const Stmt *X) {
          if (MapWhy.empty() && (isa<ReturnStmt>(X) || isa<BreakStmt>(X) ||
                                 isa<ContinueStmt>(X) || isa<GotoStmt>(X)))
            MapWhy = "'" + sourceText(Ctx, S->getSourceRange()) +
                     "' before it can leave the kernel (segment 0 must "
                     "reach the barrier before the split loop)";
        });
      // Declarations before the sums run again in phase 3, after segment 0
      // stored: they must not read memory then.
      bool Stores = llvm::any_of(EpiPre, [](const Stmt *S) {
        return !isa<DeclStmt>(S);
      });
      for (const Stmt *S : Prologue)
        if (MapWhy.empty() && Stores)
          for (const Decl *D : cast<DeclStmt>(S)->decls())
            if (const auto *V = dyn_cast<VarDecl>(D);
                V && V->getInit() && !isPureNoMemory(V->getInit()))
              MapWhy = "the declaration '" +
                       sourceText(Ctx, S->getSourceRange()) +
                       "' reads memory that the code after the sums may "
                       "store to before the split loop";
      // Buffers the declarations that run again read: distinct from those
      // the loop writes too (checked with the loop's own accesses).
      for (const std::vector<const Stmt *> *Part : {&Prologue, &EpiPre})
        for (const Stmt *S : *Part)
          if (isa<DeclStmt>(S))
            forEachStmt(S, [&](const Stmt *X) {
              if (const auto *AS = dyn_cast<ArraySubscriptExpr>(X))
                if (const ParmVarDecl *B = rootPointerParam(AS->getBase(), F))
                  Map->Accessed.insert(B);
            });
      if (!MapWhy.empty())
        Map.reset();
    }
    if (!Map && !MapWhy.empty())
      note(Fd, Epilogue.back()->getBeginLoc(),
           "the row loop after the sums stays in one thread per column: " +
               MapWhy);
  }

  if (inMacro(Loop->getSourceRange()) || inMacro(ColDS->getSourceRange()) ||
      inMacro(RegionFirst->getSourceRange()) ||
      inMacro(Body->body_back()->getSourceRange()))
    return Refuse("the code comes from a macro expansion");

  // --- launch-site edits ---------------------------------------------------------
  bool AllInt = true;
  for (const VarDecl *A : Accs)
    if (!A->getType()->isIntegerType())
      AllInt = false;
  FixIt Fix = reductionFix(!AllInt);
  // The split row loop's rows run in parallel: a buffer it writes must not
  // overlap one it reads (or the fix is offered for --verify=run only).
  if (Map)
    for (const ParmVarDecl *W : Map->Written)
      for (const ParmVarDecl *R : Map->Accessed) {
        std::string How, NotWhy;
        if (R == W || provenDistinct(Ctx, context(), K, W, R, How, NotWhy))
          continue;
        Fix.Proven = false;
        note(Fd, W->getLocation(),
             "assumes '" + W->getNameAsString() + "' and '" +
                 R->getNameAsString() +
                 "' do not overlap (not proven: the fix needs --verify=run)");
      }
  std::string S_M = std::to_string(Mult);
  if (Mult > 1)
    for (const CUDAKernelCallExpr *Site : launchSitesOf(Ctx, context(), K)) {
      const CallExpr *Cfg = Site->getConfig();
      if (!Cfg || Cfg->getNumArgs() < 1)
        return Refuse("a launch site has no visible configuration");
      const Expr *G = writtenLaunchDim(Cfg->getArg(0));
      if (!G)
        return Refuse("a launch's grid is not a simple expression");
      G = G->IgnoreParens();
      std::string EW;
      auto EditOf = [&](const Expr *X,
                        const std::string &New) -> std::optional<TextEdit> {
        auto R = editableRange(
            Ctx, CharSourceRange::getTokenRange(X->getSourceRange()), EW);
        if (!R)
          return std::nullopt;
        return makeTextEdit(Ctx, *R, New);
      };
      // The whole grid expression is replaced by one that contains it (the
      // verifier derives the candidate's launch from that).
      std::string GT = sourceText(Ctx, G->getSourceRange());
      std::optional<TextEdit> Ed;
      if (G->getType()->isIntegralOrEnumerationType())
        Ed = EditOf(G, "(" + GT + ") * " + S_M);
      else if (isa<DeclRefExpr>(G) ||
               (isa<CXXConstructExpr>(G) &&
                llvm::all_of(cast<CXXConstructExpr>(G)->arguments(),
                             [&](const Expr *A) {
                               return isa<CXXDefaultArgExpr>(A) ||
                                      isPure(Ctx, A);
                             })))
        Ed = EditOf(G, "dim3((" + GT + ").x * " + S_M + ", (" + GT +
                           ").y, (" + GT + ").z)");
      else
        return Refuse("the grid '" + GT +
                      "' is not an integer, a dim3 variable or dim3(...)");
      if (!Ed || GT.empty())
        return Refuse(EW.empty() ? "a grid comes from a macro expansion" : EW);
      Fix.Edits.push_back(*Ed);
      note(Fd, Site->getBeginLoc(),
           "grid multiplied by " + S_M + " at this launch");
    }

  // --- the kernel -----------------------------------------------------------------
  std::string NT = freshName(Ctx, context(), K, "cudal1_t");
  std::string NSeg = freshName(Ctx, context(), K, "cudal1_seg");
  std::string NNSeg = freshName(Ctx, context(), K, "cudal1_nseg");
  std::string NQ = freshName(Ctx, context(), K, "cudal1_q");
  std::vector<std::string> NPart;
  for (const VarDecl *A : Accs)
    NPart.push_back(
        freshName(Ctx, context(), K, "cudal1_part_" + A->getName().str()));
  std::string I0 = indentOf(Ctx, ColDS->getBeginLoc());
  std::string CWu = S_CW + "u";
  // Declarations before the column's.
  {
    std::string T;
    T += "// cuda-l1 " + std::string(RuleId) + ": " + S_CW +
         " columns per block, the block's threads split the rows\n" + I0 +
         "// (partial sums combined in shared memory in a fixed order).\n" +
         I0;
    T += "const unsigned int " + NT +
         " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
         "threadIdx.z);\n" +
         I0;
    T += "const unsigned int " + NSeg + " = " + NT + " / " + CWu + ";\n" + I0;
    T += "const unsigned int " + NNSeg +
         " = blockDim.x * blockDim.y * blockDim.z / " + CWu + ";\n" + I0;
    for (unsigned N = 0; N < Accs.size(); ++N)
      T += "__shared__ " + spelledType(Ctx, Accs[N]) + " " + NPart[N] +
           "[1024];\n" + I0;
    Fix.Edits.push_back(
        makeInsertion(Ctx, SM.getExpansionLoc(ColDS->getBeginLoc()), T));
  }
  // The column.
  {
    std::string NewInit = "blockIdx.x * " + CWu + " + " + NT + " % " + CWu;
    if (Ctx.getTypeSize(Col->V->getType()) > 32)
      NewInit = "(" + spelledType(Ctx, Col->V) + ")blockIdx.x * " + CWu +
                " + " + NT + " % " + CWu;
    std::string EW;
    auto R = editableRange(
        Ctx, CharSourceRange::getTokenRange(Col->V->getInit()->getSourceRange()),
        EW);
    if (!R)
      return Refuse(EW);
    Fix.Edits.push_back(makeTextEdit(Ctx, *R, NewInit));
  }
  // The two phases.
  std::string IVT = spelledType(Ctx, IV);
  std::string K0T = sourceText(Ctx, LS->Init->getSourceRange());
  if (!isSimpleText(LS->Init))
    K0T = "(" + K0T + ")";
  std::string IncT = IV->getName().str() + " += (" + IVT + ")" + NNSeg;
  std::string LoopT =
      rewrittenText(Ctx, LoopS,
                    {{LS->Init, K0T + " + (" + IVT + ")" + NSeg},
                     {Loop->getInc(), IncT}});
  if (LoopT.empty() || K0T.empty())
    return Refuse("the loop's text cannot be read");
  if (!isa<CompoundStmt>(Loop->getBody()))
    LoopT += ";"; // the token range ends before the body's ';'

  bool Inv = false;
  SourceLocation LoopB = SM.getExpansionLoc(LoopS->getBeginLoc());
  std::string ProT;
  if (!Prologue.empty())
    ProT = trimRight(textBetween(
        Ctx, SM.getExpansionLoc(Prologue.front()->getBeginLoc()), LoopB, Inv));
  // The declarations of the prologue that a later phase needs: those
  // declaring \p Needed, and what they read in turn (the other copies would
  // be unused variables).
  auto NeededPrologue = [&](std::set<const VarDecl *> Needed) {
    // A local array's size may name a variable no initialiser reads:
    // then every declaration is kept.
    bool Arrays = llvm::any_of(Prologue, [](const Stmt *S) {
      return llvm::any_of(cast<DeclStmt>(S)->decls(), [](const Decl *D) {
        const auto *V = dyn_cast<VarDecl>(D);
        return !V || !V->getType()->isScalarType();
      });
    });
    if (Arrays)
      return ProT;
    std::string Text;
    for (const DeclStmt *DS : neededDecls(Prologue, Needed))
      Text += (Text.empty() ? "" : "\n") +
              textBetween(Ctx, SM.getExpansionLoc(DS->getBeginLoc()),
                          stmtEnd(Ctx, DS), Inv);
    return Text;
  };
  std::string EpiT, MapT;
  std::vector<std::string> EpiDeclT;
  std::vector<const VarDecl *> Phase3Accs; // sums the row loop reads
  std::string ProT3; // the declarations before the sums that phase 3 reads
  if (Map) {
    // Segment 0 runs the code before the row loop up to its last statement
    // that is not a declaration; the declarations after it only serve the
    // loop and go to phase 3 as written, with those before it that the loop
    // or a later declaration reads.
    auto LastStore = std::find_if(EpiPre.rbegin(), EpiPre.rend(),
                                  [](const Stmt *S) { return !isa<DeclStmt>(S); });
    if (LastStore != EpiPre.rend())
      EpiT = trimLeft(textBetween(Ctx, stmtEnd(Ctx, LoopS),
                                  stmtEnd(Ctx, *LastStore), Inv));
    std::set<const VarDecl *> Needed = varsRead(Map->S);
    std::vector<const Stmt *> Phase3(LastStore.base(), EpiPre.end());
    for (const Stmt *S : Phase3)
      for (const VarDecl *V : varsRead(S))
        Needed.insert(V);
    for (const DeclStmt *DS : neededDecls(
             ArrayRef<const Stmt *>(EpiPre).take_front(
                 LastStore.base() - EpiPre.begin()),
             Needed))
      EpiDeclT.push_back(textBetween(
          Ctx, SM.getExpansionLoc(DS->getBeginLoc()), stmtEnd(Ctx, DS), Inv));
    if (!Phase3.empty())
      EpiDeclT.push_back(textBetween(
          Ctx, SM.getExpansionLoc(Phase3.front()->getBeginLoc()),
          stmtEnd(Ctx, Phase3.back()), Inv));
    for (const VarDecl *A : Accs)
      if (Needed.count(A))
        Phase3Accs.push_back(A);
    // The declarations before the sums that phase 3 reads (a restored sum's
    // own declaration among them).
    ProT3 = NeededPrologue(Needed);
    const VarDecl *MIV = Map->LS.IV;
    std::string MIVT = spelledType(Ctx, MIV);
    std::string M0T = sourceText(Ctx, Map->LS.Init->getSourceRange());
    if (!isSimpleText(Map->LS.Init))
      M0T = "(" + M0T + ")";
    MapT = rewrittenText(
        Ctx, Map->S,
        {{Map->LS.Init, M0T + " + (" + MIVT + ")" + NSeg},
         {Map->L->getInc(),
          MIV->getName().str() + " += (" + MIVT + ")" + NNSeg}});
    if (MapT.empty() || M0T.empty())
      return Refuse("the row loop after the sums cannot be read");
    if (!isa<CompoundStmt>(Map->L->getBody()))
      MapT += ";";
  } else if (!Epilogue.empty())
    EpiT = trimLeft(
        textBetween(Ctx, stmtEnd(Ctx, LoopS), stmtEnd(Ctx, Epilogue.back()),
                    Inv));
  if (Inv)
    return Refuse("the code around the loop cannot be read");
  // Text of the core is indented as the guard's block (or the kernel body):
  // one level deeper than I0 in the rewrite (two in an outer loop).
  std::string OuterHead;
  if (Outer) {
    OuterHead = trimRight(textBetween(
        Ctx, SM.getExpansionLoc(Outer->getBeginLoc()),
        SM.getExpansionLoc(Outer->getBody()->getBeginLoc()), Inv));
    if (Inv || OuterHead.empty())
      return Refuse("the loop around the sums cannot be read");
  }
  std::string IOut = I0;
  if (Outer)
    I0 += "  ";
  std::string CI = I0 + "  ";
  std::string Extra = GuardIf ? "" : "  ";
  auto Block2 = [&](const std::string &Text) {
    return CI + reindent(Text, Extra) + "\n";
  };
  std::string T;
  T += (Guard.empty() ? "{" : "if (" + Guard + ") {") + std::string("\n");
  if (!ProT.empty())
    T += Block2(ProT);
  if (!NonZero.empty()) {
    T += CI + "if (" + NSeg + " != 0u) {\n";
    for (const VarDecl *A : NonZero)
      T += CI + "  " + A->getName().str() + " = 0;\n";
    T += CI + "}\n";
  }
  T += Block2(LoopT);
  for (unsigned N = 0; N < Accs.size(); ++N)
    T += CI + NPart[N] + "[" + NT + "] = " + Accs[N]->getName().str() + ";\n";
  T += I0 + "}\n";
  T += I0 + "__syncthreads();\n";
  T += I0 + "if (" + NSeg + " == 0u" + (Guard.empty() ? "" : " && " + Guard2) +
       ") {\n";
  {
    // Phase 2 declares the sums and what the code after the loop reads.
    std::set<const VarDecl *> Needed(Accs.begin(), Accs.end());
    std::vector<const Stmt *> Epi2 =
        Map ? std::vector<const Stmt *>(
                  EpiPre.begin(),
                  std::find_if(EpiPre.rbegin(), EpiPre.rend(),
                               [](const Stmt *S) { return !isa<DeclStmt>(S); })
                      .base())
            : Epilogue;
    for (const Stmt *S : Epi2)
      for (const VarDecl *V : varsRead(S))
        Needed.insert(V);
    std::string ProT2 = NeededPrologue(Needed);
    if (!ProT2.empty())
      T += Block2(ProT2);
  }
  for (unsigned N = 0; N < Accs.size(); ++N)
    T += CI + Accs[N]->getName().str() + " = " + NPart[N] + "[" + NT +
         "];\n";
  T += CI + "for (unsigned int " + NQ + " = 1u; " + NQ + " < " + NNSeg +
       "; ++" + NQ + ")" + (Accs.size() > 1 ? " {" : "") + "\n";
  for (unsigned N = 0; N < Accs.size(); ++N)
    T += CI + "  " + Accs[N]->getName().str() + " += " + NPart[N] + "[" + NT +
         " + " + CWu + " * " + NQ + "];\n";
  if (Accs.size() > 1)
    T += CI + "}\n";
  if (!EpiT.empty())
    T += Block2(EpiT);
  if (Map) {
    // Phase 3: the combined sums through shared memory (segment 0's slots),
    // then every segment takes its rows of the loop.
    for (unsigned N = 0; N < Accs.size(); ++N)
      if (llvm::is_contained(Phase3Accs, Accs[N]))
        T += CI + NPart[N] + "[" + NT + "] = " + Accs[N]->getName().str() +
             ";\n";
    T += I0 + "}\n";
    T += I0 + "__syncthreads();\n";
    T += I0 + (Guard.empty() ? "{" : "if (" + Guard + ") {") + "\n";
    if (!ProT3.empty())
      T += Block2(ProT3);
    for (unsigned N = 0; N < Accs.size(); ++N)
      if (llvm::is_contained(Phase3Accs, Accs[N]))
        T += CI + Accs[N]->getName().str() + " = " + NPart[N] + "[" + NT +
             " % " + CWu + "];\n";
    for (const std::string &D : EpiDeclT)
      T += Block2(trimLeft(D));
    T += Block2(MapT);
  }
  T += I0 + "}";
  if (Outer)
    T = OuterHead + " {\n" + I0 + T + "\n" + I0 + "__syncthreads();\n" +
        IOut + "}";
  SourceLocation RB = SM.getExpansionLoc(RegionFirst->getBeginLoc());
  SourceLocation RE = stmtEnd(Ctx, Body->body_back());
  std::string EW;
  auto RR = editableRange(Ctx, CharSourceRange::getCharRange(RB, RE), EW);
  if (!RR)
    return Refuse(EW);
  Fix.Edits.push_back(makeTextEdit(Ctx, *RR, T));
  Fix.Description = "split each column's rows across the block: " + S_CW +
                    " columns per block, partial sums combined in shared "
                    "memory in a fixed order" +
                    std::string(Map ? "; the row loop after the sums split "
                                      "the same way"
                                    : "") +
                    "; grid x" + S_M;
  Fd.Fix = std::move(Fix);
  report(std::move(Fd));
}

} // namespace cudal1
