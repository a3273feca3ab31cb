//===- SyncSharedHistogram.cpp - sync-shared-histogram --------------------===//
//
// sync-shared-histogram: a kernel whose threads atomically add to a global
// array at an index proven to lie in a small range [0, B) (a histogram:
// `atomicAdd(&hist[img[i]], 1)` with an unsigned char value, or a bin index
// clamped to [0, B-1]) gets a per-block copy of the B bins in shared
// memory: zeroed at the start, the atomics go to it, and at the end each
// block adds its non-zero bins to the global array. Legal when every use of
// the array is such an atomic whose result is unused (nothing else reads or
// writes it in the kernel) and every thread reaches the end of the kernel
// (no return, except top-level `if (c) return;` guards, rewritten as
// blocks). Integer bins: bitwise (integer addition is associative); float
// bins: reassociating. Measured: fewer global atomics, but B more shared
// stores and up to B more global atomics per block, so it is applied only
// where --verify=run measures it faster.
//
// When the index is read from data and not bounded in the kernel (k-means'
// `atomicAdd(&sums[c * dim + f], x)` with `c = membership[i]`), the array's
// size at every launch the model sees (cudaMalloc sizes) bounds the copy:
// each atomic tests its index against it and goes to global memory when it
// falls outside, so launches the tool did not see stay exact.
//
//===----------------------------------------------------------------------===//
#include "SyncSharedHistogram.h"
#include "GridStride.h"
#include "../coalescing/RowWalk.h"
#include "ReadsData.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo SyncSharedHistogram::info() const {
  RuleInfo I;
  I.Id = "sync-shared-histogram";
  I.Category = "sync";
  I.Summary = "atomics into a small global histogram -> per-block bins in "
              "shared memory, one atomic per non-empty bin per block";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise for integer bins, reassociating for floating "
                    "point; applied only where --verify=run measures it "
                    "faster";
  I.Help = "Threads that atomically add to a few global bins (a histogram) "
           "wait on each other in the L2 slice that owns each bin. A copy "
           "of the bins per block in shared memory takes the block's "
           "atomics, and each block then adds its non-zero bins to the "
           "global array once. The bin index must be proven to lie in "
           "[0, B) with B at most 4096 (an unsigned char value, a clamped "
           "or masked index), or be read from data into an array that has "
           "at most 4096 elements at every launch the tool sees (each "
           "atomic then tests its index against the copy); the array must "
           "be used only by those atomics, and every thread must reach the "
           "end of the kernel.";
  I.DefaultOptions["MeasureFirst"] = "true";
  I.Doc.Detects =
      "`atomicAdd(&hist[idx], v)` (or `atomicAdd(hist + idx, v)`) on a "
      "pointer parameter whose every use in the kernel is such an atomic "
      "with its result unused, where `idx` is proven to lie in [0, B) for "
      "a constant B of at most 4096 bins and 32 KiB: an `unsigned char` "
      "value (`hist[img[i]]`), `x & (B-1)`, `x % B` of a non-negative `x`, "
      "`x >> s` of an unsigned 32-bit `x`, `min`/`max` clamps, a local "
      "clamped by `if (b < 0) b = 0; if (b > B - 1) b = B - 1;`, and sums "
      "and products of such values (`bu * BINS + bv`). An index proven to "
      "be 0 (`atomicAdd(&errors[0], 1)`) is one counter, not a histogram: "
      "not reported (a sum of every thread's values into one word is "
      "sync-warp-atomic-reduction's).\n"
      "\n"
      "Also an index read from data and not bounded in the kernel (k-means' "
      "`int c = membership[i]; atomicAdd(&sums[c * dim + f], x[i * dim + "
      "f])`) when the array is small at every launch in the file: the "
      "`cudaMalloc` size of the argument at each launch, followed through "
      "host functions, is at most 4096 elements and 32 KiB.";
  I.Doc.WhySlow =
      "Each atomic goes to the L2 slice that owns its address; atomics to "
      "the same bin are serialised there. Image and sample histograms hit "
      "few bins, so most of the grid queues on the same addresses.";
  I.Doc.Example = R"cuda(__global__ void histogram(const unsigned char *img, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[img[i]], 1);          // warning
})cuda";
  I.Doc.Fixed = R"cuda(__global__ void histogram(const unsigned char *img, unsigned int *hist, int n) {
  __shared__ unsigned int cudal1_bins[256]; // cuda-l1 sync-shared-histogram
  for (unsigned int cudal1_b = threadIdx.x; cudal1_b < 256u; cudal1_b += blockDim.x)
    cudal1_bins[cudal1_b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&cudal1_bins[img[i]], 1);
  __syncthreads();
  for (unsigned int cudal1_b = threadIdx.x; cudal1_b < 256u; cudal1_b += blockDim.x)
    if (cudal1_bins[cudal1_b] != 0)
      atomicAdd(&hist[cudal1_b], cudal1_bins[cudal1_b]);
})cuda";
  I.Doc.Fix =
      "The bins are declared `__shared__` with the array's element type, "
      "zeroed by the block's threads, and followed by `__syncthreads()`; "
      "each atomic's array becomes the shared one; after the body, another "
      "`__syncthreads()` and one global `atomicAdd` per non-empty bin. "
      "A top-level `if (cond) return;` becomes `if (!(cond)) { ... }` "
      "around the rest of the body, so that every thread reaches the "
      "barriers. The thread index and count are the 1-D ones when every "
      "launch of the kernel is in the file (its name used only in "
      "`<<<>>>` launches) with a constant 1-D block, else the 3-D linear "
      "ones.\n"
      "\n"
      "Integer bins are bitwise: the global array ends with the same "
      "counts. Float bins are reassociating (each bin's terms are added "
      "in another order). The fix needs a measurement: a block that "
      "touches few elements pays B shared stores and up to B global "
      "atomics, so plain `--fix` does not apply it and `--fix "
      "--verify=run` applies it where it is measured faster "
      "(`CheckOptions: sync-shared-histogram.MeasureFirst: false` lets "
      "plain `--fix` apply it).\n"
      "\n"
      "An index read from data gets a copy as large as the array's "
      "largest allocation at the launches seen, and each atomic becomes "
      "`(unsigned long long)(i) < N ? atomicAdd(&copy[i], v) : "
      "atomicAdd(&arr[i], v)`: an index outside the copy (a launch "
      "elsewhere with a larger array) still goes to global memory, so the "
      "fix is exact for any launch. Only the elements a block touched are "
      "non-zero in its copy, so the final atomics stay inside the array. "
      "Several arrays of one kernel (k-means' sums and counts) share one "
      "fix and one pair of barriers, at most 32 KiB of copies in all. Such "
      "a copy is zeroed and added up with the linear thread index (`(tz * "
      "by + ty) * bx + tx`) whatever the block shape seen, so a 2-D launch "
      "elsewhere stays exact.\n"
      "\n"
      "**Grid-stride form.** One block's bins are zeroed and added up "
      "once per block: an 8192 x 4096 image launched as 131072 blocks of "
      "32 x 8 threads pays 131072 times up to 256 global atomics. When "
      "every privatised atomic is inside one top-level `if` whose "
      "condition has `i < n` (alone or in a chain of `&&`) with `i = "
      "blockIdx.x * blockDim.x + threadIdx.x` (or along y) declared at the "
      "top of the kernel, and every launch of the kernel is in the file "
      "with its grid, block and `n` written there, the launches keep at "
      "most 2048 blocks and that statement runs in a loop over the "
      "original blocks `blockIdx.y + k * gridDim.y`, as "
      "sync-warp-atomic-reduction's grid-stride form does (the same "
      "conditions: `i` used only in the statement, `n` only in its "
      "comparison, `blockIdx` and `gridDim` of that axis nowhere else, no "
      "other effect outside the block, no early return, no call of the "
      "program's own functions; `n` capped at the launch to the elements "
      "the original grid reached):\n"
      "\n"
      "```cuda\n"
      "int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "for (unsigned int cudal1_b = blockIdx.y; (long long)cudal1_b * "
      "blockDim.y < (long long)(height); cudal1_b += gridDim.y) {\n"
      "  int y = cudal1_b * blockDim.y + threadIdx.y;\n"
      "  if (x < width && y < height)\n"
      "    atomicAdd(&cudal1_bins[img[y * width + x]], 1);\n"
      "}\n"
      "```\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the array is read, written or passed anywhere else in the kernel, "
      "or an atomic's result is used;\n"
      "- the kernel may return early other than by a top-level "
      "`if (cond) return;`, or uses `goto`;\n"
      "- more than 4096 bins, or more than 32 KiB of them;\n"
      "- the atomic or the kernel's braces come from a macro;\n"
      "- an index read from data calls a function not known to be pure "
      "(min, max, abs and the math functions are), or has side effects "
      "(the fix evaluates it twice).\n"
      "\n"
      "Nothing is reported when the index is neither proven to be in a "
      "small range nor read from data into an array that is small at "
      "every launch: a scatter-add into a large or unknown-size array, or "
      "one element per block (`partial[blockIdx.x]`).";
  return I;
}

