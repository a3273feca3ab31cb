//===- CoalescingUncoalescedAccess.cpp - coalescing-uncoalesced-access ----===//
//
// coalescing-uncoalesced-access: from the symbolic access analysis, global
// accesses whose lanes each touch their own 32-byte sector.
//
//===----------------------------------------------------------------------===//
#include "CoalescingUncoalescedAccess.h"

#include "../AccessNotes.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

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
  return I;
}

void CoalescingUncoalescedAccess::checkTranslationUnit() {
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
      const WarpRequest &W = A.Global;
      if (W.Factor < MinFactor)
        continue;
      std::string Msg;
      if (W.Class == AccessClass::Uncoalesced) {
        Msg = std::string("uncoalesced global ") + accessVerb(A) +
              ": consecutive threads are '" + W.StrideText +
              "' elements apart, so each lane of a warp touches its own "
              "32-byte sector: " + std::to_string(W.Sectors) +
              " sectors per request instead of " +
              std::to_string(W.IdealSectors) + " (" +
              factorText(W.Factor) + " the memory traffic)";
      } else {
        continue;
      }
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      std::string Cond;
      if (!W.Condition.empty())
        Cond = "when '" + W.StrideText + "' elements span at least 32 "
               "bytes";
      addAccessNotes(Ctx, F, A, K, Cond, W.Assumption);
      report(std::move(F));
    }
}

} // namespace cudal1
