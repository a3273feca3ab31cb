//===- MemoryAtomicContention.cpp - memory-atomic-contention --------------===//
//
// memory-atomic-contention: from the symbolic access analysis, global
// atomics whose address is the same for every lane of a warp.
//
//===----------------------------------------------------------------------===//
#include "MemoryAtomicContention.h"

#include "../AccessNotes.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo MemoryAtomicContention::info() const {
  RuleInfo I;
  I.Id = "memory-atomic-contention";
  I.Category = "memory";
  I.Summary = "global atomic to one address from every thread of a warp";
  I.Help = "All 32 lanes of a warp performing an atomic on the same "
           "global address are serialized in the L2 atomic unit. "
           "Reduce within the warp first (__shfl_down_sync or "
           "cooperative_groups::reduce) and issue one atomic per warp, "
           "or per block through shared memory.";
  I.Doc.Detects =
      "A global atomic whose address is the same for every thread of a "
      "warp (`atomicAdd(sum, v)`), executed by all lanes.";
  I.Doc.WhySlow =
      "Atomics to one address are serialized in the L2 atomic unit: a warp "
      "issuing 32 of them waits for 32 round trips, and the whole grid "
      "contends on one cache line.";
  I.Doc.Example = R"cuda(if (i < n) atomicAdd(sum, in[i]);   // warning: 32 atomics per warp on one address)cuda";
  I.Doc.Fix =
      "Reduce within the warp first (`__shfl_down_sync`, "
      "`cooperative_groups::reduce`), then within the block through shared "
      "memory, and issue one atomic per warp or per block. Atomics already "
      "guarded to one lane (`if (lane == 0)`) are not reported. When "
      "sync-warp-atomic-reduction is enabled too and reports the same "
      "atomic (with that rewrite as its fix, or the reason for none), this "
      "finding is dropped: one diagnosis per atomic.";
  return I;
}

void MemoryAtomicContention::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  for (const KernelAnalysis &K : CC.Analysis->Kernels)
    for (const MemAccess &A : K.Accesses) {
      if (!A.IsAtomic || A.Space != MemSpace::Global ||
          A.Global.Class != AccessClass::Broadcast || A.SparseGuard)
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      std::string Msg =
          "every thread of a warp performs an atomic on the same global "
          "address ('" +
          oneLineText(Ctx, A.Index->getSourceRange()) +
          "'): the 32 atomics are serialized; reduce within the warp "
          "first (__shfl_down_sync) and issue one atomic per warp (32x "
          "fewer atomics)";
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      if (const LoopInfo *L = innermostLoop(A))
        note(F, L->S->getBeginLoc(),
             "inside this loop: one contended atomic per iteration");
      addCallChainNotes(Ctx, F, A);
      report(std::move(F));
    }
}

} // namespace cudal1