namespace {

constexpr int64_t MaxBins = 4096;
constexpr int64_t MaxBytes = 32 * 1024;

/// Known bounds of an integer value (either may be unknown).
struct Bound {
  std::optional<int64_t> Lo, Hi;
  bool known() const { return Lo && Hi; }
};

Bound meet(Bound A, const Bound &B) {
  if (B.Lo)
    A.Lo = A.Lo ? std::max(*A.Lo, *B.Lo) : *B.Lo;
  if (B.Hi)
    A.Hi = A.Hi ? std::min(*A.Hi, *B.Hi) : *B.Hi;
  return A;
}

/// The values of integer type \p T (bounded only for types of up to 16
/// bits; wider unsigned types: only the lower bound 0).
Bound typeRange(ASTContext &Ctx, QualType T) {
  T = T.getCanonicalType();
  if (!T->isIntegerType())
    return {};
  if (T->isBooleanType())
    return {0, 1};
  unsigned W = Ctx.getIntWidth(T);
  bool U = T->isUnsignedIntegerOrEnumerationType();
  if (W > 16)
    return U ? Bound{0, std::nullopt} : Bound{};
  if (U)
    return {0, (int64_t(1) << W) - 1};
  return {-(int64_t(1) << (W - 1)), (int64_t(1) << (W - 1)) - 1};
}

bool small(int64_t V) { return V > -(int64_t(1) << 40) && V < (int64_t(1) << 40); }

/// Bounds of integer expressions in a kernel: constants, small types,
/// masks, remainders, shifts, clamps and arithmetic on them, and locals
/// followed to their initialiser and their clamping `if`s before \p At.
class BinRange {
public:
  BinRange(ASTContext &Ctx, const FunctionDecl *K, const FunctionFacts &F,
           const Stmt *At)
      : Ctx(Ctx), K(K), F(F), At(At) {}

