//===- SyncWarpAtomicReduction.cpp - sync-warp-atomic-reduction -----------===//
//
// sync-warp-atomic-reduction: an atomicAdd (or an integer atomicMax, Min,
// Or, And, Xor) of every thread to one address, in global or shared memory,
// becomes a warp-shuffle reduction and one atomic per block (through shared
// memory; per warp for a shared-memory accumulator). Every lane
// of every warp must reach it (statement at the top level of the kernel,
// optionally under one `if (cond)`, no earlier return) and the block size
// must be a multiple of 32. An atomic among other statements of a guard's
// block at the top of the kernel gets its value summed in a register
// declared before the guard and reduced after it. Integers: bitwise;
// floating point: reassociating.
//
//===----------------------------------------------------------------------===//
#include "SyncWarpAtomicReduction.h"
#include "GridStride.h"
#include "ReadsData.h"
#include "../AccessNotes.h"
#include "../StoreTarget.h"
#include "../coalescing/RowWalk.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>
#include <set>
#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo SyncWarpAtomicReduction::info() const {
  RuleInfo I;
  I.Id = "sync-warp-atomic-reduction";
  I.Category = "sync";
  I.Summary = "every thread does an atomic add/max/min/or/and/xor on one "
              "address -> warp-shuffle reduction, then one atomic per block";
  I.Exactness = Exactness::Reassociating;
  I.Help = "An atomic from every thread to the same address (global or "
           "shared memory) serialises the grid's updates in one queue. "
           "Reducing with __shfl_down_sync first, then across the block's "
           "warps through shared memory, leaves one atomic per block (per "
           "warp for a shared-memory accumulator). atomicAdd of any shuffled type; atomicMax, atomicMin, "
           "atomicOr, atomicAnd, atomicXor of CUDA's integer overloads. "
           "Every lane must reach the atomic (no earlier return, only one "
           "guard, block size a multiple of 32). A guarded `if (i < n)` "
           "atomic whose launches are all in the file also gets a grid of "
           "at most 2048 blocks, each thread first combining the values of "
           "several of the original blocks. Bitwise for integers, "
           "reassociating for floating point.";
  I.ExactnessNote =
      "reassociating (bitwise for integer types)";
  I.Doc.Detects =
      "`atomicAdd(addr, v)` executed by every thread with an address that "
      "is the same for all threads of a block (`sum`, `&out[0]`, "
      "`&partial[blockIdx.x]`, a `__shared__` accumulator `&block_sum`), "
      "and the same for CUDA's integer `atomicMax`, `atomicMin`, "
      "`atomicOr`, `atomicAnd` and `atomicXor` (`atomicMax(max_bits, "
      "__float_as_int(x[i]))`). An atomic whose old value is used (`pos = "
      "atomicAdd(&count, 1)`) and a program's own atomics (a float "
      "`atomicMin` built on `atomicCAS`) are not this rule's. The guard "
      "may test data: `if (x < n && y < n && board[y * n + x] == 1) "
      "atomicAdd(count, 1)` counts matching cells, every lane taking part; "
      "an `==` that does not read memory (`if (threadIdx.x == 0)`, `if "
      "(lane == 0)`) picks one thread per block or warp and is not "
      "reported, nor is an atomic under a test for a non-finite value "
      "(`if (!isfinite(x[i])) atomicAdd(bad, 1u)`, `isnan`, `isinf`): an "
      "error count, which correct input leaves at zero; a block reduction "
      "would add a barrier to every block to save atomics that do not "
      "happen. Nor is an integer atomic to the block's own word in global "
      "memory (an address that moves with `blockIdx`: "
      "`&counts[blockIdx.x]`, `distance + n * blockIdx.x + blockIdx.y`) "
      "when every launch's block has at most 256 threads: the compiler "
      "merges each warp's updates, so at most 8 meet there per round, and "
      "a block reduction with its barrier does not beat that (on an H100, "
      "`utils/experiments/atomic-per-block.cu`: 0.78x to 1.16x for blocks "
      "of 128 and 256 threads; 2.9x for 1024-thread blocks adding 8 times "
      "each, which stay reported, as do blocks of unknown size). A "
      "floating-point atomic to the block's own word is reported (each "
      "lane's update queues: 5.6x to 125x rewritten in that experiment). "
      "Nor is a 32-bit integer atomic to one global word in the kernel's "
      "body beside a counted loop of at least 64 iterations (a known "
      "count: a constant or a parameter every launch passes as one) that "
      "runs whenever it does (coalescing-uncoalesced-access's "
      "once-per-thread test): the warps' merged updates drain while the "
      "other warps run their loops (H200, "
      "`utils/experiments/atomic-after-loop.cu`: an integer count after T "
      "register-only iterations per thread, 2^20 threads, rewritten 3.5x "
      "for T = 1, 2.1x for 16, 0.97x for 64, 1.00x for 256 to 4096; "
      "feynman-kac's count of the points inside, before 1000 walks each). "
      "Floating-point atomics there stay reported (13x at T = 256 in the "
      "same experiment).";
  I.Doc.WhySlow =
      "Atomics to one address are serialised in the L2 slice that owns it: "
      "the whole grid's updates form one queue. For integer operations the "
      "compiler already combines a warp's atomics to one uniform address "
      "(measured on the H200: reducing within the warp alone left a "
      "per-element atomicMax kernel at 1.00x), so the queue only shortens "
      "when each block issues one atomic. Floating-point sums are not "
      "combined: each thread's update queues, and a loop of the thread's "
      "own before the atomic does not hide them (measured on an H100, "
      "utils/experiments/atomic-after-loop.cu: 2^20 threads each adding "
      "one float after a loop of T iterations took 1.85 ms for T = 1 to "
      "64 whatever the loop, against 0.014 ms rewritten for T = 1; still "
      "2.0x for T = 256 iterations of a per-thread row walk, 5.7x of "
      "coalesced loads, 13x of register-only work). Shared-memory atomics "
      "to one word are serialised per lane.";
  I.Doc.Example = R"cuda(int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i < n)
  atomicAdd(sum, in[i]);                 // warning)cuda";
  I.Doc.Fix =
      "```cuda\n"
      "{ // cuda-l1 sync-warp-atomic-reduction\n"
      "  float cudal1_v = (i < n) ? (float)(in[i]) : (float)0;\n"
      "  for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n"
      "    cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);\n"
      "  __shared__ float cudal1_w[32];\n"
      "  if ((threadIdx.x & 31u) == 0u)\n"
      "    cudal1_w[(threadIdx.x >> 5)] = cudal1_v;\n"
      "  __syncthreads();\n"
      "  if ((threadIdx.x >> 5) == 0u) {\n"
      "    cudal1_v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? "
      "cudal1_w[(threadIdx.x & 31u)] : (float)0;\n"
      "    for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n"
      "      cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);\n"
      "    if ((threadIdx.x & 31u) == 0u)\n"
      "      atomicAdd(sum, cudal1_v);\n"
      "  }\n"
      "}\n"
      "```\n"
      "\n"
      "One atomic per block for a global address: every thread of the "
      "block reaches the reduction (it stands at the top level of the "
      "kernel, after no return), so the barrier is safe. A `__shared__` "
      "accumulator (`atomicAdd(&block_sum, x[i])`) gets the warp stage "
      "only: one shared atomic per warp. Inactive lanes contribute the operation's "
      "identity (0 for add, or, xor; all ones for and; the type's smallest "
      "value for max and largest for min). Floating-point sums are "
      "reassociated (tolerance); integer sums and every max, min, or, and, "
      "xor are exact. A maximum combines with `{ int cudal1_t = "
      "__shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o); if (cudal1_t > "
      "cudal1_v) cudal1_v = cudal1_t; }`, lanes outside the guard "
      "contributing `(int)(-2147483647 - 1)`.\n"
      "\n"
      "Verification (`--fix --verify=run`): the original adds one term per "
      "thread, one after another, and is itself only good to about 2(n-1)u "
      "of the sum for n terms (u = 2^-24 for float). The fix names the "
      "atomic's pointer parameter (`grid_sum_outputs` in the JSON), and the "
      "verifier compares that buffer within rtol 2(n-1)u for n = the "
      "launch's thread count, at least the default 1e-4 and at most 1e-2, "
      "with a note saying so (1M threads: 1e-2; measured on the H200, "
      "spmv_csr's 1M-term residual differs by 5.6e-4 between the two "
      "orders). Other buffers keep the default tolerance. For a "
      "`__shared__` accumulator, the parameters that a later atomicAdd "
      "adds it into are named instead (`atomicAdd(sum, block_sum)`).\n"
      "\n"
      "When the atomic sits deeper in a statement of the kernel body (one "
      "of several statements of a guard's block: `if (row < n) { float r "
      "= b[row] - y[row]; x[row] += r / d[row]; atomicAdd(res, r * r); }`; "
      "a grid-stride loop: `for (i = tid; i < n; i += stride) "
      "atomicAdd(sum, x[i]);`; a loop over a thread's items, an `else` "
      "branch), each thread's values go to a register declared before "
      "that statement (`float cudal1_v = 0;`, `cudal1_v += (float)(x[i]);` "
      "in place of the atomic) and the shuffle reduction and the one "
      "atomic follow the statement, where every lane is again, however "
      "many times each lane reached the atomic. Several such atomics in "
      "one statement (a sum and a count) get one fix each, applied in "
      "successive rounds. The statement must not return early, hold no "
      "compare-and-swap or exchange and no fence or barrier, and the "
      "address must use only names declared outside it and never "
      "assigned; the pointer is used nowhere else in the kernel (a "
      "`__shared__` accumulator: nowhere else in the statement). An atomic "
      "under an `if` that picks one thread (`if (lane == 0)`, `if "
      "(threadIdx.x == 0)`) is not reported: it already issues one atomic "
      "per warp or block.\n"
      "\n"
      "Lanes and warps are numbered from `threadIdx.x` when every launch "
      "of the kernel is in the file (its name used only in `<<<>>>` "
      "launches) with a 1-D block; otherwise from the linear thread index "
      "`(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
      "threadIdx.x`, so that a 2-D launch elsewhere still groups whole "
      "warps. When the block size is not known to be a multiple of 32 at "
      "every launch (read from the command line, or launches out of view), "
      "the reduction sits behind `if (((blockDim.x * blockDim.y * "
      "blockDim.z) & 31u) == 0u)`, the same for the whole block, and other "
      "blocks do one atomic per thread of its register.\n"
      "\n"
      "## Grid-stride form\n"
      "\n"
      "One atomic per block is still one per original block: a "
      "16M-element sum launched as 65536 blocks of 256 threads queues "
      "65536 atomics on one address (measured on the H200, "
      "utils/experiments/atomic-grid-stride.cu: a 64 MiB maximum took "
      "63 us as 65536 blocks after the warp reduction, 32 us as 2048 "
      "blocks each covering 32 of them; returning early from the surplus "
      "blocks of an unchanged launch does not help, 65536 empty blocks "
      "alone take 41 us). When the atomic is guarded by `if (i < n)` "
      "(or `n > i`) with `i = blockIdx.x * blockDim.x + threadIdx.x` "
      "declared at the top of the kernel, every launch of the kernel is "
      "in the file with its grid, block and `n` written at the launch, "
      "and one of those grids is not a constant of at most 2048 blocks, "
      "the launches keep at most 2048 blocks and each thread first "
      "combines, in its register, the values of its lane in the original "
      "blocks `blockIdx.x`, `blockIdx.x + gridDim.x`, ...:\n"
      "\n"
      "```cuda\n"
      "float cudal1_v = (float)0;\n"
      "for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * "
      "blockDim.x < (long long)(n); cudal1_b += gridDim.x) {\n"
      "  int i = cudal1_b * blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    cudal1_v += (float)(in[i]);\n"
      "}\n"
      "// ... the warp and block reduction as above\n"
      "\n"
      "total<<<((blocks) < 2048 ? (blocks) : 2048), 256>>>(in, sum, "
      "((int)(n) < 1ll * (blocks) * (256) ? (int)(n) : 1ll * (blocks) * "
      "(256)));\n"
      "```\n"
      "\n"
      "The launch passes `min(n, grid.x * block.x)` for `n`: the elements "
      "the original's grid reached, so a grid that does not reach `n` "
      "keeps its meaning; a dim3 grid becomes `dim3((grid).x < 2048u ? "
      "(grid).x : 2048u, (grid).y, (grid).z)`. The index declaration moves "
      "into the loop. `i < n` may be one operand of a chain of `&&` (`i < "
      "n && x[i] > t`), and the index may run along y: a 2-D count `if (x "
      "< width && y < height && edges[y * width + x] == 255)` with `y = "
      "blockIdx.y * blockDim.y + threadIdx.y` keeps its grid's x and z "
      "extent and takes `2048 / (grid.x * grid.z)` rows of blocks (at "
      "least one), looping over `blockIdx.y + k * gridDim.y`, with "
      "`min(height, grid.y * block.y)` passed for `height` (y is tried "
      "first, so that warps still read along rows; the conditions below "
      "then apply to y, `blockIdx.y` and `gridDim.y`). The kernel must read `blockIdx.x` (or the whole "
      "`blockIdx`), the index and `n` nowhere else and `gridDim.x` "
      "nowhere, call none of the "
      "program's own functions (which could read `blockIdx`) nor "
      "cooperative groups, and have no other effect outside its block "
      "(no other atomic, no store to global memory: fewer blocks run it); "
      "a `__shared__` accumulator may only be added on whole by the same "
      "operation (`atomicAdd(sum, block_sum)`), and an "
      "unsigned comparison must not hold a signed `n` (a negative `n` "
      "passes every index there). Integers stay bitwise; a sum is "
      "reassociated as before. `--verify=run` runs the candidate with "
      "the capped grid and the harness's arguments, after checking that "
      "the new `n` argument evaluates to the harness's `n` (its grid "
      "covers `n`); otherwise the fix is not verified.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- a statement before the atomic, or the statement holding it, may "
      "return early;\n"
      "- the statement holding the atomic has an `atomicCAS` or "
      "`atomicExch` (a lock or a flag), a fence, a barrier or asm; the address uses names declared or assigned inside "
      "it; or the pointer is used elsewhere in the kernel;\n"
      "- a launch in the file has a constant block that is not a multiple "
      "of 32 (the full-mask shuffle needs full warps);\n"
      "- the value type has no warp shuffle, the kernel already uses "
      "shuffles, or the code comes from a macro.";
  return I;
}

