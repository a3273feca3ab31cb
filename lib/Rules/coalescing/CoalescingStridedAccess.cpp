//===- CoalescingStridedAccess.cpp - coalescing-strided-access ------------===//
//
// coalescing-strided-access: from the symbolic access analysis, global
// accesses with a constant stride between lanes (array-of-structures
// fields, a[2 * i]); the kernel's other accesses to the same rows count as
// used bytes.
//
//===----------------------------------------------------------------------===//
#include "CoalescingStridedAccess.h"

#include "../AccessNotes.h"

#include <cstdlib>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo CoalescingStridedAccess::info() const {
  RuleInfo I;
  I.Id = "coalescing-strided-access";
  I.Category = "coalescing";
  I.Summary = "global access whose consecutive threads are a constant "
              "stride apart (e.g. array-of-structures fields)";
  I.Help = "A warp's 32 threads should access 32 consecutive elements "
           "so that the request touches the minimum number of 32-byte "
           "sectors. With a constant stride S between consecutive "
           "threads the warp touches up to S times more sectors and "
           "the extra bytes are fetched and discarded.";
  I.DefaultOptions["MinFactor"] = "2";
  I.Doc.Detects =
      "A global access whose consecutive threads are a constant stride "
      "apart: array-of-structures fields (`p[i].x` with a 12-byte struct), "
      "`a[2 * i]`, interleaved data.\n"
      "\n"
      "The fields or channels the kernel reads or writes at the same "
      "stride count as used bytes, also those under a condition that "
      "reads the same record (`if (p[i].alive) p[i].x += p[i].y;`, or "
      "after `if (p[i].dry) return;`; not "
      "those one lane reads under `threadIdx.x == 0`) and struct-valued "
      "members with their whole size (a `double3` of an 88-byte record).\n"
      "\n" +
      std::string(outweighingLoopDoc()) +
      " For lanes more than 1 KiB apart (rows, not records): " +
      fixedColumnsDoc();
  I.Doc.WhySlow =
      "With a stride of S elements a warp touches up to S times the "
      "sectors it needs and the other bytes are fetched and thrown away. A "
      "3-float struct read one field at a time costs 3x the traffic per "
      "field.";
  I.Doc.Example = R"cuda(struct P { float x, y, z; };
__global__ void scale(P *p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x *= s;           // warning: 3 elements apart, 12 sectors instead of 4
})cuda";
  I.Doc.Fix =
      "Use a structure of arrays (`float *x, *y, *z`), or load whole "
      "structs with vector types (`float4`) and use all fields, or stage "
      "through shared memory. When the kernel's accesses with the same "
      "base and stride together read every byte of the stride (all fields "
      "of a struct, or all iterations of a constant-trip loop of at most "
      "64 iterations such as `in[t * 8 + j]` for `j < 8`, or of a loop up "
      "to a parameter that every launch in the file passes as one such "
      "constant, like a pooling window `c < width` with width = the "
      "stride, when the stride is under 32 bytes; strides up to 1 KiB), the sectors are shared through L1 "
      "and nothing is reported; when they read part of it, one finding per "
      "group gives the fraction of bytes used. Option `MinFactor` (default "
      "2): only report when the traffic is at least this factor above "
      "ideal.";
  return I;
}

void CoalescingStridedAccess::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  double MinFactor = optionInt("MinFactor", 2);
  for (const KernelAnalysis &K : CC.Analysis->Kernels)
    for (const MemAccess &A : K.Accesses) {
      if (A.Space != MemSpace::Global || !A.E || A.SparseGuard)
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      // Once per thread beside a loop that runs many times: a small share
      // of the kernel's traffic and time.
      if (outweighingLoop(CC, Ctx, K, A))
        continue;
      // A stride every launch passes as one constant is evaluated.
      const WarpRequest W = resolvedRequest(CC, K, A);
      if (W.Factor < MinFactor)
        continue;
      std::string Msg;
      if (W.Class == AccessClass::Strided) {
        // The stride in bytes: in elements, or (a struct-valued member such
        // as a double3 field of an 88-byte record) the address's
        // threadIdx.x coefficient.
        int64_t Stride =
            W.StrideElems ? *W.StrideElems * (int64_t)A.ElemBytes : 0;
        if (!W.StrideElems && A.Address.isKnown())
          if (auto C = A.Address.coefficientOf("threadIdx.x").constantValue())
            Stride = *C;
        double Factor = W.Factor;
        std::string Used;
        if (Stride > 0 && Stride <= 1024) {
          bool First = true;
          int64_t Cov = siblingCoverage(Ctx, K, A, Stride, First, &CC);
          if (!First)
            continue;
          if (Cov > (int64_t)A.AccessBytes) {
            Factor = std::min(Factor, double(Stride) / double(Cov));
            Used = "; with the other accesses to the same rows (fields or "
                   "loop iterations), " +
                   std::to_string(Cov) + " of every " + std::to_string(Stride) +
                   " bytes are used";
          }
        }
        if (Factor < MinFactor)
          continue;
        // Rows longer than any record (over 1 KiB between lanes) of which
        // the kernel touches a fixed few elements: a boundary column.
        if (std::abs(Stride) > 1024 && touchesFixedColumns(K, A))
          continue;
        bool Adjacent =
            W.StrideElems && *W.StrideElems != 0 &&
            std::abs(*W.StrideElems) * (int64_t)A.ElemBytes <=
                (int64_t)A.AccessBytes;
        Msg = std::string("strided global ") + accessVerb(A) +
              (Adjacent
                   ? std::string(": consecutive threads are adjacent, but a "
                                 "warp spans several rows of the block")
                   : ": consecutive threads are " + W.StrideText +
                         (W.StrideElems ? " elements" : "") + " apart") +
              "; a warp request "
              "touches " +
              std::to_string(W.Sectors) +
              " 32-byte sectors "
              "instead of " +
              std::to_string(W.IdealSectors) + Used + " (" +
              factorText(Factor) + " the memory traffic)";
      } else {
        continue;
      }
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      std::string Cond;
      if (!W.Condition.empty())
        Cond = "when '" + W.StrideText +
               "' elements span at least 32 "
               "bytes";
      addAccessNotes(Ctx, F, A, K, Cond, W.Assumption);
      report(std::move(F));
    }
}

} // namespace cudal1
