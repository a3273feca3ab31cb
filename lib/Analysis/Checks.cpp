//===- Checks.cpp - the built-in performance checks ------------------------===//
//
// Finding-only rules (no fix): each explains why the code is slow and what it
// costs. They read the symbolic index analysis (AccessAnalysis.h) or match
// the AST of device code directly. Registered with CUDAL1_REGISTER_CHECK;
// this file is linked as an OBJECT library so the registrations are kept.
//
//===----------------------------------------------------------------------===//
#include "CheckUtil.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/StringSet.h"
#include <cmath>
#include <functional>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {
namespace {

const char *accessVerb(const MemAccess &A) {
  if (A.IsAtomic)
    return "atomic";
  if (A.IsRead && A.IsWrite)
    return "read-modify-write";
  return A.IsWrite ? "store" : "load";
}

/// The address in elements when the element size divides it ("" if not).
std::string elementIndexText(const MemAccess &A) {
  if (!A.Address.isKnown() || !A.ElemBytes)
    return "";
  AffineExpr Q;
  for (auto &T : A.Address.terms()) {
    if (T.second % (int64_t)A.ElemBytes)
      return A.Address.str() + " (bytes)";
    AffineExpr M = AffineExpr::constant(T.second / A.ElemBytes);
    for (auto &S : T.first)
      M = M * AffineExpr::symbol(S);
    Q = Q + M;
  }
  return Q.str();
}

SourceLocation locOf(const Expr *E) { return E ? E->getExprLoc() : SourceLocation(); }

/// One note per call on the way from the kernel to \p A (device functions).
void addCallChainNotes(ASTContext &Ctx, Finding &F, const MemAccess &A) {
  for (const CallExpr *CE : A.CallChain)
    addNote(Ctx, F, CE->getBeginLoc(), "reached through this call");
}

void addAccessNotes(ASTContext &Ctx, Finding &F, const MemAccess &A,
                    const KernelAnalysis &K, const std::string &Condition,
                    const std::string &Assumption) {
  std::string Idx = elementIndexText(A);
  std::string Text = "index of '" + A.BaseName + "' in elements: " + Idx;
  if (!Condition.empty())
    Text += "; the sector count holds " + Condition;
  if (!Assumption.empty())
    Text += " (" + Assumption + ")";
  if (!Idx.empty())
    addNote(Ctx, F, A.Index ? A.Index->getBeginLoc() : locOf(A.E), Text);
  if (Assumption.empty() && K.Block[0] && !K.BlockLoc.File.empty()) {
    FindingNote N;
    N.Loc = K.BlockLoc;
    N.Message = "block shape " + std::to_string(K.Block[0]) + "x" +
                std::to_string(K.Block[1]) + "x" + std::to_string(K.Block[2]) +
                " from this launch";
    F.Notes.push_back(N);
  }
  addCallChainNotes(Ctx, F, A);
}

// --- coalescing -------------------------------------------------------------

/// \p B's address for every iteration of its enclosing constant-trip loops
/// (the induction variable replaced by its values), at most 256 of them.
std::vector<AffineExpr> expandLoops(const MemAccess &B) {
  std::vector<AffineExpr> Out{B.Address};
  for (const LoopInfo *L : B.Loops) {
    if (L->Trip != TripKind::Constant || !L->TripCount || *L->TripCount > 64)
      continue;
    auto I0 = L->Init.constantValue(), St = L->Step.constantValue();
    if (!I0 || !St || L->Geometric)
      continue;
    auto Syms = L->IVValue.symbols();
    if (Syms.size() != 1 || L->IVValue != AffineExpr::symbol(*Syms.begin()))
      continue;
    const std::string Sym = *Syms.begin();
    std::vector<AffineExpr> Next;
    for (const AffineExpr &E : Out) {
      if (!E.symbols().count(Sym)) {
        Next.push_back(E);
        continue;
      }
      for (int64_t M = 0; M < *L->TripCount; ++M)
        Next.push_back(E.substitute(Sym, AffineExpr::constant(*I0 + M * *St)));
    }
    if (Next.size() > 256)
      return {B.Address};
    Out = std::move(Next);
  }
  return Out;
}

/// Bytes of each stride read by the kernel's accesses with the same base
/// and the same per-thread stride: the fields of a struct read nearby, or
/// the iterations of a small constant-trip loop (their sectors are shared
/// through L1). \p IsFirst: \p A is the group's first access (lowest
/// offset), which carries the group's finding.
int64_t siblingCoverage(const KernelAnalysis &K, const MemAccess &A,
                        int64_t Stride, bool &IsFirst) {
  IsFirst = true;
  std::vector<AffineExpr> AE = expandLoops(A);
  AffineExpr Shape = AE[0] - AffineExpr::constant(AE[0].constantTerm());
  int64_t Base = AE[0].constantTerm();
  std::vector<bool> Covered(Stride, false);
  for (const MemAccess &B : K.Accesses) {
    if (B.Base != A.Base || B.Space != MemSpace::Global ||
        !B.Address.isKnown() || B.SparseGuard)
      continue;
    for (const AffineExpr &E : expandLoops(B)) {
      AffineExpr BS = E - AffineExpr::constant(E.constantTerm());
      if (BS != Shape)
        continue;
      int64_t Off = E.constantTerm() - Base;
      if (&B != &A && (Off < 0 || (Off == 0 && &B < &A)))
        IsFirst = false;
      for (int64_t I = 0; I < (int64_t)B.AccessBytes; ++I)
        Covered[((Off + I) % Stride + Stride) % Stride] = true;
    }
  }
  int64_t N = 0;
  for (bool C : Covered)
    N += C;
  return N;
}

class CoalescingCheck : public Check {
public:
  explicit CoalescingCheck(bool Strided) : Strided(Strided) {}
  RuleInfo info() const override {
    if (Strided)
      return rule("coalescing-strided-access",
                  "global access whose consecutive threads are a constant "
                  "stride apart (e.g. array-of-structures fields)",
                  "A warp's 32 threads should access 32 consecutive elements "
                  "so that the request touches the minimum number of 32-byte "
                  "sectors. With a constant stride S between consecutive "
                  "threads the warp touches up to S times more sectors and "
                  "the extra bytes are fetched and discarded.",
                  {{"MinFactor", "2"}});
    return rule("coalescing-uncoalesced-access",
                "global access indexed with the thread index in the slow "
                "(row) dimension",
                "When threadIdx.x multiplies a row length, every lane of a "
                "warp touches a different 32-byte sector: up to 32 sectors "
                "per request instead of 4 for 4-byte elements. Swap the "
                "roles of the indices or stage the tile through shared "
                "memory.",
                {{"MinFactor", "2"}});
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    std::string Id = info().Id;
    double MinFactor =
        CC.Options ? CC.Options->getInt(Id, "MinFactor", 2) : 2;
    for (const KernelAnalysis &K : CC.Analysis->Kernels)
      for (const MemAccess &A : K.Accesses) {
        if (A.Space != MemSpace::Global || !A.E || A.SparseGuard)
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
          continue;
        const WarpRequest &W = A.Global;
        if (W.Factor < MinFactor)
          continue;
        std::string Msg;
        if (!Strided && W.Class == AccessClass::Uncoalesced) {
          Msg = std::string("uncoalesced global ") + accessVerb(A) +
                ": consecutive threads are '" + W.StrideText +
                "' elements apart, so each lane of a warp touches its own "
                "32-byte sector: " + std::to_string(W.Sectors) +
                " sectors per request instead of " +
                std::to_string(W.IdealSectors) + " (" +
                factorText(W.Factor) + " the memory traffic)";
        } else if (Strided && W.Class == AccessClass::Strided) {
          int64_t Stride = W.StrideElems
                               ? *W.StrideElems * (int64_t)A.ElemBytes
                               : 0;
          double Factor = W.Factor;
          std::string Used;
          if (Stride > 0 && Stride <= 256) {
            bool First = true;
            int64_t Cov = siblingCoverage(K, A, Stride, First);
            if (!First)
              continue;
            if (Cov > (int64_t)A.AccessBytes) {
              Factor = std::min(Factor, double(Stride) / double(Cov));
              Used = "; with the other accesses to the same rows (fields or "
                     "loop iterations), " +
                     std::to_string(Cov) + " of every " +
                     std::to_string(Stride) + " bytes are used";
            }
          }
          if (Factor < MinFactor)
            continue;
          Msg = std::string("strided global ") + accessVerb(A) +
                ": consecutive threads are " + W.StrideText +
                (W.StrideElems ? " elements" : "") + " apart; a warp request "
                "touches " + std::to_string(W.Sectors) + " 32-byte sectors "
                "instead of " + std::to_string(W.IdealSectors) + Used + " (" +
                factorText(Factor) + " the memory traffic)";
        } else {
          continue;
        }
        Finding F = makeFinding(Ctx, Id, A.E->getExprLoc(), Msg, K.Kernel,
                                A.E->getSourceRange());
        std::string Cond;
        if (!W.Condition.empty())
          Cond = "when '" + W.StrideText + "' elements span at least 32 "
                 "bytes";
        addAccessNotes(Ctx, F, A, K, Cond, W.Assumption);
        Out.push_back(std::move(F));
      }
  }

private:
  bool Strided;
};
struct UncoalescedCheck : CoalescingCheck {
  UncoalescedCheck() : CoalescingCheck(false) {}
};
struct StridedCheck : CoalescingCheck {
  StridedCheck() : CoalescingCheck(true) {}
};
CUDAL1_REGISTER_CHECK(UncoalescedCheck);
CUDAL1_REGISTER_CHECK(StridedCheck);

// --- shared memory bank conflicts -------------------------------------------

class BankConflictCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-shared-bank-conflict",
                "shared-memory access whose threads collide in the same bank",
                "Shared memory has 32 banks of 4 bytes; threads of a warp "
                "that access different words of the same bank are "
                "serialized. A stride of 32 words (a column of a [32][32] "
                "tile) serializes the whole warp; padding the row to 33 "
                "words removes the conflict.",
                {{"MinWays", "2"}});
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    int64_t MinWays =
        CC.Options ? CC.Options->getInt(info().Id, "MinWays", 2) : 2;
    for (const KernelAnalysis &K : CC.Analysis->Kernels)
      for (const MemAccess &A : K.Accesses) {
        if (A.Space != MemSpace::Shared || !A.Banks.Known || A.IsAtomic ||
            A.SparseGuard)
          continue;
        if ((int64_t)A.Banks.Ways < MinWays ||
            A.Banks.Wavefronts <= A.Banks.Ideal)
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
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
        Finding F = makeFinding(Ctx, info().Id, A.E->getExprLoc(), Msg,
                                K.Kernel, A.E->getSourceRange());
        addAccessNotes(Ctx, F, A, K, "", A.Banks.Assumption);
        Out.push_back(std::move(F));
      }
  }
};
CUDAL1_REGISTER_CHECK(BankConflictCheck);