namespace {
/// The atomics this rule reduces within a warp first: associative and
/// commutative, so the per-warp result is the same whatever the order
/// (bitwise for integers; a floating-point sum is reassociated).
enum class AtomicOp { Add, Max, Min, Or, And, Xor };

std::optional<AtomicOp> atomicOpOf(StringRef Name) {
  return StringSwitch<std::optional<AtomicOp>>(Name)
      .Case("atomicAdd", AtomicOp::Add)
      .Case("atomicMax", AtomicOp::Max)
      .Case("atomicMin", AtomicOp::Min)
      .Case("atomicOr", AtomicOp::Or)
      .Case("atomicAnd", AtomicOp::And)
      .Case("atomicXor", AtomicOp::Xor)
      .Default(std::nullopt);
}

const char *opWord(AtomicOp Op) {
  switch (Op) {
  case AtomicOp::Add:
    return "sum";
  case AtomicOp::Max:
    return "maximum";
  case AtomicOp::Min:
    return "minimum";
  case AtomicOp::Or:
    return "or";
  case AtomicOp::And:
    return "and";
  case AtomicOp::Xor:
    return "xor";
  }
  return "";
}

/// The value that leaves a reduction unchanged, for a lane that has none
/// (outside the guard), written for canonical type \p Tc; "" when none.
std::string identityOf(AtomicOp Op, StringRef Tc) {
  bool I32 = Tc == "int", U32 = Tc == "unsigned int",
       I64 = Tc == "long long", U64 = Tc == "unsigned long long";
  switch (Op) {
  case AtomicOp::Add:
  case AtomicOp::Or:
  case AtomicOp::Xor:
    return "0";
  case AtomicOp::And:
    return U64 ? "0xffffffffffffffffull" : U32 ? "0xffffffffu" : I32 ? "-1"
         : I64 ? "-1ll" : "";
  case AtomicOp::Max:
    return I32 ? "(-2147483647 - 1)" : U32 ? "0u" : U64 ? "0ull"
         : I64 ? "(-9223372036854775807ll - 1)" : "";
  case AtomicOp::Min:
    return I32 ? "2147483647" : U32 ? "0xffffffffu"
         : U64 ? "0xffffffffffffffffull" : I64 ? "9223372036854775807ll" : "";
  }
  return "";
}

/// `V op= X` for the reduction (X evaluated once).
std::string combine(AtomicOp Op, const std::string &V, const std::string &T,
                    const std::string &X) {
  switch (Op) {
  case AtomicOp::Add:
    return V + " += " + X + ";";
  case AtomicOp::Or:
    return V + " |= " + X + ";";
  case AtomicOp::And:
    return V + " &= " + X + ";";
  case AtomicOp::Xor:
    return V + " ^= " + X + ";";
  case AtomicOp::Max:
  case AtomicOp::Min:
    return "{ " + T + " cudal1_t = " + X + "; if (cudal1_t " +
           (Op == AtomicOp::Max ? ">" : "<") + " " + V + ") " + V +
           " = cudal1_t; }";
  }
  return "";
}

/// The `__shared__` variable \p Addr points into (`&s`, `&s[e]`, `s`, `s +
/// e` for a shared scalar or array); null otherwise.
const VarDecl *sharedRoot(const Expr *Addr) {
  const Expr *E = Addr->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    E = U->getSubExpr()->IgnoreParenImpCasts();
  while (true) {
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase()->IgnoreParenImpCasts();
    else if (const auto *B = dyn_cast<BinaryOperator>(E);
             B && B->isAdditiveOp() &&
             B->getLHS()->getType()->isPointerType())
      E = B->getLHS()->IgnoreParenImpCasts();
    else
      break;
  }
  const auto *D = dyn_cast<DeclRefExpr>(E);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!V || !V->hasAttr<CUDASharedAttr>() || V->getType()->isPointerType())
    return nullptr;
  return V;
}