  Bound of(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 24)
      return {};
    E = E->IgnoreParens();
    Bound T = typeRange(Ctx, E->getType());
    if (auto C = evalInt(Ctx, E))
      return {*C, *C};
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      const Expr *Sub = CE->getSubExpr();
      if (Sub->getType()->isIntegerType() && E->getType()->isIntegerType()) {
        Bound S = of(Sub, Depth + 1);
        // Kept when it fits the new type; else only the type's range.
        Bound Tt = typeRange(Ctx, E->getType());
        if (S.known() && (!Tt.Lo || *S.Lo >= *Tt.Lo) &&
            (!Tt.Hi || *S.Hi <= *Tt.Hi))
          return S;
        if (S.Lo && *S.Lo >= 0 && Tt.Lo && *Tt.Lo == 0 && !Tt.Hi)
          return meet(S, Tt); // into a wide unsigned type
        return Tt;
      }
      return T;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return meet(binary(BO, Depth), T);
    if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
      Bound A = of(CO->getTrueExpr(), Depth + 1),
            B = of(CO->getFalseExpr(), Depth + 1);
      Bound R;
      if (A.Lo && B.Lo)
        R.Lo = std::min(*A.Lo, *B.Lo);
      if (A.Hi && B.Hi)
        R.Hi = std::max(*A.Hi, *B.Hi);
      return meet(R, T);
    }
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return meet(minMax(Call, Depth), T);
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->isLocalVarDecl() && V->getType()->isIntegerType())
          return meet(local(V, Depth), T);
    return T;
  }

