//===- CoalescingUncoalescedAccess.cpp - coalescing-uncoalesced-access ----===//
//
// coalescing-uncoalesced-access: from the symbolic access analysis, global
// accesses whose lanes each touch their own 32-byte sector.
//
//===----------------------------------------------------------------------===//
#include "CoalescingUncoalescedAccess.h"

#include "../AccessNotes.h"

#include <map>

#include <vector>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// For a load that runs once per thread (in no loop), in a block of known
/// shape: the traffic of the block as a whole when its lanes are rows apart
/// along threadIdx.x but another thread dimension walks consecutive
/// elements (`f[c + b * n]`, `c` from threadIdx.y, `b` from threadIdx.x in
/// a 16x16 block): each row gets a run of that dimension's extent of
/// elements, fetched as at most one sector more than the run's bytes, and
/// the sibling warps' requests for a sector one of them fetched are L1
/// hits. The bound on sectors fetched over bytes used, or none.
std::optional<double> blockRunFactor(const KernelAnalysis &K,
                                     const MemAccess &A) {
  if (!A.Loops.empty() || !A.IsRead || A.IsWrite || A.IsAtomic ||
      !A.Address.isKnown() || !A.ElemBytes || A.AccessBytes != A.ElemBytes)
    return std::nullopt;
  static const char *Dims[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  int Run = -1;
  for (int D = 0; D < 3; ++D) {
    if (!K.Block[D])
      return std::nullopt;
    std::optional<int64_t> C = A.Address.coefficientOf(Dims[D]).constantValue();
    if (C && *C == int64_t(A.ElemBytes) && K.Block[D] > 1 && D != 0)
      Run = D;
  }
  if (Run < 0)
    return std::nullopt;
  int64_t RunBytes = int64_t(K.Block[Run]) * A.ElemBytes;
  // The other dimensions start runs that do not overlap: a symbolic row
  // length (the finding's own condition takes rows 32 bytes or more
  // apart), or a constant one of at least the run.
  for (int D = 0; D < 3; ++D) {
    if (D == Run || K.Block[D] == 1)
      continue;
    AffineExpr C = A.Address.coefficientOf(Dims[D]);
    if (!C.isKnown())
      return std::nullopt;
    std::optional<int64_t> V = C.constantValue();
    if (V && (*V < 0 ? -*V : *V) < RunBytes)
      return std::nullopt;
  }
  int64_t Sectors = (RunBytes + 31) / 32 + 1;
  return double(Sectors * 32) / double(RunBytes);
}

} // namespace

RuleInfo CoalescingUncoalescedAccess::info() const {
  RuleInfo I;
  I.Id = "coalescing-uncoalesced-access";
  I.Category = "coalescing";
  I.Summary = "global access indexed with the thread index in the slow "
              "(row) dimension";
  I.Help = "When threadIdx.x multiplies a row length, every lane of a warp "
           "touches a different 32-byte sector: up to 32 sectors per "
           "request instead of 4 for 4-byte elements. Swap the roles of the "
           "indices or stage the tile through shared memory.";
  I.DefaultOptions["MinFactor"] = "2";
  I.Doc.Detects =
      "A global load or store whose address moves by a whole row (a "
      "symbolic stride such as `N` elements) from one thread to the next "
      "along `threadIdx.x`: the thread index is in the slow dimension. One "
      "finding per array in a kernel (and per cause: each lane in its own "
      "sector, or a warp spanning rows of a 2-D block): the other "
      "uncoalesced accesses to it "
      "(an unrolled loop, several fields of a row, the other sides of a "
      "rotation at strides `n+1`, `n-1`, ...) are counted and listed by "
      "line in a note (an access on a line whose "
      "NOLINT covers this rule leaves the group; the next one carries the "
      "finding). A symbolic stride that every launch in the file passes as "
      "one constant (`x * numChannels` with `numChannels` = 4) is "
      "evaluated, unless it can change between executions of a launch (a "
      "variable changed in a loop around it): a constant stride along "
      "`threadIdx.x` is coalescing-strided-access's, except when the warp "
      "also spans rows of a 2-D block at a symbolic distance; then the "
      "other channels or fields the kernel reads at the same stride count "
      "as used bytes, and so do the iterations of a small loop around the "
      "access (a constant trip count, or, for a stride under 32 bytes, a "
      "bound that every launch passes as one constant: a pooling window "
      "`c < width` with width = the stride reads the bytes between the "
      "lanes). So do they for a "
      "constant stride of 32 bytes or more "
      "(records of eight or more floats, each lane in its own sector), "
      "also the fields read under a condition on the same record or after "
      "`if (record's flag) return;`: a finding only when the record's "
      "used bytes leave at least MinFactor times the ideal traffic.\n"
      "\n" +
      std::string(outweighingLoopDoc()) + " " + fixedColumnsDoc() +
      " Nor a load that runs once per thread (in no loop) in a block of "
      "known shape whose warps span rows, while another thread "
      "dimension walks consecutive elements (`f[c + b * n]` with `b` "
      "from threadIdx.x and `c` from threadIdx.y in a 16x16 block): the "
      "block as a whole reads runs of blockDim.y elements, at most one "
      "sector more than their bytes (1.25x for 16 doubles), and a "
      "sibling warp's request for a sector another warp of the block "
      "fetched is an L1 hit; reported when that bound is MinFactor or "
      "more (with the default 2: runs of 48 bytes or less), and for "
      "stores (each warp's partial sectors go to L2).";
  I.Doc.WhySlow =
      "A warp's memory request is served in 32-byte sectors. When 32 "
      "consecutive threads read 32 consecutive floats the request touches "
      "4 sectors. When each thread reads a different row, each lane "
      "touches its own sector: 32 sectors for 4 sectors' worth of useful "
      "data, 8x the DRAM/L2 traffic for 4-byte elements (4x for 8-byte). "
      "The analysis computes the sector count from the symbolic address "
      "(and from the block shape at the launch sites when it is constant), "
      "the static counterpart of Nsight Compute's UncoalescedGlobalAccess.";
  I.Doc.Example = R"cuda(__global__ void matvec(const float *A, const float *x, float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];   // warning: consecutive threads are 'N' elements apart
  y[row] = sum;
})cuda";
  I.Doc.Fix =
      "Make `threadIdx.x` move along the contiguous dimension: one warp "
      "per row with lanes striding the row (`A[row * N + k]` with `k = "
      "lane, lane + 32, ...`) and a shuffle reduction; or store the matrix "
      "transposed; or stage a tile through shared memory with coalesced "
      "loads. The finding's note shows the index as an expression of "
      "`threadIdx`/`blockIdx`; the sector count holds when the stride "
      "spans at least 32 bytes.";
  return I;
}

