//===- LaunchStepDoublingScan.cpp - launch-step-doubling-scan -------------===//
//
// The textbook first GPU prefix sum: step doubling (Hillis-Steele) over
// global memory, one launch per step, the two buffers swapped after each:
//
//   __global__ void scan_step(int *in, int *out, int offset, int n) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) {
//       if (i >= offset) out[i] = in[i] + in[i - offset];
//       else             out[i] = in[i];
//     }
//   }
//   for (int offset = 1; offset < n; offset *= 2) {
//     scan_step<<<grid, block>>>(in, out, offset, n);
//     int *t = in; in = out; out = t;
//   }
//
// ceil(log2 n) passes, each reading the array twice and writing it once:
// 24 passes for 16 M elements. A tiled scan does the same in three (tile
// sums, a scan of the tile sums, each tile scanned with its prefix).
//
// Exactness. After L steps the buffer the loop's `in` ends on holds the
// inclusive sums S, the other one the sums of windows of W = 2^(L-1)
// elements (the result of step L - 1), which is S[i] - S[i - W] for i >= W
// and S[i] below: the fix writes both. Integer sums are taken modulo 2^w
// (unsigned arithmetic of the element's width), which is what the loop's
// additions give, so both buffers are bitwise the loop's for integer
// element types. Floating-point scans are reported without a fix (another
// association order). The loop itself stays, without its launch, so that
// the pointers, the loop variable and the step count end as before.
//
// What the analysis cannot see is checked when the program runs: the fast
// path is taken only when the two buffers do not overlap, the launch's
// grid covers n threads along x and its shape is one CUDA accepts, n fits
// the scratch space (2^31 elements) and the element type is an integer;
// otherwise the original loop runs, as written.
//
//===----------------------------------------------------------------------===//
#include "LaunchStepDoublingScan.h"
#include "HostStatements.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const Expr *bare(const Expr *E) { return E ? E->IgnoreParenImpCasts() : nullptr; }

/// The one statement of \p S (itself, or the only statement of a block).
const Stmt *single(const Stmt *S) {
  while (const auto *CS = dyn_cast_or_null<CompoundStmt>(S)) {
    if (CS->size() != 1)
      return nullptr;
    S = CS->body_front();
  }
  return S;
}

/// The statements of \p S (a block's, or \p S alone).
std::vector<const Stmt *> statements(const Stmt *S) {
  std::vector<const Stmt *> R;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    R.assign(CS->body_begin(), CS->body_end());
  else if (S)
    R.push_back(S);
  return R;
}

/// What the step kernel is, once matched.
struct StepKernel {
  const VarDecl *Idx = nullptr;
  const ParmVarDecl *In = nullptr, *Out = nullptr, *Off = nullptr,
                    *N = nullptr;
  unsigned InPos = 0, OutPos = 0, OffPos = 0, NPos = 0;
};

class KernelMatcher {
public:
  explicit KernelMatcher(StepKernel &K) : K(K) {}

