//===- MemorySharedBankConflict.cpp - memory-shared-bank-conflict ---------===//
//
// memory-shared-bank-conflict: from the symbolic access analysis, the
// shared-memory wavefronts a warp request takes against the ideal.
//
//===----------------------------------------------------------------------===//
#include "MemorySharedBankConflict.h"

#include "../AccessNotes.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo MemorySharedBankConflict::info() const {
  RuleInfo I;
  I.Id = "memory-shared-bank-conflict";
  I.Category = "memory";
  I.Summary = "shared-memory access whose threads collide in the same bank";
  I.Help = "Shared memory has 32 banks of 4 bytes; threads of a warp "
                "that access different words of the same bank are "
                "serialized. A stride of 32 words (a column of a [32][32] "
                "tile) serializes the whole warp; padding the row to 33 "
                "words removes the conflict.";
  I.DefaultOptions["MinWays"] = "2";
  return I;
}

void MemorySharedBankConflict::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  int64_t MinWays = optionInt("MinWays", 2);
  for (const KernelAnalysis &K : CC.Analysis->Kernels)
    for (const MemAccess &A : K.Accesses) {
      if (A.Space != MemSpace::Shared || !A.Banks.Known || A.IsAtomic ||
          A.SparseGuard)
        continue;
      if ((int64_t)A.Banks.Ways < MinWays ||
          A.Banks.Wavefronts <= A.Banks.Ideal)
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      std::string Why;
      if (A.Banks.StrideWords && *A.Banks.StrideWords % 2 == 0)
        Why = "consecutive threads are " +
              std::to_string(*A.Banks.StrideWords) + " words apart";
      else if (A.Banks.StrideWords)
        Why = "the warp spans several rows of the block (threadIdx.y) "
              "whose words fall into the same banks";
      else
        Why = "the threads' addresses fall into the same banks";
      std::string Msg =
          std::to_string(A.Banks.Ways) + "-way shared memory bank conflict "
          "on " + std::string(accessVerb(A)) + " of '" + A.BaseName +
          "': " + Why + ", so a warp request takes " + std::to_string(A.Banks.Wavefronts) +
          " wavefronts instead of " + std::to_string(A.Banks.Ideal) + " (" +
          factorText(double(A.Banks.Wavefronts) / A.Banks.Ideal) +
          " slower); pad the array's row (e.g. [32][33]) or swap the "
          "indices";
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg,
                              K.Kernel, A.E->getSourceRange());
      addAccessNotes(Ctx, F, A, K, "", A.Banks.Assumption);
      report(std::move(F));
    }
}

} // namespace cudal1