// --- global accumulation in a loop ------------------------------------------

const LoopInfo *innermost(const MemAccess &A) {
  return A.Loops.empty() ? nullptr : A.Loops.back();
}

std::string loopLine(const LoopInfo &L) {
  return "line " + std::to_string(L.Loc.Line);
}

class GlobalAccumulationCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-global-accumulation",
                "global read-modify-write of the same element on every loop "
                "iteration",
                "'out[i] += ...' inside a loop whose iterations all use the "
                "same element reads and writes global memory every "
                "iteration: the compiler must assume the store may alias "
                "the other loads. Accumulate in a local variable and store "
                "once after the loop.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    for (const KernelAnalysis &K : CC.Analysis->Kernels) {
      if (K.AllPointersRestrict)
        continue;
      for (const MemAccess &A : K.Accesses) {
        if (A.Space != MemSpace::Global || A.IsAtomic || !A.IsWrite ||
            !A.IsCompound || !A.Address.isKnown())
          continue;
        const LoopInfo *L = innermost(A);
        if (!L || !CC.Analysis->isInvariant(A.Address, *L, false))
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
          continue;
        std::string Trip = L->Trip == TripKind::Unknown ||
                                   L->Init.dependsOnThread()
                               ? std::string("every iteration")
                               : "each of its " + L->TripText + " iterations";
        std::string Msg =
            "global read-modify-write of '" + A.Text + "' in the loop at " +
            loopLine(*L) + ": the same element is loaded and stored on " +
            Trip + " (2 global accesses per iteration); accumulate in a "
            "register and store once after the loop";
        Finding F = makeFinding(Ctx, info().Id, A.E->getExprLoc(), Msg,
                                K.Kernel, A.E->getSourceRange());
        addNote(Ctx, F, L->S->getBeginLoc(),
                "the address does not depend on this loop's iterations");
        addCallChainNotes(Ctx, F, A);
        Out.push_back(std::move(F));
      }
    }
  }
};
CUDAL1_REGISTER_CHECK(GlobalAccumulationCheck);

