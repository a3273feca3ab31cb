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
      "warp (`atomicAdd(sum, v)`), executed by all lanes, of an operation "
      "that combines across lanes (add, sub, min, max, and, or, xor). "
      "Atomic loads and stores, exchanges, compare-and-swap and wrapping "
      "increments are not reported: they cannot be reduced within the "
      "warp first.";
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

namespace {
/// \p Name (lower case) names an operation that combines across lanes.
bool combinableName(StringRef N) {
  if (N.contains("nand"))
    return false;
  for (StringRef Op : {"add", "sub", "min", "max", "and", "or", "xor"})
    if (N.contains(("atomic" + Op).str()) || N.contains(("fetch_" + Op).str()) ||
        N.contains((Op + "_fetch").str()) ||
        N.contains(("__nv_atomic_" + Op).str()))
      return true;
  return false;
}

/// The atomic \p A combines across lanes: add, sub, min, max, and, or, xor
/// (CUDA's atomicAdd..., the scoped _system/_block forms, nvcc's
/// __nv_atomic_* and the __atomic_*_fetch built-ins), also when it is the
/// compare-and-swap loop inside a function of the user's named for one
/// (`atomicMaxFloat`, a double `atomicAdd` emulation).
bool combinableAtomic(const MemAccess &A) {
  const auto *CE = dyn_cast<CallExpr>(A.E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return true; // unknown form: as before
  if (combinableName(StringRef(FD->getName()).lower()))
    return true;
  for (const CallExpr *Via : A.CallChain)
    if (const FunctionDecl *F = Via->getDirectCallee();
        F && F->getIdentifier() &&
        combinableName(StringRef(F->getName()).lower()))
      return true;
  return false;
}
} // namespace

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
      // Only operations that combine across lanes: a warp can add (min,
      // max, and, or, xor) its values first and issue one atomic. Atomic
      // loads and stores are not serialized read-modify-writes, and an
      // exchange, compare-and-swap or wrapping increment cannot be combined
      // (a lock, a counter modulo n: the contention is the design).
      if (!combinableAtomic(A))
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