  /// `p[Idx]`: sets or checks the parameter \p P.
  bool elemOf(const Expr *E, const ParmVarDecl *&P) {
    const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(bare(E));
    if (!A || varOf(A->getIdx()) != K.Idx)
      return false;
    return param(A->getBase(), P);
  }
  /// `in[Idx - off]`.
  bool shifted(const Expr *E) {
    const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(bare(E));
    if (!A)
      return false;
    const auto *S = dyn_cast<BinaryOperator>(bare(A->getIdx()));
    if (!S || S->getOpcode() != BO_Sub || varOf(S->getLHS()) != K.Idx)
      return false;
    return param(A->getBase(), K.In) && param(S->getRHS(), K.Off);
  }
  enum class Val { None, Elem, Sum };
  Val value(const Expr *E) {
    E = bare(E);
    if (elemOf(E, K.In))
      return Val::Elem;
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(E))
      if (B->getOpcode() == BO_Add &&
          ((elemOf(B->getLHS(), K.In) && shifted(B->getRHS())) ||
           (shifted(B->getLHS()) && elemOf(B->getRHS(), K.In))))
        return Val::Sum;
    return Val::None;
  }
  /// `Idx >= off` (or `off <= Idx`): 1; `Idx < off` (or `off > Idx`): 0;
  /// anything else: -1.
  int atOrAfterOffset(const Expr *E) {
    const auto *B = dyn_cast_or_null<BinaryOperator>(bare(E));
    if (!B)
      return -1;
    bool IdxLeft = varOf(B->getLHS()) == K.Idx;
    bool IdxRight = varOf(B->getRHS()) == K.Idx;
    if (IdxLeft && param(B->getRHS(), K.Off)) {
      if (B->getOpcode() == BO_GE)
        return 1;
      if (B->getOpcode() == BO_LT)
        return 0;
    }
    if (IdxRight && param(B->getLHS(), K.Off)) {
      if (B->getOpcode() == BO_LE)
        return 1;
      if (B->getOpcode() == BO_GT)
        return 0;
    }
    return -1;
  }
  /// `Idx < n` (1) or `Idx >= n` (0) with n a parameter; -1 otherwise.
  int insideGuard(const Expr *E) {
    const auto *B = dyn_cast_or_null<BinaryOperator>(bare(E));
    if (!B)
      return -1;
    if (varOf(B->getLHS()) == K.Idx && param(B->getRHS(), K.N)) {
      if (B->getOpcode() == BO_LT)
        return 1;
      if (B->getOpcode() == BO_GE)
        return 0;
    }
    if (varOf(B->getRHS()) == K.Idx && param(B->getLHS(), K.N)) {
      if (B->getOpcode() == BO_GT)
        return 1;
      if (B->getOpcode() == BO_LE)
        return 0;
    }
    return -1;
  }
  /// `out[Idx] = v` (plain assignment): its right-hand side.
  const Expr *store(const Stmt *S) {
    const auto *B = dyn_cast_or_null<BinaryOperator>(S);
    if (!B || B->getOpcode() != BO_Assign || !elemOf(B->getLHS(), K.Out))
      return nullptr;
    return B->getRHS();
  }
  /// `x += in[Idx - off]` where x is `out[Idx]` (\p OnOut) or the local
  /// \p Acc.
  bool addShifted(const Stmt *S, bool OnOut, const VarDecl *Acc) {
    const auto *B = dyn_cast_or_null<BinaryOperator>(S);
    if (!B)
      return false;
    auto IsTarget = [&](const Expr *X) {
      return OnOut ? elemOf(X, K.Out) : (Acc && varOf(X) == Acc);
    };
    if (B->getOpcode() == BO_AddAssign)
      return IsTarget(B->getLHS()) && shifted(B->getRHS());
    if (B->getOpcode() == BO_Assign && IsTarget(B->getLHS()))
      if (const auto *A = dyn_cast<BinaryOperator>(bare(B->getRHS())))
        return A->getOpcode() == BO_Add &&
               ((IsTarget(A->getLHS()) && shifted(A->getRHS())) ||
                (shifted(A->getLHS()) && IsTarget(A->getRHS())));
    return false;
  }

  /// The statements that compute out[Idx] for a thread inside the guard.
  bool core(const std::vector<const Stmt *> &Ss) {
    if (Ss.size() == 1) {
      // if (i >= offset) out[i] = in[i] + in[i - offset]; else out[i] = in[i];
      if (const auto *If = dyn_cast<IfStmt>(Ss[0])) {
        if (If->getInit() || If->getConditionVariable() || !If->getElse())
          return false;
        int Ge = atOrAfterOffset(If->getCond());
        const Expr *T = store(single(If->getThen()));
        const Expr *E = store(single(If->getElse()));
        if (Ge < 0 || !T || !E)
          return false;
        Val VT = value(T), VE = value(E);
        return Ge ? (VT == Val::Sum && VE == Val::Elem)
                  : (VT == Val::Elem && VE == Val::Sum);
      }
      // out[i] = i >= offset ? in[i] + in[i - offset] : in[i];
      const Expr *V = store(Ss[0]);
      const auto *CO = dyn_cast_or_null<ConditionalOperator>(bare(V));
      if (!CO)
        return false;
      int Ge = atOrAfterOffset(CO->getCond());
      Val VT = value(CO->getTrueExpr()), VE = value(CO->getFalseExpr());
      return Ge == 1 ? (VT == Val::Sum && VE == Val::Elem)
                     : Ge == 0 && VT == Val::Elem && VE == Val::Sum;
    }
    // out[i] = in[i]; if (i >= offset) out[i] += in[i - offset];
    if (Ss.size() == 2) {
      const Expr *V = store(Ss[0]);
      const auto *If = dyn_cast<IfStmt>(Ss[1]);
      if (!V || value(V) != Val::Elem || !If || If->getElse() ||
          If->getInit() || If->getConditionVariable() ||
          atOrAfterOffset(If->getCond()) != 1)
        return false;
      return addShifted(single(If->getThen()), true, nullptr);
    }
    // T v = in[i]; if (i >= offset) v += in[i - offset]; out[i] = v;
    if (Ss.size() == 3) {
      const auto *DS = dyn_cast<DeclStmt>(Ss[0]);
      const auto *V = DS && DS->isSingleDecl()
                          ? dyn_cast<VarDecl>(DS->getSingleDecl())
                          : nullptr;
      const auto *If = dyn_cast<IfStmt>(Ss[1]);
      if (!V || !V->getInit() || value(V->getInit()) != Val::Elem || !If ||
          If->getElse() || If->getInit() || If->getConditionVariable() ||
          atOrAfterOffset(If->getCond()) != 1 ||
          !addShifted(single(If->getThen()), false, V))
        return false;
      const Expr *St = store(Ss[2]);
      return St && varOf(St) == V && K.In &&
             V->getType().getCanonicalType() ==
                 K.In->getType()->getPointeeType().getCanonicalType()
                     .getUnqualifiedType();
    }
    return false;
  }

  bool body(const Stmt *Body) {
    std::vector<const Stmt *> Ss = statements(Body);
    if (Ss.size() < 2)
      return false;
    const auto *DS = dyn_cast<DeclStmt>(Ss[0]);
    const auto *I = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    if (!I || !I->getType()->isIntegerType() || !I->getInit() ||
        !isGlobalXIndex(I->getInit()))
      return false;
    K.Idx = I;
    const auto *If = dyn_cast<IfStmt>(Ss[1]);
    if (!If || If->getInit() || If->getConditionVariable())
      return false;
    int G = insideGuard(If->getCond());
    if (G == 1 && Ss.size() == 2 && !If->getElse())
      return core(statements(If->getThen()));
    // if (i >= n) return; ...
    const auto *R = dyn_cast_or_null<ReturnStmt>(single(If->getThen()));
    if (G == 0 && R && !R->getRetValue() && !If->getElse())
      return core(std::vector<const Stmt *>(Ss.begin() + 2, Ss.end()));
    return false;
  }