// --- loop-invariant global loads ----------------------------------------------

class InvariantLoadCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-invariant-load",
                "global load whose address does not change in a loop that "
                "also stores to global memory",
                "The compiler may not hoist a load out of a loop when a "
                "store in the loop might write the same memory (pointers "
                "without __restrict__). The value is then re-read from "
                "global memory (or L1/L2) on every iteration. Load it once "
                "into a register before the loop, or declare the pointers "
                "'const T *__restrict__'.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    for (const KernelAnalysis &K : CC.Analysis->Kernels) {
      if (K.AllPointersRestrict)
        continue;
      for (const MemAccess &A : K.Accesses) {
        if (A.Space != MemSpace::Global || A.IsWrite || A.IsAtomic ||
            !A.Address.isKnown() || A.Loops.empty())
          continue;
        // The outermost loop in which the address is invariant.
        const LoopInfo *Outer = nullptr;
        for (auto It = A.Loops.rbegin(); It != A.Loops.rend(); ++It) {
          if (!CC.Analysis->isInvariant(A.Address, **It, true))
            break;
          Outer = *It;
        }
        if (!Outer || !Outer->ContainsGlobalStore)
          continue;
        // A store to the very same base and address in the loop makes the
        // reload necessary (that is global-accumulation's finding).
        bool SameStored = false;
        for (const MemAccess &B : K.Accesses)
          if (B.IsWrite && B.Base == A.Base && B.Address == A.Address)
            SameStored = true;
        if (SameStored)
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
          continue;
        std::string Trip = Outer->Trip == TripKind::Unknown ||
                                   Outer->Init.dependsOnThread()
                               ? std::string("on every iteration")
                               : "on each of its " + Outer->TripText +
                                     " iterations";
        std::string Msg =
            "loop-invariant global load '" + A.Text + "' is re-read " + Trip +
            " of the loop at " + loopLine(*Outer) +
            ": the loop stores to global memory through pointers that may "
            "alias it, so the compiler cannot hoist it; load it once before "
            "the loop (or make the pointers __restrict__)";
        Finding F = makeFinding(Ctx, info().Id, A.E->getExprLoc(), Msg,
                                K.Kernel, A.E->getSourceRange());
        addNote(Ctx, F, Outer->S->getBeginLoc(),
                "the address does not depend on this loop");
        for (const MemAccess &B : K.Accesses)
          if (B.IsWrite && B.Space == MemSpace::Global &&
              std::find(B.Loops.begin(), B.Loops.end(), Outer) !=
                  B.Loops.end()) {
            addNote(Ctx, F, B.E->getExprLoc(),
                    "store that may alias '" + A.BaseName + "'");
            break;
          }
        Out.push_back(std::move(F));
      }
    }
  }
};
CUDAL1_REGISTER_CHECK(InvariantLoadCheck);