/// \p S holds a test for a non-finite value (isnan, isinf, isfinite).
bool testsNonFinite(const Stmt *S) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *C = dyn_cast<CallExpr>(X))
      if (const FunctionDecl *FD = C->getDirectCallee())
        if (FD->getIdentifier()) {
          StringRef N = FD->getName();
          N.consume_front("__");
          if (N.starts_with("isnan") || N.starts_with("isinf") ||
              N.starts_with("isfinite") || N.starts_with("finite"))
            Found = true;
        }
  });
  return Found;
}

/// Guards under which the atomic is rare, not this pattern: `if (tid ==
/// 0)`-style guards pick one thread (per warp or block); a test for a
/// non-finite value (`!isfinite(x[i])`, `isnan(v)`, or `if (bad != 0)`
/// where the kernel \p Body computes `bad` from such tests) counts errors,
/// which a correct input does not have: a block reduction would add a
/// barrier to every block to save atomics that do not happen.
bool rareGuard(const Expr *Cond, const Stmt *Body) {
  bool Rare = testsNonFinite(Cond);
  forEachStmt(Cond, [&](const Stmt *X) {
    // A local the kernel sets from non-finite tests (a count of them).
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
          V && V->isLocalVarDecl() && !Rare) {
        if (V->getInit() && testsNonFinite(V->getInit()))
          Rare = true;
        forEachStmt(Body, [&](const Stmt *Y) {
          const auto *B = dyn_cast<BinaryOperator>(Y);
          if (!B || !B->isAssignmentOp())
            return;
          const auto *L = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens());
          if (L && L->getDecl() == V && testsNonFinite(B->getRHS()))
            Rare = true;
        });
      }
    // `tid == 0`, `lane == 0`; not a test of data (`board[i] == 1`
    // counts the matching elements: every lane takes part).
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->getOpcode() == BO_EQ && !readsData(B->getLHS()) &&
          !readsData(B->getRHS()))
        Rare = true;
  });
  return Rare;
}