private:
  StepKernel &K;
  /// \p E names a parameter: sets \p P the first time, checks it after.
  bool param(const Expr *E, const ParmVarDecl *&P) {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(bare(E));
    const auto *Q = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!Q)
      return false;
    if (!P)
      P = Q;
    return P == Q;
  }
};

std::optional<StepKernel> matchStepKernel(const FunctionDecl *FD) {
  if (!FD->hasBody() || FD->isTemplated())
    return std::nullopt;
  StepKernel K;
  KernelMatcher M(K);
  if (!M.body(FD->getBody()))
    return std::nullopt;
  if (!K.In || !K.Out || !K.Off || !K.N)
    return std::nullopt;
  std::set<const ParmVarDecl *> Distinct = {K.In, K.Out, K.Off, K.N};
  if (Distinct.size() != 4 || !K.In->getType()->isPointerType() ||
      !K.Out->getType()->isPointerType() ||
      !K.Off->getType()->isIntegerType() || !K.N->getType()->isIntegerType())
    return std::nullopt;
  if (K.In->getType()->getPointeeType().getCanonicalType()
          .getUnqualifiedType() !=
      K.Out->getType()->getPointeeType().getCanonicalType()
          .getUnqualifiedType())
    return std::nullopt;
  FunctionFacts F = FunctionFacts::compute(FD);
  for (const VarDecl *V : {(const VarDecl *)K.Idx, (const VarDecl *)K.In,
                           (const VarDecl *)K.Out, (const VarDecl *)K.Off,
                           (const VarDecl *)K.N})
    if (F.isMutated(V))
      return std::nullopt;
  K.InPos = K.In->getFunctionScopeIndex();
  K.OutPos = K.Out->getFunctionScopeIndex();
  K.OffPos = K.Off->getFunctionScopeIndex();
  K.NPos = K.N->getFunctionScopeIndex();
  return K;
}

/// The integer element types the fix computes exactly (and their typedefs).
bool exactElement(QualType T) { return isWideInteger(T); }

/// The step-variable update of the loop: `o *= 2`, `o <<= 1`, `o = o * 2`,
/// `o = 2 * o`, `o += o`, `o = o + o`, `o = o << 1`.
bool doubles(ASTContext &C, const Expr *Inc, const VarDecl *O) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(bare(Inc));
  if (!B || varOf(B->getLHS()) != O)
    return false;
  auto Is = [&](const Expr *E, int64_t V) {
    auto X = evalInt(C, E);
    return X && *X == V;
  };
  switch (B->getOpcode()) {
  case BO_MulAssign:
    return Is(B->getRHS(), 2);
  case BO_ShlAssign:
    return Is(B->getRHS(), 1);
  case BO_AddAssign:
    return varOf(B->getRHS()) == O;
  case BO_Assign: {
    const auto *R = dyn_cast<BinaryOperator>(bare(B->getRHS()));
    if (!R)
      return false;
    bool L = varOf(R->getLHS()) == O, Rr = varOf(R->getRHS()) == O;
    if (R->getOpcode() == BO_Mul)
      return (L && Is(R->getRHS(), 2)) || (Rr && Is(R->getLHS(), 2));
    if (R->getOpcode() == BO_Add)
      return L && Rr;
    if (R->getOpcode() == BO_Shl)
      return L && Is(R->getRHS(), 1);
    return false;
  }
  default:
    return false;
  }
}

/// `T *t = P; P = Q; Q = t;` at \p I of \p Ss (or with P and Q exchanged),
/// or `std::swap(P, Q);`: the statements it takes (0 when none).
unsigned swapAt(const std::vector<const Stmt *> &Ss, size_t I,
                const VarDecl *P, const VarDecl *Q) {
  if (const auto *CE = dyn_cast<CallExpr>(Ss[I])) {
    const FunctionDecl *FD = CE->getDirectCallee();
    // std::swap only: a function of the program named swap may do anything.
    if (FD && FD->getIdentifier() && FD->getName() == "swap" &&
        FD->isInStdNamespace() && CE->getNumArgs() == 2) {
      const VarDecl *A = varOf(CE->getArg(0)), *B = varOf(CE->getArg(1));
      if ((A == P && B == Q) || (A == Q && B == P))
        return 1;
    }
    return 0;
  }
  if (I + 2 >= Ss.size())
    return 0;
  const auto *DS = dyn_cast<DeclStmt>(Ss[I]);
  const auto *T = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  if (!T || !T->getInit() || T->getType()->isReferenceType())
    return 0;
  const VarDecl *First = varOf(T->getInit());
  if (First != P && First != Q)
    return 0;
  const VarDecl *Second = First == P ? Q : P;
  auto Assign = [](const Stmt *S, const VarDecl *L, const VarDecl *R) {
    const auto *B = dyn_cast<BinaryOperator>(S);
    return B && B->getOpcode() == BO_Assign && varOf(B->getLHS()) == L &&
           varOf(B->getRHS()) == R;
  };
  if (Assign(Ss[I + 1], First, Second) && Assign(Ss[I + 2], Second, T))
    return 3;
  return 0;
}