// --- atomics -------------------------------------------------------------------

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

class AtomicContentionCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-atomic-contention",
                "global atomic to one address from every thread of a warp",
                "All 32 lanes of a warp performing an atomic on the same "
                "global address are serialized in the L2 atomic unit. "
                "Reduce within the warp first (__shfl_down_sync or "
                "cooperative_groups::reduce) and issue one atomic per warp, "
                "or per block through shared memory.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    for (const KernelAnalysis &K : CC.Analysis->Kernels)
      for (const MemAccess &A : K.Accesses) {
        if (!A.IsAtomic || A.Space != MemSpace::Global ||
            A.Global.Class != AccessClass::Broadcast || A.SparseGuard)
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
          continue;
        std::string Msg =
            "every thread of a warp performs an atomic on the same global "
            "address ('" + textOf(Ctx, A.Index->getSourceRange()) +
            "'): the 32 atomics are serialized; reduce within the warp "
            "first (__shfl_down_sync) and issue one atomic per warp (32x "
            "fewer atomics)";
        Finding F = makeFinding(Ctx, info().Id, A.E->getExprLoc(), Msg,
                                K.Kernel, A.E->getSourceRange());
        if (const LoopInfo *L = innermost(A))
          addNote(Ctx, F, L->S->getBeginLoc(),
                  "inside this loop: one contended atomic per iteration");
        addCallChainNotes(Ctx, F, A);
        Out.push_back(std::move(F));
      }
  }
};
CUDAL1_REGISTER_CHECK(AtomicContentionCheck);

class HistogramAtomicCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-global-atomic-histogram",
                "data-dependent global atomics (histogram-style) that a "
                "shared-memory copy per block would absorb",
                "Atomics on global memory at data-dependent addresses "
                "(hist[bin[i]]) contend in L2 whenever many threads hit "
                "the same bins. Privatize: accumulate into a __shared__ "
                "histogram per block (shared-memory atomics are much "
                "cheaper) and add it to the global one once per block.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    for (const KernelAnalysis &K : CC.Analysis->Kernels)
      for (const MemAccess &A : K.Accesses) {
        if (!A.IsAtomic || A.Space != MemSpace::Global || !A.Base ||
            A.Address.isKnown())
          continue;
        if (!indexHasLoad(A.Index))
          continue;
        if (!isUserLoc(Ctx, CC, A.E->getExprLoc()))
          continue;
        std::string Msg =
            "global atomic at a data-dependent address ('" +
            textOf(Ctx, A.Index->getSourceRange()) +
            "'): threads hitting the same bins serialize in L2; "
            "privatize the histogram in shared memory per block and merge "
            "it into global memory once per block";
        Finding F = makeFinding(Ctx, info().Id, A.E->getExprLoc(), Msg,
                                K.Kernel, A.E->getSourceRange());
        addCallChainNotes(Ctx, F, A);
        Out.push_back(std::move(F));
      }
  }
};
CUDAL1_REGISTER_CHECK(HistogramAtomicCheck);

// --- const / __restrict__ ----------------------------------------------------

/// Does possible aliasing between \p P and the kernel's stores cost
/// anything? Yes when a load through \p P shares a loop with a global store
/// (it cannot be hoisted or kept in a register across iterations) or comes
/// after a store (it must be re-read).
bool aliasingCosts(ASTContext &Ctx, const KernelAnalysis &K,
                   const ParmVarDecl *P) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (const MemAccess &R : K.Accesses) {
    if (R.Base != P || R.IsWrite || R.Space != MemSpace::Global)
      continue;
    for (const MemAccess &W : K.Accesses) {
      if (!W.IsWrite || (W.Space != MemSpace::Global &&
                         W.Space != MemSpace::Unknown))
        continue;
      for (const LoopInfo *L : R.Loops)
        if (std::find(W.Loops.begin(), W.Loops.end(), L) != W.Loops.end())
          return true;
      if (R.CallChain.empty() && W.CallChain.empty() &&
          SM.isBeforeInTranslationUnit(SM.getExpansionLoc(W.Full->getEndLoc()),
                                       SM.getExpansionLoc(R.E->getBeginLoc())))
        return true;
    }
  }
  return false;
}

class ConstRestrictCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("memory-const-restrict",
                "read-only pointer parameters of a kernel that writes "
                "memory, declared without const __restrict__",
                "Without __restrict__ the compiler must assume a store "
                "through one pointer parameter may change what another "
                "points to: it reloads values after every store and cannot "
                "use the read-only data cache (LDG.E.CONSTANT). Declaring "
                "read-only inputs 'const T *__restrict__' (when the buffers "
                "really do not overlap) lifts both limits.");
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    for (const KernelAnalysis &K : CC.Analysis->Kernels) {
      const FunctionDecl *FD = K.Kernel;
      if (!isUserLoc(Ctx, CC, FD->getLocation()))
        continue;
      if (K.EscapedBases.count(nullptr))
        continue; // a write through a pointer we could not follow
      std::vector<const ParmVarDecl *> ReadOnly;
      bool AnyWritten = false;
      unsigned Pointers = 0;
      for (const ParmVarDecl *P : FD->parameters()) {
        if (!P->getType()->isPointerType())
          continue;
        ++Pointers;
        if (K.WrittenBases.count(P) || K.EscapedBases.count(P)) {
          AnyWritten = AnyWritten || K.WrittenBases.count(P);
          continue;
        }
        if (!K.ReadBases.count(P))
          continue;
        if (P->getType().isRestrictQualified())
          continue;
        if (!aliasingCosts(Ctx, K, P))
          continue;
        ReadOnly.push_back(P);
      }
      if (!AnyWritten || ReadOnly.empty() || Pointers < 2)
        continue;
      std::string Names;
      for (const ParmVarDecl *P : ReadOnly)
        Names += (Names.empty() ? "'" : ", '") + P->getNameAsString() + "'";
      std::string Msg =
          "pointer parameter" + std::string(ReadOnly.size() > 1 ? "s " : " ") +
          Names + (ReadOnly.size() > 1 ? " are" : " is") +
          " only read but not 'const __restrict__': the compiler must "
          "assume the kernel's stores may alias " +
          (ReadOnly.size() > 1 ? "them" : "it") +
          ", so loaded values are re-read after every store and the "
          "read-only data cache is not used";
      const FunctionDecl *Shown = FD->getTemplateInstantiationPattern()
                                      ? FD->getTemplateInstantiationPattern()
                                      : FD;
      Finding F = makeFinding(Ctx, info().Id, Shown->getLocation(), Msg, FD);
      for (const ParmVarDecl *P : ReadOnly) {
        const ParmVarDecl *SP = P;
        if (Shown != FD && P->getFunctionScopeIndex() < Shown->getNumParams())
          SP = Shown->getParamDecl(P->getFunctionScopeIndex());
        PrintingPolicy PP = Ctx.getPrintingPolicy();
        PP.SuppressTagKeyword = true;
        addNote(Ctx, F, SP->getLocation(),
                "'" + P->getNameAsString() + "' could be 'const " +
                    SP->getType()->getPointeeType().getUnqualifiedType()
                        .getAsString(PP) +
                    " *__restrict__'");
      }
      // Evidence from launch sites: distinct argument variables.
      if (CC.Model) {
        std::string Name = FD->getQualifiedNameAsString();
        for (const LaunchSite &L : CC.Model->LaunchSites) {
          if (L.Kernel != Name || L.Args.empty())
            continue;
          std::set<std::string> Seen;
          bool Distinct = true;
          for (const ParmVarDecl *P : FD->parameters()) {
            unsigned I = P->getFunctionScopeIndex();
            if (!P->getType()->isPointerType() || I >= L.Args.size())
              continue;
            if (!Seen.insert(L.Args[I]).second)
              Distinct = false;
          }
          FindingNote N;
          N.Loc = L.Loc;
          N.Message = Distinct
                          ? "this launch passes a different pointer variable "
                            "for each pointer parameter; __restrict__ holds "
                            "if they are distinct allocations (not proven)"
                          : "this launch passes the same pointer for two "
                            "parameters: __restrict__ would be wrong here";
          F.Notes.push_back(N);
        }
      }
      Out.push_back(std::move(F));
    }
  }
};
CUDAL1_REGISTER_CHECK(ConstRestrictCheck);

// --- unrolling -------------------------------------------------------------------

/// A subscript of a local (register-candidate) array by \p IV in \p S.
const ArraySubscriptExpr *localArrayIndexedBy(const Stmt *S,
                                              const VarDecl *IV) {
  if (!S)
    return nullptr;
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(S)) {
    const Expr *B = ASE->getBase()->IgnoreParenImpCasts();
    while (const auto *In = dyn_cast<ArraySubscriptExpr>(B))
      B = In->getBase()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(B))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->hasLocalStorage() && V->getType()->isConstantArrayType()) {
          std::function<bool(const Stmt *)> Mentions = [&](const Stmt *X) {
            if (!X)
              return false;
            if (const auto *R = dyn_cast<DeclRefExpr>(X))
              if (R->getDecl() == IV)
                return true;
            for (const Stmt *C : X->children())
              if (Mentions(C))
                return true;
            return false;
          };
          if (Mentions(ASE->getIdx()))
            return ASE;
        }
  }
  for (const Stmt *C : S->children())
    if (const ArraySubscriptExpr *R = localArrayIndexedBy(C, IV))
      return R;
  return nullptr;
}

