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
  I.Doc.Detects =
      "A shared-memory access whose threads hit different words of the "
      "same bank: a column of a `[32][32]` tile, even strides. One finding "
      "per array and conflict in a kernel: the other accesses with the "
      "same conflict (an unrolled stencil, an inlined device function) are "
      "counted and listed by line in a note.";
  I.Doc.WhySlow =
      "Shared memory has 32 banks of 4 bytes. Threads of a warp that "
      "access distinct words in the same bank are serialized into separate "
      "wavefronts: reading a column of `float tile[32][32]` takes 32 "
      "wavefronts instead of 1.";
  I.Doc.Example = R"cuda(__shared__ float tile[32][32];
...
out[i] = tile[threadIdx.x][threadIdx.y];   // warning: 32-way bank conflict)cuda";
  I.Doc.Fix =
      "Pad the row (`float tile[32][33]`) so consecutive rows start in "
      "different banks, or swap the indices so `threadIdx.x` selects the "
      "column. Option `MinWays` (default 2).";
  return I;
}

void MemorySharedBankConflict::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  int64_t MinWays = optionInt("MinWays", 2);
  for (const KernelAnalysis &K : CC.Analysis->Kernels) {
    // One finding per array and conflict in a kernel: the accesses of an
    // unrolled stencil or of an inlined device function share the cause and
    // the remedy (pad the row once), so the others are counted in a note.
    auto Why = [](const MemAccess &A) -> std::string {
      if (A.Banks.StrideWords && *A.Banks.StrideWords % 2 == 0)
        return "consecutive threads are " +
               std::to_string(*A.Banks.StrideWords) + " words apart";
      if (A.Banks.StrideWords)
        return "the warp spans several rows of the block (threadIdx.y) "
               "whose words fall into the same banks";
      return "the threads' addresses fall into the same banks";
    };
    CauseGroups Groups;
    for (const MemAccess &A : K.Accesses) {
      if (A.Space != MemSpace::Shared || !A.Banks.Known || A.IsAtomic ||
          A.SparseGuard)
        continue;
      if ((int64_t)A.Banks.Ways < MinWays ||
          A.Banks.Wavefronts <= A.Banks.Ideal)
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      Groups.add(A, std::to_string(A.Banks.Ways) + "\n" +
                        std::to_string(A.Banks.Wavefronts) + "\n" +
                        std::to_string(A.Banks.Ideal) + "\n" + Why(A));
    }
    for (const std::vector<const MemAccess *> &G : Groups.take(Ctx, id())) {
      const MemAccess &A = *G.front();
      std::string Msg =
          std::to_string(A.Banks.Ways) + "-way shared memory bank conflict "
          "on " + accessVerb(A) + " of '" + A.BaseName + "': " + Why(A) +
          ", so a warp request takes " + std::to_string(A.Banks.Wavefronts) +
          " wavefronts instead of " + std::to_string(A.Banks.Ideal) + " (" +
          factorText(double(A.Banks.Wavefronts) / A.Banks.Ideal) +
          " slower); pad the array's row (e.g. [32][33]) or swap the "
          "indices";
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      addAccessNotes(Ctx, F, A, K, "", A.Banks.Assumption);
      addSameCauseNote(Ctx, F, G, "conflict",
                       "padding the array removes them all");
      report(std::move(F));
    }
  }
}

} // namespace cudal1