/// The helpers the fix inserts once per translation unit (guarded).
const char *HelperText = R"cuda(#ifndef CUDAL1_STEP_DOUBLING_SCAN
#define CUDAL1_STEP_DOUBLING_SCAN
// cuda-l1 (launch-step-doubling-scan): what a step-doubling scan loop leaves
// in its two buffers, computed by a tiled scan in three passes. Sums are
// taken in unsigned arithmetic of the element's width (what the loop's
// integer additions give); the buffer the loop ends on gets the inclusive
// sums S, the other one the loop's last-but-one step, S[i] - S[i - w].
#define CUDAL1_SCAN_TILE 2048
#define CUDAL1_SCAN_MAX_TILES (1 << 20)
static __device__ unsigned long long cudal1_scan_sums[CUDAL1_SCAN_MAX_TILES];
template <int Bytes> struct cudal1_scan_word { typedef unsigned long long type; };
template <> struct cudal1_scan_word<4> { typedef unsigned int type; };
template <typename U> __device__ U cudal1_scan_warp(U x) {
  for (int o = 1; o < 32; o <<= 1) {
    U y = __shfl_up_sync(0xffffffffu, x, o);
    if ((int)(threadIdx.x & 31) >= o)
      x += y;
  }
  return x;
}
template <typename T, typename U>
__global__ void cudal1_scan_tile_sums(const T *in, long long n) {
  __shared__ U part[8];
  U *sums = reinterpret_cast<U *>(cudal1_scan_sums);
  long long base = (long long)blockIdx.x * CUDAL1_SCAN_TILE;
  U s = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    long long i = base + k * 256 + threadIdx.x;
    if (i < n)
      s += (U)in[i];
  }
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0)
    part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    U t = 0;
    for (int w = 0; w < 8; w++)
      t += part[w];
    sums[blockIdx.x] = t;
  }
}
template <typename U> __global__ void cudal1_scan_tile_carry(long long tiles) {
  __shared__ U part[32];
  U *sums = reinterpret_cast<U *>(cudal1_scan_sums);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  U carry = 0;
  for (long long base = 0; base < tiles; base += 1024) {
    long long i = base + threadIdx.x;
    U v = i < tiles ? sums[i] : (U)0;
    U x = cudal1_scan_warp(v);
    if (lane == 31)
      part[warp] = x;
    __syncthreads();
    // Every warp scans the 32 warp totals (no warp-0-only branch).
    U w = cudal1_scan_warp(part[lane]);
    U prev = __shfl_sync(0xffffffffu, w, (warp + 31) & 31);
    U total = __shfl_sync(0xffffffffu, w, 31);
    if (i < tiles)
      sums[i] = carry + (warp > 0 ? prev : (U)0) + x - v;
    carry += total;
    __syncthreads();
  }
}
// in and out are one buffer when the loop ends on its input (even steps).
template <typename T, typename U>
__global__ void cudal1_scan_tiles(const T *in, T *out, long long n) { // NOLINT(memory-restrict)
  __shared__ U tile[CUDAL1_SCAN_TILE + 64];
  __shared__ U part[8];
  const U *sums = reinterpret_cast<const U *>(cudal1_scan_sums);
  long long base = (long long)blockIdx.x * CUDAL1_SCAN_TILE;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    int j = k * 256 + threadIdx.x;
    tile[j + (j >> 5)] = base + j < n ? (U)in[base + j] : (U)0;
  }
  __syncthreads();
  U mine[8], run = 0;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    int j = threadIdx.x * 8 + k;
    run += tile[j + (j >> 5)];
    mine[k] = run;
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  U x = cudal1_scan_warp(run);
  if (lane == 31)
    part[warp] = x;
  __syncthreads();
  U w = cudal1_scan_warp(lane < 8 ? part[lane] : (U)0);
  U prev = __shfl_sync(0xffffffffu, w, (warp + 31) & 31);
  U before = sums[blockIdx.x] + (warp > 0 ? prev : (U)0) + x - run;