class ConstantTripUnrollCheck : public Check {
public:
  RuleInfo info() const override {
    return rule("unrolling-constant-trip-count",
                "innermost loop with a small constant trip count and no "
                "#pragma unroll",
                "A loop whose trip count is a compile-time constant can be "
                "unrolled completely: the induction-variable updates, "
                "compares and branches disappear, indices fold into "
                "addressing immediates, and local arrays indexed by the "
                "induction variable stay in registers instead of local "
                "memory. nvcc unrolls such loops only heuristically; "
                "'#pragma unroll' makes it certain.",
                {{"MaxTripCount", "32"}});
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Analysis)
      return;
    int64_t Max =
        CC.Options ? CC.Options->getInt(info().Id, "MaxTripCount", 32) : 32;
    for (const KernelAnalysis &K : CC.Analysis->Kernels)
      for (const auto &L : K.Loops) {
        if (L->Trip != TripKind::Constant || !L->TripCount ||
            *L->TripCount < 2 || *L->TripCount > Max || L->HasUnrollPragma ||
            L->Geometric)
          continue;
        bool Inner = true;
        for (const auto &O : K.Loops)
          if (O->Parent == L.get())
            Inner = false;
        if (!Inner || !L->IV || !isUserLoc(Ctx, CC, L->S->getBeginLoc()))
          continue;
        const ArraySubscriptExpr *Local = localArrayIndexedBy(L->S, L->IV);
        if (!Local)
          continue;
        std::string Arr = textOf(Ctx, Local->getBase()->getSourceRange());
        std::string Msg =
            "loop with a constant trip count of " + L->TripText +
            " indexes the local array '" + Arr + "' with '" + L->IVName +
            "' but is not marked '#pragma unroll': unless nvcc happens to "
            "unroll it fully, '" + Arr + "' lives in local memory (off-chip, "
            "cached in L1) instead of registers; full unrolling makes every "
            "index a constant";
        Finding F =
            makeFinding(Ctx, info().Id, L->S->getBeginLoc(), Msg, K.Kernel);
        addNote(Ctx, F, Local->getExprLoc(), "indexed by the induction "
                                             "variable here");
        Out.push_back(std::move(F));
      }
  }
};
CUDAL1_REGISTER_CHECK(ConstantTripUnrollCheck);

// --- launch configuration ----------------------------------------------------