void CoalescingUncoalescedAccess::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  double MinFactor = optionInt("MinFactor", 2);
  for (const KernelAnalysis &K : CC.Analysis->Kernels) {
    // One finding per array in a kernel: the accesses of an unrolled
    // loop, of several fields or at the other strides of one thread
    // mapping share the cause and the remedy,
    // so the others are counted in a note.
    CauseGroups Groups;
    // Each access's request, with the strides every launch passes as one
    // constant evaluated (such a stride is often short: strided, not
    // uncoalesced; coalescing-strided-access reports those).
    std::map<const MemAccess *, WarpRequest> Requests;
    for (const MemAccess &A : K.Accesses) {
      if (A.Space != MemSpace::Global || !A.E || A.SparseGuard)
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      // Once per thread beside a loop that runs many times: a small share
      // of the kernel's traffic and time.
      if (outweighingLoop(CC, Ctx, K, A))
        continue;
      const WarpRequest &W = Requests[&A] = resolvedRequest(CC, K, A);
      if (W.Factor < MinFactor || W.Class != AccessClass::Uncoalesced)
        continue;
      // Once per thread, the block's warps together reading whole runs.
      if (std::optional<double> B = blockRunFactor(K, A); B && *B < MinFactor)
        continue;
      // A boundary column, a column of multipliers: the kernel touches a
      // fixed few elements of each row, nothing to coalesce within it.
      if (!W.StrideElems && touchesFixedColumns(K, A))
        continue;
      // A stride the launches fix (the warp also spans rows of a 2-D
      // block): the other channels or fields the kernel reads beside this
      // one use the rest of the sectors fetched.
      if (W.StrideElems) {
        int64_t Stride = *W.StrideElems * (int64_t)A.ElemBytes;
        bool First = true;
        int64_t Cov = Stride > 0 && Stride <= 1024
                          ? siblingCoverage(Ctx, K, A, Stride, First, &CC)
                          : 0;
        if (Cov > 0 && double(Stride) / double(Cov) < MinFactor)
          continue;
      }
      // One per array and kind: the strides of one thread mapping (a
      // rotation's n+1, n-1, -n+1, -n-1) have one remedy; a warp that spans
      // rows of a 2-D block is another cause.
      Groups.add(A, W.StrideElems && *W.StrideElems * A.ElemBytes < 32
                        ? "rows of the block"
                        : "own sector");
    }
    for (const std::vector<const MemAccess *> &G : Groups.take(Ctx, id())) {
      const MemAccess &A = *G.front();
      const WarpRequest &W = Requests[&A];
      std::string Msg =
          std::string("uncoalesced global ") + accessVerb(A) +
          ": consecutive threads are '" + W.StrideText + "' elements apart" +
          (W.StrideElems && *W.StrideElems * A.ElemBytes < 32
               ? std::string(" and a warp spans several rows: ")
               : std::string(", so each lane of a warp touches its own "
                             "32-byte sector: ")) +
          std::to_string(W.Sectors) + " sectors per request instead of " +
          std::to_string(W.IdealSectors) + " (" + factorText(W.Factor) +
          " the memory traffic)";
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      std::string Cond;
      if (W.StrideElems)
        Cond = "when the rows of the block that a warp spans are at least "
               "32 bytes apart";
      else if (!W.Condition.empty())
        Cond = "when '" + W.StrideText +
               "' elements span at least 32 "
               "bytes";
      addAccessNotes(Ctx, F, A, K, Cond, W.Assumption);
      addSameCauseNote(Ctx, F, G,
                       W.StrideElems && *W.StrideElems * A.ElemBytes < 32
                           ? "cause (a warp spans rows of the block)"
                           : "cause (each lane in its own sector)",
                       "one change of the layout or of the thread mapping "
                       "removes them all");
      report(std::move(F));
    }
  }
}

} // namespace cudal1
