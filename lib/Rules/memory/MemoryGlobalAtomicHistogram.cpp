//===- MemoryGlobalAtomicHistogram.cpp - memory-global-atomic-histogram ---===//
//
// memory-global-atomic-histogram: global atomics at addresses loaded from
// memory (hist[bin[i]]).
//
//===----------------------------------------------------------------------===//
#include "MemoryGlobalAtomicHistogram.h"

#include "../AccessNotes.h"
#include "../sync/SyncSharedHistogram.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ParentMapContext.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// The shared memory one block can have on H100/H200 (sm_90).
constexpr uint64_t MaxSharedBytes = 227 * 1024;

/// The index reads memory (a data-dependent address).
bool indexHasLoad(const Expr *E) {
  if (!E)
    return false;
  E = E->IgnoreParens();
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
    if (ICE->getCastKind() == CK_LValueToRValue) {
      const Expr *S = ICE->getSubExpr()->IgnoreParens();
      if (isa<ArraySubscriptExpr>(S) || isa<UnaryOperator>(S) ||
          isa<MemberExpr>(S))
        return true;
    }
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (indexHasLoad(CE))
        return true;
  return false;
}

} // namespace

RuleInfo MemoryGlobalAtomicHistogram::info() const {
  RuleInfo I;
  I.Id = "memory-global-atomic-histogram";
  I.Category = "memory";
  I.Summary = "data-dependent global atomics (histogram-style) that a "
              "shared-memory copy per block would absorb";
  I.Help = "Atomics on global memory at data-dependent addresses "
           "(hist[bin[i]]) contend in L2 whenever many threads hit "
           "the same bins. Privatize: accumulate into a __shared__ "
           "histogram per block (shared-memory atomics are much "
           "cheaper) and add it to the global one once per block.";
  I.Doc.Detects =
      "Global atomics at data-dependent addresses "
      "(`atomicAdd(&hist[data[i]], 1)`) whose index is proven to stay "
      "below a bound whose bins fit the 227 KiB of shared memory a block "
      "can have on H100/H200: an 8- or 16-bit value, `k & mask`, `k % m`, "
      "`k >> s`, a clamp or a guard; or an array that every launch "
      "passes with a constant allocation that fits (`cudaMalloc(&hist, "
      "256 * sizeof(int))`). Not reported: bins beyond that "
      "(`hist[key & ((1 << 20) - 1)]`: 4 MiB of counters) or without a "
      "bound (a counter per vertex, `degree[src[i]]`): there is nothing to "
      "privatise into, and such updates spread over many addresses; nor a "
      "slot allocator whose old value the thread uses (`out[atomicAdd("
      "&cursor[k], 1)] = v`).";
  I.Doc.WhySlow =
      "Every update is an L2 atomic; with skewed data many threads hit the "
      "same bins and serialize.";
  I.Doc.Example = R"cuda(atomicAdd(&hist[data[i]], 1u);   // warning: data-dependent global atomic)cuda";
  I.Doc.Fix =
      "Privatize: a `__shared__` histogram per block (shared-memory "
      "atomics are much cheaper), then one global atomic per bin per block.";
  return I;
}

void MemoryGlobalAtomicHistogram::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  for (const KernelAnalysis &K : CC.Analysis->Kernels)
    for (const MemAccess &A : K.Accesses) {
      if (!A.IsAtomic || A.Space != MemSpace::Global || !A.Base ||
          A.Address.isKnown())
        continue;
      if (!indexHasLoad(A.Index))
        continue;
      if (!isUserCode(A.E->getExprLoc()))
        continue;
      // A slot allocator (`out[atomicAdd(&cursor[k], 1)] = v`): each
      // thread needs the old value, which a per-block copy cannot give.
      if (A.IsAtomic && A.Full && isa<CallExpr>(A.Full)) {
        auto Ps = Ctx.getParents(*A.Full);
        if (!Ps.empty() && Ps[0].get<Expr>())
          continue;
      }
      // Bins a block's shared memory holds (227 KiB on H100/H200): the
      // index proven below a bound (`k & 255`, `k % m`, an 8- or 16-bit
      // value). A counter per vertex or row (`degree[src[i]]` over n
      // vertices) has nothing to privatise into, and its updates spread
      // over n addresses.
      // Or the array is that small at every launch (its allocation).
      std::optional<int64_t> Max = binIndexMax(
          Ctx, enclosingFunction(Ctx, DynTypedNode::create(*A.E)),
          A.Index ? splitElementAddress(A.Index).second : nullptr, A.Full ? A.Full : A.E);
      std::optional<uint64_t> Bins;
      if (Max)
        Bins = uint64_t(*Max + 1);
      else if (const auto *P = dyn_cast<ParmVarDecl>(A.Base);
               P && K.Kernel && P->getDeclContext() == K.Kernel) {
        std::string Alloc;
        Bins = launchedElements(CC, K.Kernel, P, A.ElemBytes, Alloc);
      }
      if (!Bins || !A.ElemBytes || *Bins * A.ElemBytes > MaxSharedBytes)
        continue;
      std::string Msg =
          "global atomic at a data-dependent address ('" +
          oneLineText(Ctx, A.Index->getSourceRange()) +
          "'): threads hitting the same bins serialize in L2; "
          "privatize the histogram in shared memory per block and merge "
          "it into global memory once per block";
      Finding F = makeFinding(Ctx, id(), A.E->getExprLoc(), Msg, K.Kernel,
                              A.E->getSourceRange());
      addCallChainNotes(Ctx, F, A);
      report(std::move(F));
    }
}

} // namespace cudal1