private:
  Bound binary(const BinaryOperator *BO, unsigned Depth) {
    Bound A = of(BO->getLHS(), Depth + 1), B = of(BO->getRHS(), Depth + 1);
    auto Ok = [](const Bound &X) {
      return X.known() && small(*X.Lo) && small(*X.Hi);
    };
    switch (BO->getOpcode()) {
    case BO_Add:
      if (Ok(A) && Ok(B))
        return {*A.Lo + *B.Lo, *A.Hi + *B.Hi};
      return {};
    case BO_Sub:
      if (Ok(A) && Ok(B))
        return {*A.Lo - *B.Hi, *A.Hi - *B.Lo};
      return {};
    case BO_Mul:
      if (Ok(A) && Ok(B) && std::abs(*A.Lo) < (1 << 20) &&
          std::abs(*A.Hi) < (1 << 20) && std::abs(*B.Lo) < (1 << 20) &&
          std::abs(*B.Hi) < (1 << 20)) {
        int64_t P[4] = {*A.Lo * *B.Lo, *A.Lo * *B.Hi, *A.Hi * *B.Lo,
                        *A.Hi * *B.Hi};
        return {*std::min_element(P, P + 4), *std::max_element(P, P + 4)};
      }
      return {};
    case BO_Div:
      if (A.known() && *A.Lo >= 0 && B.known() && *B.Lo == *B.Hi && *B.Lo > 0)
        return {*A.Lo / *B.Lo, *A.Hi / *B.Lo};
      return {};
    case BO_Rem:
      // x % C of a non-negative x: [0, C-1].
      if (B.known() && *B.Lo == *B.Hi && *B.Lo > 0 &&
          ((A.Lo && *A.Lo >= 0) ||
           isProvablyNonNegative(Ctx, BO->getLHS())))
        return {0, std::min(*B.Lo - 1, A.Hi ? *A.Hi : *B.Lo - 1)};
      return {};
    case BO_And:
      // x & M with a non-negative constant M: [0, M].
      for (const Bound *M : {&A, &B})
        if (M->known() && *M->Lo == *M->Hi && *M->Lo >= 0)
          return {0, *M->Lo};
      return {};
    case BO_Shr: {
      if (!B.known() || *B.Lo != *B.Hi || *B.Lo < 0 || *B.Lo > 62)
        return {};
      int64_t S = *B.Lo;
      if (A.known() && *A.Lo >= 0)
        return {*A.Lo >> S, *A.Hi >> S};
      // An unsigned value of W bits shifted right: [0, 2^(W-S) - 1].
      QualType LT = BO->getLHS()->getType().getCanonicalType();
      if (LT->isUnsignedIntegerType()) {
        unsigned W = Ctx.getIntWidth(LT);
        if (S < W && W - S < 40)
          return {0, (int64_t(1) << (W - S)) - 1};
      }
      return {};
    }
    case BO_Comma:
      return B;
    default:
      return {};
    }
  }

  /// min(a, b) / max(a, b) (CUDA's integer overloads, std::, ::).
  Bound minMax(const CallExpr *Call, unsigned Depth) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() || Call->getNumArgs() != 2)
      return {};
    StringRef N = FD->getName();
    if (N != "min" && N != "max" && N != "umin" && N != "umax")
      return {};
    Bound A = of(Call->getArg(0), Depth + 1), B = of(Call->getArg(1), Depth + 1);
    Bound R;
    if (N.ends_with("min")) {
      if (A.Hi || B.Hi)
        R.Hi = std::min(A.Hi.value_or(INT64_MAX), B.Hi.value_or(INT64_MAX));
      if (A.Lo && B.Lo)
        R.Lo = std::min(*A.Lo, *B.Lo);
    } else {
      if (A.Lo || B.Lo)
        R.Lo = std::max(A.Lo.value_or(INT64_MIN), B.Lo.value_or(INT64_MIN));
      if (A.Hi && B.Hi)
        R.Hi = std::max(*A.Hi, *B.Hi);
    }
    return R;
  }

  /// A local: its initialiser when never changed; else its initialiser
  /// narrowed by clamping `if (v < L) v = X;` / `if (v > H) v = X;`
  /// statements of its own block between its declaration and \p At.
  Bound local(const VarDecl *V, unsigned Depth) {
    Bound R = of(V->getInit(), Depth + 1);
    if (!F.isMutated(V))
      return R;
    const SourceManager &SM = Ctx.getSourceManager();
    // The block that declares V, and V's declaration in it.
    const CompoundStmt *Block = nullptr;
    const Stmt *DeclS = nullptr;
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      if (const auto *CS = dyn_cast<CompoundStmt>(S))
        for (const Stmt *C : CS->body())
          if (const auto *DS = dyn_cast<DeclStmt>(C))
            for (const Decl *D : DS->decls())
              if (D == V) {
                Block = CS;
                DeclS = C;
              }
    });
    if (!Block)
      return {};
    // Every change of V is a clamp of that block, after the declaration.
    std::vector<const IfStmt *> Clamps;
    bool Other = false;
    unsigned Writes = 0;
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
        if (BO->isAssignmentOp() && varOf(BO->getLHS()) == V)
          ++Writes;
      } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
        if ((UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
            varOf(UO->getSubExpr()) == V)
          Other = true;
      }
    });
    bool Seen = false;
    for (const Stmt *C : Block->body()) {
      if (C == DeclS) {
        Seen = true;
        continue;
      }
      if (!Seen)
        continue;
      if (C == At || SM.isBeforeInTranslationUnit(At->getBeginLoc(),
                                                   C->getBeginLoc()) ||
          C->getSourceRange().fullyContains(At->getSourceRange()))
        break;
      if (const auto *If = dyn_cast<IfStmt>(C))
        if (clampOf(If, V))
          Clamps.push_back(If);
    }
    if (Other || Writes != Clamps.size())
      return {};
    for (const IfStmt *If : Clamps)
      R = apply(R, If, V, Depth);
    return R;
  }

  /// `if (v OP C) v = X;` (either operand order; the then-branch a single
  /// assignment, braced or not; no else).
  const BinaryOperator *clampOf(const IfStmt *If, const VarDecl *V) {
    const auto *A = dyn_cast_or_null<BinaryOperator>(soleThen(If));
    if (!A || A->getOpcode() != BO_Assign || varOf(A->getLHS()) != V)
      return nullptr;
    const auto *Cond = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
    if (!Cond || !Cond->isRelationalOp())
      return nullptr;
    if (varOf(Cond->getLHS()) != V && varOf(Cond->getRHS()) != V)
      return nullptr;
    return A;
  }

  Bound apply(Bound R, const IfStmt *If, const VarDecl *V, unsigned Depth) {
    const BinaryOperator *A = clampOf(If, V);
    const auto *Cond = cast<BinaryOperator>(If->getCond()->IgnoreParens());
    Bound X = of(A->getRHS(), Depth + 1);
    BinaryOperatorKind Op = Cond->getOpcode();
    const Expr *Other = Cond->getRHS();
    if (varOf(Cond->getLHS()) != V) { // C OP v: mirror it
      Other = Cond->getLHS();
      Op = Op == BO_LT ? BO_GT : Op == BO_GT ? BO_LT : Op == BO_LE ? BO_GE
                                                                    : BO_LE;
    }
    Bound C = of(Other, Depth + 1);
    if (!C.known() || *C.Lo != *C.Hi || !X.known())
      return {};
    int64_t Cv = *C.Lo;
    Bound Out;
    if (Op == BO_GT || Op == BO_GE) {
      // Not taken: v <= Cv (or Cv-1); taken: v = X.
      int64_t H = Op == BO_GT ? Cv : Cv - 1;
      Out.Hi = std::max(R.Hi ? std::min(*R.Hi, H) : H, *X.Hi);
      if (R.Lo)
        Out.Lo = std::min(*R.Lo, *X.Lo);
    } else {
      int64_t L = Op == BO_LT ? Cv : Cv + 1;
      Out.Lo = std::min(R.Lo ? std::max(*R.Lo, L) : L, *X.Lo);
      if (R.Hi)
        Out.Hi = std::max(*R.Hi, *X.Hi);
    }
    return Out;
  }

  ASTContext &Ctx;
  const FunctionDecl *K;
  const FunctionFacts &F;
  const Stmt *At;
};