/// Where and how the reduction is written.
struct ReductionText {
  AtomicOp Op;
  std::string Callee, VTs, V, Identity, AddrText;
  /// The thread's lane, its warp in the block, the warps of the block.
  std::string Lane, WarpId, NWarps;
  /// A global address: the warps' results meet in shared memory and one
  /// thread per block does the atomic (one per warp is still one queue per
  /// address: the compiler already issues one atomic per warp for a
  /// uniform address). Empty for a shared-memory accumulator.
  std::string BlockArray;
  /// When the block size is not known to be a multiple of 32 at every
  /// launch: the block-uniform test that picks the shuffle reduction (full
  /// warps) or, for other blocks, one atomic per thread of its register.
  std::string FullWarpsTest;
};

/// The shuffle reduction of \p R.V over the warp (lines indented with \p I).
std::string warpReduce(const ReductionText &R, const std::string &I) {
  return I + "for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n" + I +
         "  " +
         combine(R.Op, R.V, R.VTs,
                 "__shfl_down_sync(0xffffffffu, " + R.V + ", cudal1_o)") +
         "\n";
}

/// The reduction of every thread's R.V and the one atomic (per warp for a
/// shared-memory accumulator, per block for a global address), lines
/// indented with \p I1. Every thread of the block runs it.
std::string reduceAndAtomic(const ReductionText &R, const std::string &I1) {
  std::string T = warpReduce(R, I1);
  std::string I = I1;
  if (!R.BlockArray.empty()) {
    T += I1 + "__shared__ " + R.VTs + " " + R.BlockArray + "[32];\n";
    T += I1 + "if (" + R.Lane + " == 0u)\n";
    T += I1 + "  " + R.BlockArray + "[" + R.WarpId + "] = " + R.V + ";\n";
    T += I1 + "__syncthreads();\n";
    T += I1 + "if (" + R.WarpId + " == 0u) {\n";
    I = I1 + "  ";
    T += I + R.V + " = " + R.Lane + " < " + R.NWarps + " ? " + R.BlockArray +
         "[" + R.Lane + "] : (" + R.VTs + ")" + R.Identity + ";\n";
    T += warpReduce(R, I);
  }
  T += I + "if (" + R.Lane + " == 0u)\n";
  T += I + "  " + R.Callee + "(" + R.AddrText + ", " + R.V + ");\n";
  if (!R.BlockArray.empty())
    T += I1 + "}\n";
  return T;
}

/// reduceAndAtomic, behind R.FullWarpsTest when there is one (the test is
/// the same for every thread of a block, so the barrier inside stays safe).
std::string reduction(const ReductionText &R, const std::string &I1) {
  if (R.FullWarpsTest.empty())
    return reduceAndAtomic(R, I1);
  std::string T = I1 + "if (" + R.FullWarpsTest + ") {\n";
  T += reduceAndAtomic(R, I1 + "  ");
  T += I1 + "} else {\n";
  T += I1 + "  " + R.Callee + "(" + R.AddrText + ", " + R.V + ");\n";
  T += I1 + "}\n";
  return T;
}

} // namespace

void SyncWarpAtomicReduction::runOn(ASTContext &Ctx, const CheckContext &CC,
                                    const FunctionDecl *K,
                                    const FunctionFacts &F,
                                    const KernelAnalysis *KA,
                                    std::vector<Finding> &Out) {
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (const auto *CE = dyn_cast<CallExpr>(S))
      match(Ctx, CC, K, F, KA, CE, Out);
  });
}

