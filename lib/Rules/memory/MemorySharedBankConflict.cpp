//===- MemorySharedBankConflict.cpp - memory-shared-bank-conflict ---------===//
//
// memory-shared-bank-conflict: from the symbolic access analysis, the
// shared-memory wavefronts a warp request takes against the ideal.
//
//===----------------------------------------------------------------------===//
#include "MemorySharedBankConflict.h"

#include "../AccessNotes.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/StmtCXX.h"

#include <deque>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// The branch \p E runs in: the child, under the nearest enclosing branch
/// or loop (an if's then or else, a case body, a loop body), that holds
/// it; the function body when there is none.
const void *branchOf(ASTContext &Ctx, const Expr *E) {
  DynTypedNode Child = DynTypedNode::create(*E);
  for (unsigned Depth = 0; Depth < 256; ++Depth) {
    auto Ps = Ctx.getParents(Child);
    if (Ps.empty())
      break;
    const Stmt *P = Ps[0].get<Stmt>();
    if (!P)
      break;
    const auto *B = dyn_cast<BinaryOperator>(P);
    if (isa<IfStmt, SwitchStmt, SwitchCase, AbstractConditionalOperator,
            ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P) ||
        (B && B->isLogicalOp()))
      return Child.get<Stmt>();
    Child = Ps[0];
  }
  return nullptr;
}

/// The element whose field \p A accesses, when it is a small vector (2 or 4
/// fields of one scalar type, 8 or 16 bytes, aligned to its size: float4,
/// int2, double2) and the kernel accesses every field of that same element
/// the same way (all written, or all read) in the same loops and branch,
/// also inside a helper it calls (through the same calls): nvcc merges
/// such accesses into one 64- or 128-bit access. Returns the conflict of
/// that wide access, or std::nullopt when \p A is not such a field.
std::optional<BankResult> wideAccess(ASTContext &Ctx,
                                     const KernelAnalysis &K,
                                     const MemAccess &A) {
  const auto *ME = dyn_cast<MemberExpr>(A.E->IgnoreParenImpCasts());
  const auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!FD || ME->isArrow() || !A.Address.isKnown())
    return std::nullopt;
  const RecordDecl *RD = FD->getParent();
  QualType RT = Ctx.getCanonicalTagType(RD);
  if (RD->isUnion() || RT->isDependentType() || RT->isIncompleteType())
    return std::nullopt;
  uint64_t Size = Ctx.getTypeSizeInChars(RT).getQuantity();
  uint64_t Align = Ctx.getTypeAlignInChars(RT).getQuantity();
  unsigned Fields = 0;
  QualType FieldType;
  for (const FieldDecl *F : RD->fields()) {
    if (F->isBitField() || !F->getType()->isArithmeticType() ||
        (Fields && !Ctx.hasSameType(F->getType(), FieldType)))
      return std::nullopt;
    FieldType = F->getType();
    ++Fields;
  }
  if ((Fields != 2 && Fields != 4) || (Size != 8 && Size != 16) ||
      Align != Size)
    return std::nullopt;
  const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(RD);
  int64_t Offset =
      Layout.getFieldOffset(FD->getFieldIndex()) / Ctx.getCharWidth();
  AffineExpr Start = A.Address - AffineExpr::constant(Offset);
  // The other fields of the same element, accessed the same way.
  std::set<unsigned> Seen;
  for (const MemAccess &B : K.Accesses) {
    // The same way, in the same branch (fields read under `if` and
    // `else` are two accesses).
    if (B.Base != A.Base || B.IsWrite != A.IsWrite || B.IsRead != A.IsRead ||
        B.Loops != A.Loops || !B.Address.isKnown() ||
        B.CallChain != A.CallChain || branchOf(Ctx, B.E) != branchOf(Ctx, A.E))
      continue;
    const auto *BE = dyn_cast<MemberExpr>(B.E->IgnoreParenImpCasts());
    const auto *BF = BE ? dyn_cast<FieldDecl>(BE->getMemberDecl()) : nullptr;
    if (!BF || BF->getParent() != RD)
      continue;
    int64_t BO =
        Layout.getFieldOffset(BF->getFieldIndex()) / Ctx.getCharWidth();
    if (B.Address - AffineExpr::constant(BO) == Start)
      Seen.insert(BF->getFieldIndex());
  }
  if (Seen.size() != Fields)
    return std::nullopt;
  return analyzeSharedRequest(Start, Size, K.Block);
}

} // namespace

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
      "counted and listed by line in a note. Accesses to every field of "
      "one small vector element (`s[i].x`, `.y`, `.z`, `.w` of a `float4`; "
      "2 or 4 fields of one type in 8 or 16 aligned bytes), all reads or "
      "all writes in the same loops and the same branch (also inside a "
      "helper the kernel calls, `v[lid].x += v[lid + i].x; v[lid].y += "
      "v[lid + i].y;` on a `float2` array), are judged as the one 64- or "
      "128-bit access nvcc makes of them.\n"
      "\n"
      "Not reported: a conflict whose accesses all run once per thread (in "
      "no loop) and cost, together, no more extra wavefronts per warp "
      "than the kernel has global accesses that run whenever they do (a "
      "2-way conflict of one store per thread into a winograd tile, "
      "beside the load of the value it stores): a global request moves "
      "at least 32 bytes per warp, 128 when coalesced (about 10 SM "
      "cycles of an H100's DRAM bandwidth), against one shared-memory "
      "cycle for each extra wavefront.";
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
    std::deque<MemAccess> Wide; // fields judged as one wide access
    for (const MemAccess &Field : K.Accesses) {
      const MemAccess *P = &Field;
      // `s[i].x = ..; s[i].y = ..; s[i].z = ..; s[i].w = ..;` is one
      // 128-bit store: judged as that.
      if (Field.Space == MemSpace::Shared)
        if (std::optional<BankResult> W = wideAccess(Ctx, K, Field)) {
          Wide.push_back(Field);
          Wide.back().Banks = *W;
          P = &Wide.back();
        }
      const MemAccess &A = *P;
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
      // Once per thread (in no loop), with no more extra wavefronts than
      // global accesses that run whenever it does: a small share.
      if (llvm::all_of(G, [](const MemAccess *X) { return X->Loops.empty(); })) {
        unsigned Extra = 0;
        for (const MemAccess *X : G)
          Extra += X->Banks.Wavefronts - X->Banks.Ideal;
        if (Extra <= globalAccessesAlongside(Ctx, K, A))
          continue;
      }
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