class LaunchCheck : public Check {
public:
  enum Kind { PartialWarp, SmallGrid, SmallBlock };
  explicit LaunchCheck(Kind K) : K(K) {}
  RuleInfo info() const override {
    switch (K) {
    case PartialWarp:
      return rule("launch-partial-warp",
                  "block size that is not a multiple of the warp size (32)",
                  "Threads are scheduled in warps of 32. A block of 100 "
                  "threads occupies 4 warps, the last with only 4 active "
                  "lanes: 28 of 128 lanes (22%) do nothing but still take "
                  "issue slots and registers.");
    case SmallGrid:
      return rule("launch-small-grid",
                  "grid with fewer blocks than the GPU has SMs",
                  "Each block runs on one streaming multiprocessor. A grid "
                  "with fewer blocks than SMs (132 on H100/H200 SXM) leaves "
                  "the other SMs idle for the kernel's whole duration.",
                  {{"NumSMs", "132"}});
    case SmallBlock:
      return rule("launch-small-block",
                  "blocks so small that the per-SM block limit caps "
                  "occupancy",
                  "An SM holds at most 32 resident blocks (sm_80-sm_90). "
                  "With blocks of fewer than 64 threads it cannot reach its "
                  "2048 resident threads: 32-thread blocks cap occupancy at "
                  "50%, which limits latency hiding.",
                  {{"MinThreads", "64"}});
    }
    return {};
  }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (!CC.Model)
      return;
    const SourceManager &SM = Ctx.getSourceManager();
    for (const LaunchSite &L : CC.Model->LaunchSites) {
      if (CC.IsUserFile && !CC.IsUserFile(L.Loc.File))
        continue;
      std::string Msg;
      if (K == PartialWarp && L.Block.Dim) {
        uint64_t T = (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
        if (T == 0 || T % 32 == 0)
          continue;
        uint64_t Warps = (T + 31) / 32, Lanes = Warps * 32;
        Msg = "block of " + std::to_string(T) +
              " threads is not a multiple of the warp size: its last warp "
              "runs " + std::to_string(T % 32) + " of 32 lanes, wasting " +
              std::to_string(Lanes - T) + " of " + std::to_string(Lanes) +
              " lanes (" + std::to_string((Lanes - T) * 100 / Lanes) +
              "%); use a multiple of 32 such as " +
              std::to_string(Warps * 32);
      } else if (K == SmallGrid && L.Grid.Dim) {
        uint64_t B = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2];
        int64_t SMs = CC.Options ? CC.Options->getInt(info().Id, "NumSMs", 132)
                                 : 132;
        if (B == 0 || (int64_t)B >= SMs)
          continue;
        // Without a loop whose trip count varies, every thread handles a
        // fixed amount of work: the grid *is* the problem size and more
        // blocks would have nothing to do. Only kernels that loop over the
        // data (grid-stride, per-thread loops) could use the idle SMs.
        if (!CC.Analysis)
          continue;
        bool Found = false, Loops = false;
        for (const KernelAnalysis &KA : CC.Analysis->Kernels) {
          std::string N = KA.Name;
          if (N != L.Kernel)
            continue;
          Found = true;
          for (const auto &Lp : KA.Loops)
            if (Lp->Trip != TripKind::Constant)
              Loops = true;
        }
        if (!Found || !Loops)
          continue;
        // A problem-size literal that the launched threads already cover
        // (kernel<<<1, 256>>>(p, 256)): nothing for more SMs to do.
        if (L.Block.Dim) {
          uint64_t Threads = B * (*L.Block.Dim)[0] * (*L.Block.Dim)[1] *
                             (*L.Block.Dim)[2];
          bool AnyLiteral = false, AllFit = true;
          for (const std::string &Arg : L.Args) {
            StringRef A = StringRef(Arg).trim();
            uint64_t V;
            if (A.getAsInteger(0, V))
              continue;
            AnyLiteral = true;
            if (V > Threads)
              AllFit = false;
          }
          if (AnyLiteral && AllFit)
            continue;
        }
        Msg = "grid of " + std::to_string(B) + " block" +
              (B == 1 ? "" : "s") + " keeps only " + std::to_string(B) +
              " of the GPU's " + std::to_string(SMs) +
              " SMs busy; the rest idle for the whole kernel (use a grid "
              "of at least " + std::to_string(SMs) + " blocks, e.g. a "
              "grid-stride loop over more blocks)";
      } else if (K == SmallBlock && L.Block.Dim) {
        uint64_t T = (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
        int64_t Min = CC.Options ? CC.Options->getInt(info().Id, "MinThreads",
                                                      64)
                                 : 64;
        if (T == 0 || (int64_t)T >= Min)
          continue;
        uint64_t Occ = std::min<uint64_t>(100, 32 * T * 100 / 2048);
        Msg = "blocks of " + std::to_string(T) +
              " threads: with at most 32 resident blocks per SM, an SM "
              "holds only " + std::to_string(32 * T) +
              " of its 2048 threads (occupancy at most " +
              std::to_string(Occ) + "%); use at least 64 (better 128-256) "
              "threads per block";
      } else {
        continue;
      }
      Finding F;
      F.RuleId = info().Id;
      F.Loc = L.Loc;
      // Byte offset of the launch in its file.
      if (auto FE = SM.getFileManager().getOptionalFileRef(L.Loc.File)) {
        FileID FID = SM.translateFile(*FE);
        if (FID.isValid()) {
          SourceLocation SL = SM.translateLineCol(FID, L.Loc.Line, L.Loc.Column);
          if (SL.isValid())
            F.Offset = SM.getFileOffset(SL);
        }
      }
      F.Message = Msg;
      F.Kernel = L.Kernel;
      Out.push_back(std::move(F));
    }
  }

private:
  Kind K;
};
struct PartialWarpCheck : LaunchCheck {
  PartialWarpCheck() : LaunchCheck(PartialWarp) {}
};
struct SmallGridCheck : LaunchCheck {
  SmallGridCheck() : LaunchCheck(SmallGrid) {}
};
struct SmallBlockCheck : LaunchCheck {
  SmallBlockCheck() : LaunchCheck(SmallBlock) {}
};
CUDAL1_REGISTER_CHECK(PartialWarpCheck);
CUDAL1_REGISTER_CHECK(SmallGridCheck);
CUDAL1_REGISTER_CHECK(SmallBlockCheck);

} // namespace
} // namespace cudal1