#pragma unroll
  for (int k = 0; k < 8; k++) {
    int j = threadIdx.x * 8 + k;
    tile[j + (j >> 5)] = before + mine[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 8; k++) {
    int j = k * 256 + threadIdx.x;
    if (base + j < n)
      out[base + j] = (T)tile[j + (j >> 5)];
  }
}
template <typename T, typename U>
__global__ void cudal1_scan_window(const T *__restrict__ s, T *__restrict__ other, long long n, long long w) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    other[i] = i >= w ? (T)((U)s[i] - (U)s[i - w]) : s[i];
}
// The fast path applies: an integer element type, buffers that do not
// overlap, a launch shape CUDA accepts whose grid covers n threads along x,
// n within the scratch space.
template <typename T>
static bool cudal1_step_scan_fits(const T *p, const T *q, long long n, dim3 g, dim3 b) {
  if (!((T)1 / (T)2 == (T)0))
    return false;
  unsigned long long bytes = (unsigned long long)(n > 0 ? n : 0) * sizeof(T);
  unsigned long long a = (unsigned long long)(size_t)p, c = (unsigned long long)(size_t)q;
  return (a + bytes <= c || c + bytes <= a) && b.x >= 1 && b.y >= 1 && b.z >= 1 &&
         b.x <= 1024 && b.y <= 1024 && b.z <= 64 &&
         (unsigned long long)b.x * b.y * b.z <= 1024 && g.x >= 1 && g.y >= 1 &&
         g.z >= 1 && g.x <= 2147483647u && g.y <= 65535 && g.z <= 65535 &&
         (unsigned long long)g.x * b.x >= (unsigned long long)(n > 0 ? n : 0) &&
         n <= (long long)CUDAL1_SCAN_TILE * CUDAL1_SCAN_MAX_TILES;
}
// The loop made `steps` steps, the last with offset w: p was its first
// input buffer, q its first output buffer.
template <typename T>
static void cudal1_step_scan_run(T *p, T *q, long long n, int steps, long long w) {
  typedef typename cudal1_scan_word<sizeof(T)>::type U;
  T *dst = (steps & 1) ? q : p, *other = (steps & 1) ? p : q;
  long long tiles = (n + CUDAL1_SCAN_TILE - 1) / CUDAL1_SCAN_TILE;
  cudal1_scan_tile_sums<T, U><<<(unsigned int)tiles, 256>>>(p, n);
  cudal1_scan_tile_carry<U><<<1, 1024>>>(tiles); // NOLINT(launch-small-grid): one block carries the tile sums
  cudal1_scan_tiles<T, U><<<(unsigned int)tiles, 256>>>(p, dst, n);
  if (steps > 1) {
    long long blocks = (n + 255) / 256;
    cudal1_scan_window<T, U><<<(unsigned int)(blocks < 65536 ? blocks : 65536), 256>>>(dst, other, n, w);
  }
}
#endif
)cuda";

} // namespace

RuleInfo LaunchStepDoublingScan::info() const {
  RuleInfo I;
  I.Id = "launch-step-doubling-scan";
  I.Category = "launch";
  I.Summary = "a prefix sum by step doubling over global memory, one launch "
              "per step: a tiled scan does it in three passes";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise for integer element types (sums modulo 2^w, as "
                    "the loop's additions); floating-point scans are "
                    "reported without a fix";
  I.Help =
      "A host loop doubles an offset from 1 to n and launches a kernel "
      "that adds in[i - offset] to in[i] into a second buffer, then swaps "
      "the buffers: ceil(log2 n) launches, each reading the whole array "
      "twice and writing it once. A tiled scan (tile sums, a scan of the "
      "tile sums, each tile scanned with its prefix) reads it twice and "
      "writes it once in all; both buffers end as the loop leaves them.";
  I.Doc.Detects =
      "A kernel whose body is `i = blockIdx.x * blockDim.x + threadIdx.x` "
      "(any operand order), a guard `if (i < n) { ... }` or `if (i >= n) "
      "return;`, and one Hillis-Steele step written as `if (i >= offset) "
      "out[i] = in[i] + in[i - offset]; else out[i] = in[i];` (either "
      "branch order, `offset <= i`), `out[i] = i >= offset ? in[i] + in[i - "
      "offset] : in[i];`, `out[i] = in[i]; if (i >= offset) out[i] += in[i "
      "- offset];` or with a local (`v = in[i]; if (i >= offset) v += in[i "
      "- offset]; out[i] = v;`), launched as a statement of a host `for` "
      "loop `for (offset = 1; offset < n; offset *= 2)` (or `<<= 1`, `= "
      "offset * 2`, `+= offset`) with the loop's variable as the offset and "
      "the loop's bound as n, whose other statements swap the two buffer "
      "pointers after the launch (`T *t = in; in = out; out = t;` or "
      "`std::swap(in, out)`) and check errors or synchronise "
      "(`CUDA_CHECK(cudaGetLastError())`, `cudaDeviceSynchronize()`). One "
      "finding per loop. Floating-point element types are reported without "
      "a fix.";
  I.Doc.WhySlow =
      "Every step is a full pass over the array: 16 M elements take 24 "
      "launches, each reading 128 MB and writing 64 MB, about 1.4 ms on an "
      "H200 for what one read and one write (about 0.1 ms) can do. The "
      "loop was written for clarity; the three passes of a tiled scan are "
      "the same sum.";
  I.Doc.Example = R"cuda(__global__ void scan_step(int *in, int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i >= offset) out[i] = in[i] + in[i - offset];
    else out[i] = in[i];
  }
}
...
for (int offset = 1; offset < n; offset *= 2) {   // warning
  scan_step<<<grid, block>>>(in, out, offset, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  int *t = in; in = out; out = t;
})cuda";
  I.Doc.Fixed = R"cuda(// before the function: the helpers, once per file (#ifndef-guarded):