/// `atomicAdd(&P[idx], v)` or `atomicAdd(P + idx, v)` with P a parameter:
/// the index, and the reference to P.
struct BinAtomic {
  const CallExpr *Call = nullptr;
  const DeclRefExpr *Base = nullptr;
  const Expr *Index = nullptr;
};

std::optional<BinAtomic> binAtomic(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || FD->getName() != "atomicAdd" ||
      CE->getNumArgs() != 2)
    return std::nullopt;
  BinAtomic B;
  B.Call = CE;
  auto [Base, Index] = splitElementAddress(CE->getArg(0));
  B.Base = dyn_cast_or_null<DeclRefExpr>(Base);
  B.Index = Index;
  if (!B.Base || !isa<ParmVarDecl>(B.Base->getDecl()))
    return std::nullopt;
  return B;
}

} // namespace

std::pair<const Expr *, const Expr *>
splitElementAddress(const Expr *Addr) {
  Addr = Addr->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Addr);
      UO && UO->getOpcode() == UO_AddrOf) {
    if (const auto *AS =
            dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens()))
      return {AS->getBase()->IgnoreParenImpCasts(), AS->getIdx()};
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Addr);
             BO && BO->getOpcode() == BO_Add) {
    const Expr *L = BO->getLHS()->IgnoreParenImpCasts(),
               *R = BO->getRHS()->IgnoreParenImpCasts();
    if (L->getType()->isPointerType())
      return {L, BO->getRHS()};
    return {R, BO->getLHS()};
  }
  return {nullptr, nullptr};
}

std::optional<int64_t> binIndexMax(ASTContext &Ctx, const FunctionDecl *Fn,
                                   const Expr *Index, const Stmt *At) {
  if (!Fn || !Index)
    return std::nullopt;
  FunctionFacts F = FunctionFacts::compute(Fn);
  Bound R = BinRange(Ctx, Fn, F, At).of(Index);
  if (!R.known() || *R.Lo < 0)
    return std::nullopt;
  return *R.Hi;
}

namespace {
/// One array the fix privatises.
struct Privatised {
  const ParmVarDecl *P = nullptr;
  std::vector<BinAtomic> List;
  int64_t Bins = 0;    ///< shared elements
  bool Window = false; ///< indices are not proven below Bins: test each
  bool Flt = false;
  uint64_t ElemBytes = 0;
  std::string Why; ///< why this array gets no fix
  Finding Fd;
};
} // namespace

/// The largest element count of parameter \p P's buffer over every launch
/// of \p K in the model, when each launch's value tuples all know it;
/// \p Alloc names one allocation. std::nullopt when a launch's size is
/// unknown or no launch is visible.
std::optional<uint64_t> launchedElements(const CheckContext &CC,
                                                const FunctionDecl *K,
                                                const ParmVarDecl *P,
                                                uint64_t ElemBytes,
                                                std::string &Alloc) {
  if (!CC.Model || !ElemBytes)
    return std::nullopt;
  std::string QN = K->getQualifiedNameAsString();
  unsigned Idx = P->getFunctionScopeIndex();
  std::optional<uint64_t> Max;
  for (const LaunchSite &S : CC.Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    if (S.Values.empty())
      return std::nullopt;
    for (const LaunchValues &LV : S.Values) {
      if (Idx >= LV.Args.size() || LV.Args[Idx].Kind != ValueInfo::Pointer ||
          !LV.Args[Idx].Bytes)
        return std::nullopt;
      uint64_t N = *LV.Args[Idx].Bytes / ElemBytes;
      if (!Max || N > *Max) {
        Max = N;
        Alloc = LV.Args[Idx].Allocation;
      }
    }
  }
  return Max;
}