/// Each block's atomics go to a word of their own: the access analysis's
/// address of the atomic moves with blockIdx (`&counts[blockIdx.x]`,
/// `distance + N * blockIdx.x + blockIdx.y`), not one word for the grid
/// (`sum`, `&flags[blockIdx.x % 3]`).
static bool perBlockAddress(const KernelAnalysis *KA, const CallExpr *CE) {
  const MemAccess *A = KA ? ownAccess(*KA, CE) : nullptr;
  if (!A || !A->Address.isKnown())
    return false;
  for (const char *B : {"blockIdx.x", "blockIdx.y", "blockIdx.z"})
    if (A->Address.coefficientOf(B) != AffineExpr())
      return true;
  return false;
}

// Over 150 lines: the pattern, its legality (every lane reaches the atomic, the
// block size) and the shuffle code, sharing the matched call.
void SyncWarpAtomicReduction::match(ASTContext &Ctx, const CheckContext &CC,
                                    const FunctionDecl *K,
                                    const FunctionFacts &F,
                                    const KernelAnalysis *KA,
                                    const CallExpr *CE,
                                    std::vector<Finding> &Out) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || CE->getNumArgs() != 2)
    return;
  std::optional<AtomicOp> Op = atomicOpOf(FD->getName());
  if (!Op)
    return;
  StringRef Callee = FD->getName();
  // Max, min and the bitwise ones: CUDA's own integer overloads (a
  // program's float atomicMax built on atomicCAS is not reduced here).
  if (FD->getNumParams() < 2)
    return;
  if (*Op != AtomicOp::Add &&
      (!FD->getParamDecl(1)->getType()->isIntegerType() ||
       !Ctx.getSourceManager().isInSystemHeader(FD->getLocation())))
    return;
  const Expr *Addr = CE->getArg(0);
  // A statement of its own: an atomic whose old value is used (a slot
  // `pos = atomicAdd(&count, 1)`) gives each thread its own result.
  {
    auto Ps = Ctx.getParents(*CE);
    if (Ps.empty() || !Ps[0].get<Stmt>() || isa<Expr>(Ps[0].get<Stmt>()))
      return;
  }
  // The address: into a pointer parameter (global memory), or into a
  // __shared__ variable (a block's accumulator).
  const ParmVarDecl *P = rootPointerParam(Addr, F);
  const VarDecl *Shared = P ? nullptr : sharedRoot(Addr);
  if (!P && !Shared)
    return;
  // Address the same for every thread of the block: a local pointer
  // (`float *p = out + threadIdx.x;`) is followed to its initialiser.
  std::function<bool(const Expr *, unsigned)> UniformAddr =
      [&](const Expr *A, unsigned Depth) {
        bool Uniform = Depth < 8;
        forEachStmt(A, [&](const Stmt *S) {
          const auto *E = dyn_cast<Expr>(S);
          if (!E || !Uniform)
            return;
          if (StringRef(builtinName(E)).starts_with("threadIdx"))
            Uniform = false;
          const auto *D = dyn_cast<DeclRefExpr>(E);
          const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
          if (!V || V == Shared)
            return;
          if (!V->getType()->isPointerType()) {
            if (!isBlockUniform(D, F))
              Uniform = false;
          } else if (!isa<ParmVarDecl>(V) &&
                     (F.isMutated(V) || !V->getInit() ||
                      !UniformAddr(V->getInit(), Depth + 1))) {
            Uniform = false;
          } else if (isa<ParmVarDecl>(V) && F.isMutated(V)) {
            Uniform = false;
          }
        });
        return Uniform;
      };
  if (!UniformAddr(Addr, 0))
    return;
  const ValueDecl *Target = P ? static_cast<const ValueDecl *>(P) : Shared;
  // The type the atomic adds in: the chosen overload's (atomicAdd(double *,
  // float) adds a double), spelled as the value is where it is that type.
  QualType VT = CE->getArg(1)->getType().getUnqualifiedType();
  std::string VTs = spelledType(Ctx, VT, CE->getArg(1));
  if (FD->getNumParams() == 2) {
    QualType PT = FD->getParamDecl(1)->getType().getUnqualifiedType();
    if (!Ctx.hasSameType(PT, VT)) {
      VT = PT;
      VTs = PT.getAsString(Ctx.getPrintingPolicy());
    }
  }
  // The block's own word: for integers the compiler merges each warp's
  // updates into one, so blockDim / 32 atomics meet there per round. With
  // at most 8 warps a block reduction and its barrier do not beat that
  // (H100, utils/experiments/atomic-per-block.cu: 0.78x-1.16x for blocks
  // of 128 and 256 threads; 2.9x for 1024 threads adding 8 times each).
  // Floating-point updates are not merged: reported, as the block's queue.
  bool PerBlock = !Shared && perBlockAddress(KA, CE);
  if (PerBlock && !VT->isRealFloatingType()) {
    std::string WhyNot;
    auto B = constantBlock(CC, K, WhyNot);
    if (B && (*B)[0] * (*B)[1] * (*B)[2] <= 256)
      return;
  }
  // A 32-bit integer atomic to one global word beside a loop of at least
  // 64 iterations that runs whenever it does: the compiler merges each
  // warp's updates, and the queue of one per warp drains while the other
  // warps run their loops (H200, utils/experiments/atomic-after-loop.cu:
  // an integer count after T register-only iterations, 2^20 threads,
  // rewritten 3.5x for T = 1, 2.1x for 16, 0.97x for 64, 1.00x for 256 to
  // 4096). Floating-point updates are not merged: still reported.
  if (!Shared && VT->isIntegerType() && Ctx.getTypeSize(VT) == 32) {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation L = SM.getExpansionLoc(CE->getBeginLoc());
    if (outweighingLoopOfCode(CC, Ctx, SM.getFileID(L), SM.getFileOffset(L),
                              /*MinLongTrip=*/64))
      return;
  }
  Finding Fd = makeFinding(
      Ctx, "sync-warp-atomic-reduction", CE->getBeginLoc(),
      "every thread does an " + Callee.str() + " to the same " +
          (Shared ? "shared-memory " : "") + "address '" +
          sourceText(Ctx, Addr->getSourceRange()) + "': " +
          (Shared ? std::string("the lanes of a warp are serialised on "
                                "the shared word")
           : PerBlock && VT->isRealFloatingType()
               ? std::string("each block's updates queue at its own word, "
                             "one per thread (floating-point atomics are "
                             "not merged per warp)")
           : PerBlock
               ? std::string("each block's warps queue at its own word "
                             "(the compiler merges only a warp's updates "
                             "into one)")
           : VT->isRealFloatingType()
               ? std::string("the whole grid's updates queue, one per "
                             "thread, in the L2 slice that owns it "
                             "(floating-point atomics are not merged per "
                             "warp)")
               : std::string("the whole grid's updates queue in the L2 "
                             "slice that owns it (the compiler merges only "
                             "a warp's into one)")) +
          "; a warp-shuffle " + opWord(*Op) + " first leaves one atomic per " +
          (Shared ? "warp" : "block"),
      K);
  auto Fail = [&](const std::string &W) {
    refuse(Fd, W);
    Out.push_back(Fd);
  };
  // Shuffled as its canonical type; declared as spelled (a macro or typedef
  // for float stays that name).
  std::string VTc = VT.getCanonicalType().getAsString(Ctx.getPrintingPolicy());
  if (VTc != "float" && VTc != "double" && VTc != "int" &&
      VTc != "unsigned int" && VTc != "unsigned long long" &&
      VTc != "long long") {
    Fail("the value type '" + VTs + "' has no warp shuffle");
    return;
  }
  std::string Identity = identityOf(*Op, VTc);
  if (Identity.empty()) {
    Fail("no identity value of type '" + VTs + "' for a warp " +
         opWord(*Op));
    return;
  }
  // The call is a statement of the kernel body, or the then-branch of an
  // `if` that is.
  const auto *Body = cast<CompoundStmt>(K->getBody());
  auto P1 = Ctx.getParents(*CE);
  const Stmt *Top = CE;
  const Expr *Guard = nullptr;
  const IfStmt *GuardIf = nullptr;
  // The atomic deeper in a statement of the kernel body: one of several
  // statements of a guard's block (`if (row < n) { float r = ...; x[row] =
  // ...; atomicAdd(res, r * r); }`), inside a loop (a grid-stride loop, a
  // loop over a thread's items) or in nested branches. Each thread's values
  // go to a register declared before that statement, in place of the
  // atomic, and the reduction follows the statement, where every lane is
  // again.
  const Stmt *Around = nullptr;
  // Directly a statement of the body (not alone in a nested block).
  bool Direct = !P1.empty() && P1[0].get<CompoundStmt>() == Body;
  // The single statement under a top-level `if` without else: the guarded
  // form below (the value under the guard's condition).
  const IfStmt *SimpleIf = nullptr;
  {
    const Stmt *Par = P1.empty() ? nullptr : P1[0].get<Stmt>();
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Par);
        CS && CS->size() == 1) {
      auto P2 = Ctx.getParents(*CS);
      Par = P2.empty() ? nullptr : P2[0].get<Stmt>();
    }
    if (const auto *If = dyn_cast_or_null<IfStmt>(Par)) {
      auto P3 = Ctx.getParents(*If);
      if (!P3.empty() && P3[0].get<CompoundStmt>() == Body &&
          !If->getElse() && !If->getInit() && !If->getConditionVariable())
        SimpleIf = If;
    }
    if (!Direct && !SimpleIf) {
      // Up to the statement of the body; an `if` on the way whose
      // condition picks one thread (`if (lane == 0)`) already leaves one
      // atomic per warp or block: not this rule's.
      const Stmt *Cur = CE;
      while (true) {
        auto Ps = Ctx.getParents(*Cur);
        const Stmt *Up = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
        // A lambda's body, a statement expression or an initialiser: the
        // register and the reduction have no statement of the body to go
        // around.
        if (!Up || isa<LambdaExpr>(Up) || isa<StmtExpr>(Up)) {
          Fail("the atomic is inside a lambda, a statement expression or "
               "an initialiser");
          return;
        }
        if (const auto *If = dyn_cast<IfStmt>(Up);
            If && If->getThen() == Cur && rareGuard(If->getCond(), Body))
          return;
        if (Up == Body) {
          Around = Cur;
          break;
        }
        Cur = Up;
      }
    }
  }
  if (Around) {
    if (containsEscape(Around, false)) {
      Fail("the statement holding the atomic may return early: not every "
           "lane of a warp would reach the reduction after it");
      return;
    }
    // Other read-modify-write atomics (another sum, a count) stay where
    // they are: relaxed atomics to other addresses have no order to keep.
    // A compare-and-swap or an exchange may build a lock or publish a flag
    // around this one.
    bool Atomics = containsCallTo(Around, {"atomicCAS*", "atomicExch*"});
    bool Ordering =
        containsCallTo(Around, {"__nv_atomic*", "__atomic*", "__threadfence*",
                                "__sync*"});
    forEachStmt(Around, [&](const Stmt *X) { Ordering |= isa<AsmStmt>(X); });
    // The atomic moves after the statement: nothing in it may order
    // memory around it (a fence then a flag store would publish the flag
    // before the sum).
    if (Ordering) {
      Fail("the statement holding the atomic has a fence, barrier, scoped "
           "atomic or asm whose order with the atomic must stay");
      return;
    }
    // A parameter: used nowhere else in the kernel. A shared variable (set
    // and read around the statement, behind barriers): not inside it.
    unsigned Uses = countReferences(Shared ? Around : K->getBody(), Target);
    if (Atomics) {
      Fail("the statement holding the atomic has an atomicCAS or "
           "atomicExch (a lock or a flag) whose order with the atomic must "
           "stay");
      return;
    }
    if (Uses != 1) {
      Fail("'" + Target->getName().str() + "' is also used elsewhere in " +
           (Shared ? "the statement holding the atomic" : "the kernel") +
           ": its updates must stay where they are");
      return;
    }
    // The address is evaluated after the statement: only names declared
    // outside it, never assigned.
    bool Scoped = true;
    forEachStmt(Addr, [&](const Stmt *X) {
      if (const auto *D = dyn_cast<DeclRefExpr>(X))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          if (!isa<ParmVarDecl>(V) &&
              (Around->getSourceRange().fullyContains(V->getSourceRange()) ||
               F.isMutated(V)))
            Scoped = false;
    });
    if (!Scoped) {
      Fail("the atomic's address uses a name declared or assigned inside "
           "the statement holding it");
      return;
    }
    // Evaluated once after the statement instead of at each atomic: memory
    // it reads (`&out[*slot]`) may change in between.
    const Expr *AE = Addr->IgnoreParenImpCasts();
    bool AddrReads = readsData(AE);
    if (const auto *UO = dyn_cast<UnaryOperator>(AE);
        UO && UO->getOpcode() == UO_AddrOf)
      if (const auto *AS =
              dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens()))
        AddrReads = readsData(AS->getBase()) || readsData(AS->getIdx());
    if (AddrReads) {
      Fail("the atomic's address reads memory, which the statement may "
           "change before the reduction after it");
      return;
    }
  } else if (Direct) {
    Top = CE;
  } else {
    // SimpleIf: the walk above either found Around or returned.
    if (rareGuard(SimpleIf->getCond(), Body))
      return;
    Top = SimpleIf;
    Guard = SimpleIf->getCond();
    GuardIf = SimpleIf;
  }
  if (Around)
    Top = Around;
  for (const Stmt *S : Body->body()) {
    if (S == Top)
      break;
    if (containsEscape(S, false)) {
      Fail("a statement before the atomic may return early: not every lane "
           "of a warp reaches it");
      return;
    }
  }
  // Shuffles of the kernel's own (its lanes may follow a protocol this
  // reduction would break); the reductions an earlier round of this rule
  // wrote (a statement `{ // cuda-l1 sync-warp-atomic-reduction ... }` of
  // the body: a second sum of the same guard) do not count.
  for (const Stmt *S : Body->body()) {
    if (!containsCallTo(S, {"__shfl*"}))
      continue;
    if (isa<CompoundStmt>(S) &&
        StringRef(sourceText(Ctx, S->getSourceRange()))
            .starts_with("{ // cuda-l1 sync-warp-atomic-reduction"))
      continue;
    Fail("the kernel already uses warp shuffles");
    return;
  }
  // The shuffles need full warps: a block size that is a multiple of 32 at
  // every launch, known here when all launches are in view with one
  // constant shape; else (sizes from the command line, launches elsewhere)
  // a test on blockDim picks the reduction or one atomic per thread.
  std::string Why, WhyNotAll;
  auto Block = constantBlock(CC, K, Why);
  bool AllVisible = allLaunchesVisible(Ctx, CC, K, WhyNotAll);
  if (Block) {
    uint64_t Threads = (*Block)[0] * (*Block)[1] * (*Block)[2];
    if (Threads % 32) {
      Fail("the block has " + std::to_string(Threads) +
           " threads, not a multiple of 32: the last warp is partial");
      return;
    }
  }
  if (inMacro(Top->getSourceRange()) || inMacro(CE->getSourceRange())) {
    Fail("the atomic comes from a macro expansion");
    return;
  }
  std::string AddrText = sourceText(Ctx, Addr->getSourceRange());
  std::string ValText = sourceText(Ctx, CE->getArg(1)->getSourceRange());
  std::string GuardText = Guard ? sourceText(Ctx, Guard->getSourceRange()) : "";
  if (AddrText.empty() || ValText.empty() || (Guard && GuardText.empty())) {
    Fail("the atomic's operands come from a macro expansion");
    return;
  }
  // One name per atomic of the kernel: two guards' registers are declared
  // at the kernel's top level, side by side.
  unsigned Ordinal = 0;
  forEachStmt(K->getBody(), [&](const Stmt *X) {
    const auto *C = dyn_cast<CallExpr>(X);
    const FunctionDecl *D = C ? C->getDirectCallee() : nullptr;
    if (C && C != CE && D && D->getIdentifier() &&
        atomicOpOf(D->getName()) &&
        Ctx.getSourceManager().isBeforeInTranslationUnit(C->getBeginLoc(),
                                                         CE->getBeginLoc()))
      ++Ordinal;
  });
  std::string Suffix = Ordinal ? std::to_string(Ordinal + 1) : "";
  std::string V = uniqueName(K, "cudal1_v" + Suffix);
  std::string Ind = indentOf(Ctx, Top->getBeginLoc());
  std::string I1 = Ind + "  ";
  // The 1-D lane and warp ids only when every launch of the kernel is in
  // view and 1-D: a 2-D launch elsewhere would group the wrong lanes.
  bool OneD = Block && (*Block)[1] == 1 && (*Block)[2] == 1 && AllVisible;
  std::string Tid = OneD ? "threadIdx.x"
                         : "((threadIdx.z * blockDim.y + threadIdx.y) * "
                           "blockDim.x + threadIdx.x)";
  ReductionText RT;
  RT.Op = *Op;
  RT.Callee = Callee.str();
  RT.VTs = VTs;
  RT.V = V;
  RT.Identity = Identity;
  RT.AddrText = AddrText;
  RT.Lane = "(" + Tid + " & 31u)";
  RT.WarpId = "(" + Tid + " >> 5)";
  RT.NWarps = OneD ? "(blockDim.x >> 5)"
                   : "((blockDim.x * blockDim.y * blockDim.z) >> 5)";
  if (P)
    RT.BlockArray = uniqueName(K, "cudal1_w" + Suffix);
  if (!Block || !AllVisible)
    RT.FullWarpsTest = "((blockDim.x * blockDim.y * blockDim.z) & 31u) == 0u";
  std::string Per = P ? " per block" : " per warp";
  FixIt Fix;
  Fix.Exact =
      VT->isIntegerType() ? Exactness::Bitwise : Exactness::Reassociating;
  if (Fix.Exact == Exactness::Reassociating) {
    Fix.Rtol = 1e-4;
    Fix.Atol = 1e-5;
    Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
    // Each element the atomic adds to sums up to one term per thread; the
    // original's own order of those adds is as inexact as the new one. A
    // shared accumulator reaches global memory through the parameters
    // whose atomicAdd adds a value read from it.
    if (P)
      Fix.GridSumParams.push_back(P->getName().str());
    else
      forEachStmt(K->getBody(), [&](const Stmt *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        const FunctionDecl *D = C ? C->getDirectCallee() : nullptr;
        if (!D || !D->getIdentifier() || D->getName() != "atomicAdd" ||
            C->getNumArgs() != 2 || !countReferences(C->getArg(1), Shared))
          return;
        if (const ParmVarDecl *Q = rootPointerParam(C->getArg(0), F))
          if (!llvm::is_contained(Fix.GridSumParams, Q->getName().str()))
            Fix.GridSumParams.push_back(Q->getName().str());
      });
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (Around) {
    // The register before the guard, the value into it in place of the
    // atomic, the reduction after the guard.
    Fix.Edits.push_back(makeInsertion(
        Ctx, SM.getExpansionLoc(Around->getBeginLoc()),
        VTs + " " + V + " = " + Identity +
            "; // cuda-l1 sync-warp-atomic-reduction\n" + Ind));
    SourceLocation AfterSemi = Lexer::findLocationAfterToken(
        SM.getExpansionLoc(CE->getEndLoc()), tok::semi, SM,
        Ctx.getLangOpts(), false);
    if (AfterSemi.isInvalid()) {
      Fail("the atomic's statement cannot be delimited");
      return;
    }
    Fix.Edits.push_back(makeTextEdit(
        Ctx,
        CharSourceRange::getCharRange(SM.getExpansionLoc(CE->getBeginLoc()),
                                      AfterSemi),
        combine(*Op, V, VTs, "(" + VTs + ")(" + ValText + ")")));
    std::string R = "\n" + Ind + "{ // cuda-l1 sync-warp-atomic-reduction\n";
    R += reduction(RT, I1);
    R += Ind + "}";
    Fix.Edits.push_back(makeInsertion(Ctx, stmtEnd(Ctx, Around), R));
    Fix.Description = std::string("per-thread value in a register, "
                                  "warp-shuffle ") +
                      opWord(*Op) + " after the statement" +
                      (P ? ", per-block through shared memory" : "") +
                      ", then one " + Callee.str() + Per;
    Fd.Fix = Fix;
    Out.push_back(Fd);
    return;
  }
  std::string T = "{ // cuda-l1 sync-warp-atomic-reduction\n";
  // The grid-stride form where the launches can take fewer blocks: one
  // atomic per block is still one per original block otherwise.
  std::string GSWhy;
  // A __shared__ accumulator may only be passed on whole, by the same
  // atomic operation (each block's value is now the sum of several of the
  // original blocks').
  const FunctionDecl *AtomicFD = CE->getDirectCallee();
  auto PassedOnWhole = [&](const CallExpr *C) {
    if (!Shared || C->getDirectCallee() != AtomicFD || C->getNumArgs() != 2)
      return false;
    const auto *VR = dyn_cast<DeclRefExpr>(C->getArg(1)->IgnoreParenImpCasts());
    return VR && VR->getDecl() == Shared && rootPointerParam(C->getArg(0), F);
  };
  std::optional<GridStrideText> GS =
      Guard && sideEffectFree(Ctx, CE->getArg(1))
          ? gridStride(Ctx, CC, K, F, Top, Guard, PassedOnWhole, GSWhy)
          : std::nullopt;
  if (GS) {
    T += I1 + VTs + " " + V + " = (" + VTs + ")" + Identity + ";\n";
    T += I1 + GS->Head + "\n";
    T += I1 + "  " + GS->Index + "\n";
    T += I1 + "  if (" + GuardText + ")\n";
    T += I1 + "    " + combine(*Op, V, VTs, "(" + VTs + ")(" + ValText + ")") +
         "\n";
    T += I1 + "}\n";
  } else if (Guard)
    T += I1 + VTs + " " + V + " = (" + GuardText + ") ? (" + VTs + ")(" +
         ValText + ") : (" + VTs + ")" + Identity + ";\n";
  else
    T += I1 + VTs + " " + V + " = " + ValText + ";\n";
  T += reduction(RT, I1);
  T += Ind + "}";
  SourceLocation E = Top->getEndLoc();
  CharSourceRange R = CharSourceRange::getTokenRange(Top->getBeginLoc(), E);
  // Take the statement's ';'.
  SourceLocation AfterSemi = Lexer::findLocationAfterToken(
      SM.getExpansionLoc(E), tok::semi, SM, Ctx.getLangOpts(), false);
  if (AfterSemi.isValid() &&
      !isa<CompoundStmt>(GuardIf ? GuardIf->getThen() : (const Stmt *)CE))
    R = CharSourceRange::getCharRange(SM.getExpansionLoc(Top->getBeginLoc()),
                                      AfterSemi);
  Fix.Edits.push_back(makeTextEdit(Ctx, R, T));
  Fix.Description = std::string("warp-shuffle ") + opWord(*Op) +
                    (P ? ", per-block through shared memory" : "") +
                    ", then one " + Callee.str() + Per;
  if (GS) {
    for (TextEdit &E : GS->LaunchEdits)
      Fix.Edits.push_back(std::move(E));
    Fix.Description += "; the launches keep at most " +
                       std::to_string(GridStrideBlocks) +
                       " blocks, each summing the values of the original "
                       "blocks " + GS->Axis + " first";
  }
  Fd.Fix = Fix;
  Out.push_back(Fd);
}

void SyncWarpAtomicReduction::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Kernel.Analysis, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

} // namespace cudal1