// cudal1_step_scan_fits, cudal1_step_scan_run and four kernels
if (cudal1_step_scan_fits(in, out, (long long)(n), grid, block)) {
  auto *cudal1_p = in;
  auto *cudal1_q = out;
  long long cudal1_w = 0;
  int cudal1_steps = 0;
  for (int offset = 1; offset < n; offset *= 2) {
    cudal1_w = offset;
    ++cudal1_steps;
    int *t = in; in = out; out = t;
  }
  if (cudal1_steps > 0) {
    cudal1_step_scan_run(cudal1_p, cudal1_q, (long long)(n), cudal1_steps, cudal1_w);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
} else
  for (int offset = 1; offset < n; offset *= 2) {   // the loop as written
    ...
  })cuda";
  I.Doc.Fix =
      "Inserts, once per file and before the function holding the loop, a "
      "guarded block of helpers: four kernels (tile sums of 2048 elements, "
      "one block scanning the tile sums, each tile scanned in shared memory "
      "with its prefix, and the window differences) and two host functions. "
      "The loop becomes an `if`: when `cudal1_step_scan_fits` holds, the "
      "loop runs without its launch (the pointers, the loop variable and "
      "the step count end as before; it records the last offset), then "
      "`cudal1_step_scan_run` writes the inclusive sums into the buffer the "
      "loop ends on and the loop's last-but-one step (S[i] - S[i - w], w "
      "the last offset) into the other, and the loop's error-check and "
      "synchronisation statements run once after it. Otherwise the loop "
      "runs as written. The runtime test covers what the analysis cannot "
      "see: the two buffers do not overlap, the grid covers n threads "
      "along x and the launch shape is one CUDA accepts, n is at most 2^31 "
      "(the helpers' scratch, a `__device__` array of 8 MB) and the element "
      "type is an integer (if its macro is later redefined as a floating "
      "type, the original loop runs). Sums are taken modulo 2^w in unsigned "
      "arithmetic, as the loop's additions, so both buffers are bitwise the "
      "loop's. Host code and new kernels only (the step kernel is not "
      "changed): `--fix` applies it, and so does `--fix --verify=run` (no "
      "kernel of the program to run; it says so); `--app-test` runs your "
      "test on the result. The scratch is shared: scans running at the "
      "same time on several streams or host threads are not supported "
      "(the loop uses the default stream).";
  return I;
}