void SyncSharedHistogram::checkKernel(const KernelUnit &Kernel) {
  const FunctionDecl *K = Kernel.FD;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (Kernel.IsTemplate || !Body)
    return;
  ASTContext &Ctx = ctx();
  const FunctionFacts &F = Kernel.Facts;
  // The atomics per parameter, and every reference to each parameter.
  std::map<const ParmVarDecl *, std::vector<BinAtomic>> Atomics;
  std::map<const ParmVarDecl *, unsigned> Refs;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      if (auto B = binAtomic(CE))
        Atomics[cast<ParmVarDecl>(B->Base->getDecl())].push_back(*B);
    } else if (const auto *D = dyn_cast<DeclRefExpr>(S)) {
      if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()))
        ++Refs[P];
    }
  });
  std::vector<Privatised> Arrays;
  for (auto &[P, List] : Atomics) {
    QualType ET = P->getType()->getPointeeType();
    if (ET.isNull())
      continue;
    std::string Canon = ET.getCanonicalType().getUnqualifiedType().getAsString(
        Ctx.getPrintingPolicy());
    bool Int = Canon == "unsigned int" || Canon == "int" ||
               Canon == "unsigned long long";
    bool Flt = Canon == "float" || Canon == "double";
    if (!Int && !Flt)
      continue;
    Privatised A;
    A.P = P;
    A.List = List;
    A.Flt = Flt;
    A.ElemBytes = Ctx.getTypeSizeInChars(ET).getQuantity();
    // Every atomic's index in [0, Hi] with a small Hi: a histogram.
    int64_t Hi = -1;
    bool Bounded = true;
    for (const BinAtomic &B : List) {
      BinRange BR(Ctx, K, F, B.Call);
      Bound R = BR.of(B.Index);
      if (!R.known() || *R.Lo < 0 || *R.Hi >= MaxBins) {
        Bounded = false;
        break;
      }
      Hi = std::max(Hi, *R.Hi);
    }
    const BinAtomic &First = List.front();
    // One bin is a counter (an error count under `if (a != b)`, a slot
    // `pos = atomicAdd(&n[0], 1)`), not a histogram: per-block copies of one
    // word are sync-warp-atomic-reduction's block sum, which leaves a used
    // old value and a rare branch alone.
    if (Bounded && Hi == 0)
      continue;
    if (Bounded && Hi >= 0) {
      A.Bins = Hi + 1;
      A.Fd = finding(
          First.Call->getBeginLoc(),
          "threads atomically add to " + std::to_string(A.Bins) +
              " bins of global '" + P->getName().str() +
              "' (index proven in [0, " + std::to_string(A.Bins - 1) +
              "]): atomics to the same bin wait on each other in L2; "
              "per-block bins in shared memory take them, then one atomic "
              "per non-empty bin per block",
          K);
      if (uint64_t(A.Bins) * A.ElemBytes > uint64_t(MaxBytes))
        A.Why = std::to_string(A.Bins) + " bins of " +
                std::to_string(A.ElemBytes) +
                " bytes exceed 32 KiB of shared memory";
    } else {
      // Indices read from data into an array that is small at every
      // launch (a histogram whose bin count is a run-time value, as
      // k-means' per-cluster sums): a window of the array's size, each
      // atomic testing its index. Else a scatter-add: silent.
      bool Data = true;
      for (const BinAtomic &B : List)
        Data = Data && readsData(B.Index);
      std::string Alloc;
      auto N = Data ? launchedElements(context(), K, P, A.ElemBytes, Alloc)
                    : std::nullopt;
      if (!N || *N == 0 || int64_t(*N) > MaxBins ||
          *N * A.ElemBytes > uint64_t(MaxBytes))
        continue;
      A.Bins = int64_t(*N);
      A.Window = true;
      A.Fd = finding(
          First.Call->getBeginLoc(),
          "threads atomically add to global '" + P->getName().str() +
              "' at indices read from data, and it has only " +
              std::to_string(A.Bins) + " elements at every launch (" +
              Alloc +
              "): atomics to the same element wait on each other in L2; "
              "a per-block copy in shared memory takes them, then one "
              "atomic per non-zero element per block",
          K);
      for (const BinAtomic &B : List)
        if (!isPure(Ctx, B.Index))
          A.Why = "an index calls a function or has side effects (the fix "
                  "evaluates it twice)";
    }
    if (Refs[P] != List.size() || F.isMutated(P))
      A.Why = "'" + P->getName().str() +
              "' is also used outside these atomics: its updates must stay "
              "where they are";
    for (const BinAtomic &B : List) {
      auto Par = Ctx.getParents(*B.Call);
      if (Par.empty() || Par[0].get<Expr>() || !Par[0].get<Stmt>())
        A.Why = "an atomic's result (the bin's old value) is used";
      if (inMacro(B.Call->getSourceRange()))
        A.Why = "an atomic comes from a macro expansion";
    }
    Arrays.push_back(std::move(A));
  }
  if (Arrays.empty())
    return;
  // In source order of their first atomic.
  std::sort(Arrays.begin(), Arrays.end(),
            [&](const Privatised &X, const Privatised &Y) {
              return Ctx.getSourceManager().isBeforeInTranslationUnit(
                  X.List.front().Call->getBeginLoc(),
                  Y.List.front().Call->getBeginLoc());
            });

  // Every thread reaches the end: top-level guard returns only.
  std::string Why;
  std::vector<const IfStmt *> Guards;
  for (const Stmt *S : Body->body()) {
    if (earlyExit(S)) {
      Guards.push_back(cast<IfStmt>(S));
      continue;
    }
    if (containsEscape(S, false))
      Why = "the kernel may return early inside a statement: not every "
            "thread would reach the barrier before the bins are added up";
  }
  forEachStmt(Body, [&](const Stmt *S) {
    if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
      Why = "the kernel uses goto";
  });
  if (inMacro(Body->getSourceRange()) || Body->getLBracLoc().isMacroID() ||
      Body->getRBracLoc().isMacroID())
    Why = "the kernel's body comes from a macro expansion";
  for (const IfStmt *G : Guards)
    if (inMacro(G->getSourceRange()))
      Why = "an early return comes from a macro expansion";
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Close;
  std::vector<TextEdit> GuardEdits;
  for (const IfStmt *G : Guards) {
    if (!Why.empty())
      break;
    std::string Cond = sourceText(Ctx, G->getCond()->getSourceRange());
    if (Cond.empty()) {
      Why = "an early return's condition cannot be read";
      break;
    }
    // Through the `;` of a bare `return;`.
    CharSourceRange R = CharSourceRange::getTokenRange(G->getSourceRange());
    if (!isa<CompoundStmt>(G->getThen())) {
      SourceLocation AfterSemi = Lexer::findLocationAfterToken(
          SM.getExpansionLoc(G->getEndLoc()), tok::semi, SM, Ctx.getLangOpts(),
          false);
      if (AfterSemi.isInvalid()) {
        Why = "an early return cannot be delimited";
        break;
      }
      R = CharSourceRange::getCharRange(SM.getExpansionLoc(G->getBeginLoc()),
                                        AfterSemi);
    }
    GuardEdits.push_back(makeTextEdit(Ctx, R, "if (!(" + Cond + ")) {"));
  }

  // The arrays that get a fix: one fix for all of them (one pair of
  // barriers), within the shared-memory budget.
  uint64_t Used = 0;
  std::vector<Privatised *> Fixed;
  for (Privatised &A : Arrays) {
    if (A.Why.empty() && !Why.empty())
      A.Why = Why;
    if (!A.Why.empty())
      continue;
    uint64_t Bytes = uint64_t(A.Bins) * A.ElemBytes;
    if (Used + Bytes > uint64_t(MaxBytes)) {
      A.Why = "with the arrays before it, more than 32 KiB of shared memory";
      continue;
    }
    Used += Bytes;
    Fixed.push_back(&A);
  }
  if (Fixed.empty()) {
    for (Privatised &A : Arrays)
      reportWithoutFix(std::move(A.Fd), A.Why);
    return;
  }

  // The rewrite.
  std::string Why2;
  auto Block = constantBlock(context(), K, Why2);
  // A window is meant to stay exact at launches the model did not see: its
  // loops use the linear thread index whatever the block shape seen; so do
  // the others unless every launch is in view and 1-D.
  bool AnyWindow = false;
  for (Privatised *A : Fixed)
    AnyWindow = AnyWindow || A->Window;
  std::string WhyNotAll;
  bool OneD = !AnyWindow && Block && (*Block)[1] == 1 && (*Block)[2] == 1 &&
              allLaunchesVisible(Ctx, context(), K, WhyNotAll);
  std::string Tid =
      OneD ? "threadIdx.x"
           : "(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
             "threadIdx.x";
  std::string Nt = OneD ? "blockDim.x" : "blockDim.x * blockDim.y * blockDim.z";
  std::string Ind = Body->body_empty()
                        ? "  "
                        : indentOf(Ctx, Body->body_front()->getBeginLoc());
  std::string Idx = freshName(Ctx, context(), K, "cudal1_b");
  FixIt Fix;
  Fix.NeedsMeasurement = optionBool("MeasureFirst", true);
  std::string Head = "\n", Tail, Names;
  for (Privatised *A : Fixed) {
    const ParmVarDecl *P = A->P;
    QualType ET = P->getType()->getPointeeType();
    std::string Name = freshName(Ctx, context(), K, "cudal1_bins");
    std::string ETs;
    if (PointerTypeLoc PTL = pointerTypeLoc(P)) {
      TypeLoc TL = PTL.getPointeeLoc();
      ETs = spelledType(Ctx, ET.getUnqualifiedType(), &TL);
    } else {
      ETs = spelledType(Ctx, ET.getUnqualifiedType(), (const TypeLoc *)nullptr);
    }
    std::string BinsS = std::to_string(A->Bins) + "u";
    std::string Loop = Ind + "for (unsigned int " + Idx + " = " + Tid + "; " +
                       Idx + " < " + BinsS + "; " + Idx + " += " + Nt + ")\n";
    Head += Ind + "__shared__ " + ETs + " " + Name + "[" +
            std::to_string(A->Bins) + "]; // cuda-l1 sync-shared-histogram\n" +
            Loop + Ind + "  " + Name + "[" + Idx + "] = 0;\n";
    Tail += Loop + Ind + "  if (" + Name + "[" + Idx + "] != 0)\n" + Ind +
            "    atomicAdd(&" + P->getName().str() + "[" + Idx + "], " + Name +
            "[" + Idx + "]);\n";
    if (A->Flt) {
      Fix.Exact = Exactness::Reassociating;
      Fix.Rtol = 1e-4;
      Fix.Atol = 1e-5;
      Fix.ScaleRtol = 1e-4;
      Fix.GridSumParams.push_back(P->getName().str());
    }
    for (const BinAtomic &B : A->List) {
      if (!A->Window) {
        Fix.Edits.push_back(makeTextEdit(
            Ctx, CharSourceRange::getTokenRange(B.Base->getSourceRange()),
            Name));
        continue;
      }
      // `(unsigned long long)(i) < Nu ? atomicAdd(&bins[i], v)
      //                              : atomicAdd(&arr[i], v)`
      std::string I = sourceText(Ctx, B.Index->getSourceRange());
      std::string V = sourceText(Ctx, B.Call->getArg(1)->getSourceRange());
      std::string Callee =
          sourceText(Ctx, B.Call->getCallee()->getSourceRange());
      if (I.empty() || V.empty() || Callee.empty()) {
        Why = "an atomic's text cannot be read";
        break;
      }
      Fix.Edits.push_back(makeTextEdit(
          Ctx, CharSourceRange::getTokenRange(B.Call->getSourceRange()),
          "((unsigned long long)(" + I + ") < " + std::to_string(A->Bins) +
              "ull ? " + Callee + "(&" + Name + "[" + I + "], " + V +
              ") : " + Callee + "(&" + P->getName().str() + "[" + I + "], " +
              V + "))"));
    }
    Names += (Names.empty() ? "'" : ", '") + P->getName().str() + "'";
  }
  if (!Why.empty()) {
    for (Privatised &A : Arrays)
      reportWithoutFix(std::move(A.Fd), A.Why.empty() ? Why : A.Why);
    return;
  }
  Head += Ind + "__syncthreads();";
  // The grid-stride form: every privatised atomic inside one top-level
  // `if (... i < n ...)`, the launches in view: fewer blocks, each running
  // that statement for several of the original blocks, so that each
  // block's bins are zeroed and added up once for many of them.
  std::optional<GridStrideText> GS;
  const IfStmt *GTop = nullptr;
  if (Guards.empty()) {
    for (const Stmt *S : Body->body()) {
      const auto *If = dyn_cast<IfStmt>(S);
      if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
        continue;
      bool All = true;
      for (Privatised *A : Fixed)
        for (const BinAtomic &B : A->List)
          All = All && If->getSourceRange().fullyContains(
                           B.Call->getSourceRange());
      if (All)
        GTop = If;
    }
    std::string GSWhy;
    if (GTop && !inMacro(GTop->getSourceRange()))
      GS = gridStride(Ctx, context(), K, F, GTop, GTop->getCond(), nullptr,
                      GSWhy);
  }
  if (GS) {
    Fix.Edits.push_back(makeInsertion(
        Ctx, GTop->getBeginLoc(),
        GS->Head + "\n" + Ind + "  " + GS->Index + "\n" + Ind + "  "));
    // The statement's other lines one level deeper (only where a line
    // starts with blanks: no other edit starts there).
    SourceLocation TB = SM.getExpansionLoc(GTop->getBeginLoc());
    unsigned B = SM.getFileOffset(TB),
             E = SM.getFileOffset(SM.getExpansionLoc(GTop->getEndLoc()));
    FileID FID = SM.getFileID(TB);
    StringRef Buf = SM.getBufferData(FID);
    SourceLocation FB = SM.getLocForStartOfFile(FID);
    // Not inside another edit (a window's atomic replaced whole, written
    // over two lines).
    auto InsideEdit = [&](unsigned Off) {
      for (const TextEdit &T : Fix.Edits)
        if (T.Offset < Off && Off < T.Offset + T.Length)
          return true;
      return false;
    };
    for (unsigned At = B; At < E && At < Buf.size(); ++At)
      if (Buf[At] == '\n' && At + 1 < Buf.size() &&
          (Buf[At + 1] == ' ' || Buf[At + 1] == '\t') && !InsideEdit(At + 1))
        Fix.Edits.push_back(
            makeInsertion(Ctx, FB.getLocWithOffset(At + 1), "  "));
    Fix.Edits.push_back(
        makeInsertion(Ctx, stmtEnd(Ctx, GTop), "\n" + Ind + "}"));
    for (TextEdit &E : GS->LaunchEdits)
      Fix.Edits.push_back(std::move(E));
  }
  for (size_t I = 0; I < Guards.size(); ++I)
    Close += Ind + "}\n";
  Tail = Close + Ind + "__syncthreads();\n" + Tail;
  if (SM.getSpellingColumnNumber(Body->getRBracLoc()) != 1)
    Tail = "\n" + Tail;
  Fix.Edits.push_back(
      makeInsertion(Ctx, Body->getLBracLoc().getLocWithOffset(1), Head));
  for (TextEdit &E : GuardEdits)
    Fix.Edits.push_back(E);
  Fix.Edits.push_back(makeInsertion(Ctx, Body->getRBracLoc(), Tail));
  Fix.Description =
      Fixed.size() == 1 && !AnyWindow
          ? "per-block bins in shared memory, one atomicAdd per non-empty "
            "bin per block"
          : "per-block copies of " + Names +
                " in shared memory, one atomicAdd per non-zero element per "
                "block";
  if (GS)
    Fix.Description += "; the launches keep at most " +
                       std::to_string(GridStrideBlocks) +
                       " blocks, each covering the original blocks " +
                       GS->Axis;
  // The fix goes with the first array's finding; the others say so.
  std::string FirstName = Fixed.front()->P->getName().str();
  for (Privatised &A : Arrays) {
    if (&A == Fixed.front()) {
      A.Fd.Fix = Fix;
      report(std::move(A.Fd));
    } else if (A.Why.empty()) {
      reportWithoutFix(std::move(A.Fd), "privatised by the fix given for '" +
                                            FirstName + "'");
    } else {
      reportWithoutFix(std::move(A.Fd), A.Why);
    }
  }
}

} // namespace cudal1