void LaunchStepDoublingScan::checkTranslationUnit() {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const SharedRuleFacts &SF = sharedFacts(C, context());
  for (const FunctionDecl *K : SF.Kernels) {
    auto SK = matchStepKernel(K);
    if (!SK)
      continue;
    for (const CUDAKernelCallExpr *Site : launchSitesOf(C, context(), K)) {
      if (!isUserCode(Site->getBeginLoc()))
        continue;
      const FunctionDecl *Fn = functionOf(*Site);
      if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn) ||
          Fn->isTemplated())
        continue;
      // The launch is a statement (not a part of `c ? launch : x`) of the
      // body of a for loop.
      const CompoundStmt *Body = nullptr;
      const Stmt *LaunchStmt = nullptr;
      const ForStmt *L = loopOfLaunch(C, Site, LaunchStmt, Body);
      if (!L)
        continue;
      // The loop header: offset from 1, doubling, below the bound.
      const VarDecl *O = nullptr;
      std::optional<int64_t> Start;
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(L->getInit())) {
        if (DS->isSingleDecl())
          if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl()))
            if (V->getInit()) {
              O = V;
              Start = evalInt(C, V->getInit());
            }
      } else if (const auto *B =
                     dyn_cast_or_null<BinaryOperator>(L->getInit())) {
        if (B->getOpcode() == BO_Assign) {
          O = varOf(B->getLHS());
          Start = evalInt(C, B->getRHS());
        }
      }
      const auto *Cond = dyn_cast_or_null<BinaryOperator>(bare(L->getCond()));
      if (!O || !Start || *Start != 1 || !O->getType()->isIntegerType() ||
          !Cond || Cond->getOpcode() != BO_LT || varOf(Cond->getLHS()) != O ||
          !doubles(C, L->getInc(), O))
        continue;
      const Expr *Bound = Cond->getRHS();
      // The launch's arguments: the loop variable, the bound, two pointers.
      if (Site->getNumArgs() != K->getNumParams() ||
          varOf(Site->getArg(SK->OffPos)) != O)
        continue;
      const Expr *NArg = Site->getArg(SK->NPos);
      bool SameN = sameExpr(C, NArg, Bound);
      if (!SameN) {
        auto A = evalInt(C, NArg), B = evalInt(C, Bound);
        SameN = A && B && *A == *B;
      }
      const VarDecl *P = varOf(Site->getArg(SK->InPos));
      const VarDecl *Q = varOf(Site->getArg(SK->OutPos));
      if (!SameN || !P || !Q || P == Q || !P->hasLocalStorage() ||
          !Q->hasLocalStorage())
        continue;
      // Idempotence: the loop kept as the fallback of an earlier fix (the
      // else branch, or a statement of its block).
      {
        bool Fallback = false;
        DynTypedNode N = DynTypedNode::create(*(const Stmt *)L);
        for (unsigned D = 0; D < 2 && !Fallback; ++D) {
          auto Ps = C.getParents(N);
          if (Ps.empty())
            break;
          if (const auto *If = Ps[0].get<IfStmt>())
            Fallback = If->getElse() == N.get<Stmt>() &&
                       sourceText(C, If->getCond()->getSourceRange())
                               .find("cudal1_step_scan_fits") !=
                           std::string::npos;
          N = Ps[0];
        }
        if (Fallback)
          continue;
      }
      if (!firstInUserCode(L->getBeginLoc()))
        continue;
      std::string KN = K->getNameAsString();
      QualType Elem = SK->In->getType()->getPointeeType();
      Finding &F = reportLater(finding(
          L->getBeginLoc(),
          "a prefix sum by step doubling over global memory: '" + KN +
              "' is launched once per step (ceil(log2 n) passes over the "
              "whole array, each reading it twice and writing it once); a "
              "tiled scan takes three passes",
          nullptr, SourceRange(L->getBeginLoc(), L->getRParenLoc())));
      note(F, Site->getBeginLoc(), "the step launch");

      // --- legality -----------------------------------------------------------
      if (!exactElement(Elem)) {
        refuse(F, "the elements are '" + Elem.getAsString() +
                      "': a tiled scan adds them in another order (bitwise "
                      "only for int, unsigned, long and long long)");
        continue;
      }
      auto Pointee = [](QualType T) {
        return T->isPointerType() ? T->getPointeeType() : QualType();
      };
      QualType PE = Pointee(P->getType()), QE = Pointee(Q->getType());
      if (PE.isNull() || QE.isNull() || PE.isConstQualified() ||
          QE.isConstQualified() ||
          PE.getCanonicalType() != QE.getCanonicalType() ||
          PE.getCanonicalType().getUnqualifiedType() !=
              Elem.getCanonicalType().getUnqualifiedType()) {
        refuse(F, "the buffers '" + P->getNameAsString() + "' and '" +
                      Q->getNameAsString() +
                      "' are not both writable pointers to the kernel's "
                      "element type");
        continue;
      }
      // The kernel's index, offset and size hold every value the loop
      // gives them (a narrower parameter would wrap).
      {
        auto Bits = [&](QualType T) { return C.getTypeSize(T); };
        uint64_t LoopBits =
            std::max(Bits(O->getType()), Bits(Bound->getType()));
        if (Bits(SK->Off->getType()) < LoopBits ||
            Bits(SK->N->getType()) < LoopBits ||
            Bits(SK->Idx->getType()) < Bits(SK->N->getType()) ||
            Bits(SK->Idx->getType()) < 32) {
          refuse(F, "the kernel's index, offset or size parameter is "
                    "narrower than the loop's values");
          continue;
        }
      }
      const CallExpr *Cfg = Site->getConfig();
      if (!Cfg || Cfg->getNumArgs() < 2) {
        refuse(F, "the launch's configuration is not visible");
        continue;
      }
      if (!defaultStreamNoSharedMemory(C, Site)) {
        refuse(F, "the launch names dynamic shared memory or a stream");
        continue;
      }
      std::set<const VarDecl *> Changed = varsChangedIn(L);
      auto Invariant = [&](const Expr *E) {
        // dim3(a, b), {a, b}: pure components.
        const Expr *B = E->IgnoreParenImpCasts();
        bool Pure = pureLaunchValue(C, E);
        if (!Pure)
          if (const auto *IL = dyn_cast<InitListExpr>(B)) {
            Pure = true;
            for (const Expr *A : IL->inits())
              Pure &= isPure(C, A);
          }
        if (!Pure)
          return false;
        // Reads no variable the loop changes.
        bool Ok = true;
        forEachStmt(E, [&](const Stmt *X) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
              Ok &= !Changed.count(V);
        });
        return Ok;
      };
      auto Dim = [](const Expr *E) {
        const Expr *W = writtenLaunchDim(E);
        return W ? W : E;
      };
      if (!Invariant(Dim(Cfg->getArg(0))) || !Invariant(Dim(Cfg->getArg(1))) ||
          !Invariant(Bound)) {
        refuse(F, "the launch's grid, block or the loop's bound changes in "
                  "the loop or has side effects");
        continue;
      }
      bool ArgsPure = true;
      for (unsigned A = 0; A < Site->getNumArgs(); ++A)
        ArgsPure &= isPure(C, Site->getArg(A));
      if (!ArgsPure) {
        refuse(F, "a launch argument has side effects");
        continue;
      }
      // The loop body: the launch, the swap after it, error checks.
      std::vector<const Stmt *> Ss(Body->body_begin(), Body->body_end());
      std::set<const VarDecl *> Avoid = {O, P, Q};
      std::vector<const Stmt *> Checks;
      std::string Why;
      bool SeenLaunch = false;
      unsigned Swaps = 0;
      size_t SwapBegin = 0, SwapEnd = 0;
      for (size_t I = 0; I < Ss.size() && Why.empty();) {
        if (Ss[I] == LaunchStmt) {
          SeenLaunch = true;
          ++I;
          continue;
        }
        if (unsigned N = swapAt(Ss, I, P, Q)) {
          if (!SeenLaunch)
            Why = "the buffers are swapped before the launch";
          SwapBegin = I;
          SwapEnd = I + N;
          ++Swaps;
          I += N;
          continue;
        }
        if (errorCheckOnly(C, Ss[I], Avoid)) {
          Checks.push_back(Ss[I]);
          ++I;
          continue;
        }
        Why = "the loop does more than the launch, the swap of '" +
              P->getNameAsString() + "' and '" + Q->getNameAsString() +
              "' and error checks (line " +
              std::to_string(SM.getExpansionLineNumber(Ss[I]->getBeginLoc())) +
              ")";
      }
      if (Why.empty() && Swaps != 1)
        Why = "the loop does not swap '" + P->getNameAsString() + "' and '" +
              Q->getNameAsString() + "' once per step";
      if (!Why.empty()) {
        refuse(F, Why);
        continue;
      }
      // Nothing else in the loop writes the buffers' pointers, the bound
      // or the loop variable (the swap's own writes aside).
      {
        std::set<const VarDecl *> Written;
        for (size_t I = 0; I < Ss.size(); ++I)
          if (I < SwapBegin || I >= SwapEnd)
            for (const VarDecl *V : varsWrittenIn(Ss[I]))
              Written.insert(V);
        if (Written.count(P) || Written.count(Q) || Written.count(O)) {
          refuse(F, "the loop changes the buffers' pointers or its variable "
                    "outside the swap");
          continue;
        }
      }
      // --- edits --------------------------------------------------------------
      auto Edit = loopEdit(C, L, Fn, Why);
      if (!Edit) {
        refuse(F, Why);
        continue;
      }
      const CharSourceRange *ER = &Edit->first;
      SourceLocation TopLoc = Edit->second;
      std::string LoopText = sourceText(C, L->getSourceRange());
      std::string Ind = indentOf(C, L->getBeginLoc());
      std::string PN = P->getNameAsString(), QN = Q->getNameAsString();
      std::string ON = O->getNameAsString();
      std::string BoundT = sourceText(C, Bound->getSourceRange());
      std::string GridT = sourceText(C, Cfg->getArg(0)->getSourceRange());
      std::string BlockT = sourceText(C, Cfg->getArg(1)->getSourceRange());
      if (LoopText.empty() || BoundT.empty() || GridT.empty() ||
          BlockT.empty()) {
        refuse(F, "the loop's text cannot be read from the file");
        continue;
      }
      std::string PV = freshName(C, context(), Fn, "cudal1_p");
      std::string QV = freshName(C, context(), Fn, "cudal1_q");
      std::string WV = freshName(C, context(), Fn, "cudal1_w");
      std::string SV = freshName(C, context(), Fn, "cudal1_steps");
      // The pointer-only loop: the header as written, the swap.
      std::string Header =
          sourceText(C, SourceRange(L->getBeginLoc(), L->getRParenLoc()));
      auto StmtText = [&](const Stmt *S) { return statementText(C, S); };
      std::string SwapText, CheckText;
      bool ChecksOk = true;
      for (size_t I = SwapBegin; I < SwapEnd; ++I) {
        std::string T = StmtText(Ss[I]);
        ChecksOk &= !T.empty();
        SwapText += "\n" + Ind + "    " + T;
      }
      for (const Stmt *S : Checks) {
        std::string T = StmtText(S);
        ChecksOk &= !T.empty();
        CheckText += "\n" + Ind + "    " + T;
      }
      if (Header.empty() || SwapText.empty() || !ChecksOk) {
        refuse(F, "the loop's statements cannot be read from the file");
        continue;
      }
      std::string NT = "(long long)(" + BoundT + ")";
      std::string Text =
          "if (cudal1_step_scan_fits(" + PN + ", " + QN + ", " + NT + ", " +
          GridT + ", " + BlockT + ")) {\n" + Ind +
          "  // cuda-l1 launch-step-doubling-scan: the loop without its "
          "launches ('" + KN + "'), then a tiled scan\n" + Ind + "  auto *" +
          PV + " = " + PN + ";\n" + Ind + "  auto *" + QV + " = " + QN +
          ";\n" + Ind + "  long long " + WV + " = 0;\n" + Ind + "  int " +
          SV + " = 0;\n" + Ind + "  " + Header + " {\n" + Ind + "    " + WV +
          " = " + ON + ";\n" + Ind + "    ++" + SV + ";" + SwapText + "\n" +
          Ind + "  }\n" + Ind + "  if (" + SV + " > 0) {\n" + Ind +
          "    cudal1_step_scan_run(" + PV + ", " + QV + ", " + NT + ", " +
          SV + ", " + WV + ");" + CheckText + "\n" + Ind + "  }\n" + Ind +
          "} else {\n" + Ind + "  " + reindent(LoopText, "  ") + "\n" + Ind +
          "}";
      FixIt X;
      X.Exact = Exactness::Bitwise;
      X.HostOnly = true;
      X.Description = "a tiled scan in three passes (plus one for the other "
                      "buffer) in place of the " +
                      std::string("step loop of '") + KN + "'";
      X.Edits.push_back(makeTextEdit(C, *ER, Text));
      // The helpers, unless the file has them (an earlier fix); two loops
      // of one file each insert them, the guard keeps one definition.
      if (C.getTranslationUnitDecl()
              ->lookup(&C.Idents.get("cudal1_step_scan_run"))
              .empty())
        X.Edits.push_back(
            makeInsertion(C, TopLoc, std::string(HelperText) + "\n"));
      F.Fix = std::move(X);
    }
  }
}

} // namespace cudal1
