//===- LaunchSmallBlock.cpp - launch-small-block --------------------------===//
//
// Blocks of fewer than MinThreads threads: the per-SM limit of resident
// blocks caps occupancy. The fix (bitwise) folds blocks together where the
// kernel cannot tell: a one-dimensional block of B threads becomes one of
// B * M (256 threads), and the grid M times smaller, when the kernel uses
// the built-ins only as the global index `blockIdx.x * blockDim.x +
// threadIdx.x` (and the grid-stride `blockDim.x * gridDim.x`), in its body
// and in every function it calls, and threads do not cooperate (no shared
// memory, barriers, warp operations or atomics). Every thread then has the
// same global index, the same stride and the same work as before; the
// launch keeps the original shape when the grid's x extent is not a
// multiple of M (checked at run time).
//
//===----------------------------------------------------------------------===//
#include "LaunchSmallBlock.h"
#include "HostStatements.h"

#include "cudal1/Rules/BuiltinUse.h"

#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// A reference to one of CUDA's index built-ins.
const VarDecl *builtinVar(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->getIdentifier())
    return nullptr;
  StringRef N = V->getName();
  return N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
                 N == "gridDim"
             ? V
             : nullptr;
}

/// `blockDim.x * gridDim.x` in either order: the grid-stride step.
bool isGridStrideX(const Expr *E) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!B || B->getOpcode() != BO_Mul)
    return false;
  std::string L = builtinName(B->getLHS()->IgnoreParenImpCasts());
  std::string R = builtinName(B->getRHS()->IgnoreParenImpCasts());
  return (L == "blockDim.x" && R == "gridDim.x") ||
         (L == "gridDim.x" && R == "blockDim.x");
}

/// The kernel (and what it calls) uses the index built-ins only as the
/// global x index and the grid-stride step, and its threads do not
/// cooperate; "" when so, else why not.
std::string foldable(const ASTContext &C, const FunctionDecl *K) {
  std::string Why;
  std::set<const FunctionDecl *> Seen;
  std::function<bool(const Stmt *, unsigned)> Walk = [&](const Stmt *S,
                                                         unsigned Depth) {
    if (!S)
      return true;
    if (const auto *E = dyn_cast<Expr>(S))
      if (isGlobalXIndex(E) || isGridStrideX(E))
        return true;
    if (const auto *E = dyn_cast<Expr>(S))
      if (std::string N = builtinName(E); !N.empty()) {
        Why = "it reads '" + N +
              "' other than in `blockIdx.x * blockDim.x + threadIdx.x` or "
              "`blockDim.x * gridDim.x`";
        return false;
      }
    if (const auto *E = dyn_cast<Expr>(S))
      if (const VarDecl *V = builtinVar(E)) {
        Why = "it reads '" + V->getName().str() +
              "' other than in `blockIdx.x * blockDim.x + threadIdx.x` or "
              "`blockDim.x * gridDim.x`";
        return false;
      }
    const FunctionDecl *Callee;
    if (std::string W = threadCooperationWhy(C, S, Callee); !W.empty()) {
      Why = W;
      return false;
    }
    if (Callee) {
      if (Depth > 8) {
        Why = "its calls are nested too deep to follow";
        return false;
      }
      if (Seen.insert(Callee).second && !Walk(Callee->getBody(), Depth + 1))
        return false;
    }
    for (const Stmt *Ch : S->children())
      if (!Walk(Ch, Depth))
        return false;
    return true;
  };
  if (!K->hasBody() || !Walk(K->getBody(), 0))
    return Why.empty() ? "its body is not visible" : Why;
  return "";
}

/// Bytes of `__shared__` memory the kernel \p K declares with a known size
/// (in its body and in the functions it calls); extern arrays count 0.
uint64_t staticSharedBytes(const ASTContext &C, const FunctionDecl *K) {
  uint64_t Bytes = 0;
  std::set<const Decl *> Seen;
  std::function<void(const Stmt *, unsigned)> Walk = [&](const Stmt *S,
                                                         unsigned Depth) {
    if (!S || Depth > 8)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          if (V->hasAttr<CUDASharedAttr>() && Seen.insert(V).second &&
              !V->getType()->isIncompleteType() &&
              !V->getType()->isDependentType())
            Bytes += C.getTypeSizeInChars(V->getType()).getQuantity();
    if (const auto *CE = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *F = CE->getDirectCallee())
        if (const FunctionDecl *Def = F->getDefinition())
          if (Seen.insert(Def).second)
            Walk(Def->getBody(), Depth + 1);
    for (const Stmt *Ch : S->children())
      Walk(Ch, Depth);
  };
  Walk(K->getBody(), 0);
  return Bytes;
}

} // namespace

RuleInfo LaunchSmallBlock::info() const {
  RuleInfo I;
  I.Id = "launch-small-block";
  I.Category = "launch";
  I.Summary = "blocks so small that the per-SM block limit caps occupancy";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote =
      "bitwise (every thread keeps its global index, its grid-stride step "
      "and its work; threads do not cooperate)";
  I.Help = "An SM holds at most 32 resident blocks (sm_80-sm_90). With "
           "blocks of fewer than 64 threads it cannot reach its 2048 "
           "resident threads: 32-thread blocks cap occupancy at 50%, which "
           "limits latency hiding. Where the kernel only knows its threads "
           "by their global index, the fix launches 256-thread blocks, "
           "fewer of them, with the same threads.";
  I.DefaultOptions["MinThreads"] = "64";
  I.DefaultOptions["NumSMs"] = "132";
  I.DefaultOptions["MaxBlocksPerSM"] = "32";
  I.DefaultOptions["MaxWarpsPerSM"] = "64";
  I.DefaultOptions["SharedMemPerSM"] = "233472";
  I.Doc.Detects =
      "A launch with fewer than `MinThreads` (default 64) threads per "
      "block (a known constant shape) whose blocks are too small for the "
      "SM's block limit (`MaxBlocksPerSM`, default 32) to fill its warps "
      "(`MaxWarpsPerSM`, default 64): in practice blocks of at most 32 "
      "threads, since blocks of 33 to 63 threads take 2 warps each and 32 "
      "of them fill the SM (the idle lanes of their last warp are "
      "launch-partial-warp's finding). Not reported when the grid is known "
      "and is one block, or holds at most 32 threads in all, or has whole "
      "warps and at most `MaxBlocksPerSM` blocks per SM "
      "(`NumSMs`, default 132, the H100/H200): such a grid is resident at "
      "once, the residency limit never binds, and folding its blocks "
      "would leave SMs idle. Nor when the block's shared memory (its "
      "`__shared__` arrays of known size, in the kernel and the functions "
      "it calls, plus a constant dynamic size at the launch, plus the 1 KiB "
      "reserved per block) already limits an SM to `MaxBlocksPerSM` blocks "
      "or fewer (`SharedMemPerSM`, default 233472 bytes, sm_90): shared "
      "memory, not the block limit, caps occupancy there. Nor when the "
      "kernel's threads cannot tell each other apart: it never reads "
      "`threadIdx` (nor do the functions it calls) and has no atomic or "
      "warp operation that could hand them different work, so more threads "
      "per block would repeat the same work (a memory-latency probe's "
      "one-thread pointer chase, `<<<smCount, 1>>>`).";
  I.Doc.WhySlow =
      "An SM holds at most 32 resident blocks (sm_80 to sm_90); with "
      "32-thread blocks it holds 1024 of its 2048 threads, so occupancy is "
      "capped at 50% and latency is poorly hidden.";
  I.Doc.Example = R"cuda(__global__ void price(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = f(s[i]);
}
...
dim3 grid((n + 31) / 32), block(32);
price<<<grid, block>>>(s, out, n);   // warning: occupancy at most 50%)cuda";
  I.Doc.Fixed = R"cuda(price<<<dim3((grid).x % 8 == 0 ? (grid).x / 8 : (grid).x, (grid).y, (grid).z),
        dim3((grid).x % 8 == 0 ? (block).x * 8 : (block).x, (block).y, (block).z)>>>(s, out, n);)cuda";
  I.Doc.Fix =
      "When the block is one-dimensional with B threads (B divides 256) "
      "and the kernel uses `threadIdx`, `blockIdx`, `blockDim` and "
      "`gridDim` only as the global index `blockIdx.x * blockDim.x + "
      "threadIdx.x` and the grid-stride step `blockDim.x * gridDim.x` (in "
      "its body and in every function it calls), without shared memory, "
      "barriers, warp operations, atomics, inline assembly or calls it "
      "cannot see, the launch folds M = 256 / B blocks into one: blocks of "
      "B * M threads and a grid M times smaller along x. When the grid's x "
      "extent is not a multiple of M (checked at run time, in the launch "
      "expression) the launch keeps its shape.\n"
      "\n"
      "Bitwise: every thread has the same global index and the same "
      "grid-stride step as before, so it does the same work, and threads "
      "do not interact. The grid and the block must be expressions without "
      "side effects (the grid is read several times); launches with "
      "dynamic shared memory or a stream, and launches written in macros, "
      "keep the finding without a fix.";
  return I;
}

void LaunchSmallBlock::checkTranslationUnit() {
  if (!context().Model)
    return;
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  int64_t Min = optionInt("MinThreads", 64);
  // The AST launches by their place.
  std::map<std::string,
           std::pair<const CUDAKernelCallExpr *, const FunctionDecl *>>
      At;
  const SharedRuleFacts &SF = sharedFacts(C, context());
  for (const FunctionDecl *K : SF.Kernels)
    for (const CUDAKernelCallExpr *L : launchSitesOf(C, context(), K))
      At[makeSourceLoc(SM, L->getBeginLoc()).str()] = {L, K};
  for (const LaunchSite &L : context().Model->LaunchSites) {
    if (!L.Block.Dim || !isUserFile(L.Loc))
      continue;
    uint64_t T = (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
    if (T == 0 || (int64_t)T >= Min)
      continue;
    // The block limit binds only while its blocks hold fewer warps than
    // the SM has: blocks of 33 to 63 threads take 2 warps each, and 32 of
    // them fill the SM's 64 warps (the idle lanes of their last warp are
    // launch-partial-warp's finding).
    int64_t MaxBlocks = optionInt("MaxBlocksPerSM", 32);
    int64_t MaxWarps = optionInt("MaxWarpsPerSM", 64);
    if (MaxBlocks * (int64_t)((T + 31) / 32) >= MaxWarps)
      continue;
    // A grid of whole warps whose blocks are all resident at once (at most
    // MaxBlocksPerSM per SM): the limit never binds, and folding its blocks
    // would leave SMs idle. Blocks of fewer than 32 threads idle lanes of
    // every warp whatever the grid (launch-partial-warp leaves them to this
    // rule). One block is setup work, and a whole launch of at most one
    // warp's threads (`<<<4, 2>>>`) only pays the launch's latency.
    if (L.Grid.Dim) {
      uint64_t G = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2];
      if (G == 1 || G * T <= 32 ||
          (T % 32 == 0 && (int64_t)G <= MaxBlocks * optionInt("NumSMs", 132)))
        continue;
    }
    auto KIt = At.find(L.Loc.str());
    // What the kernel's definition reads (threadIdx, atomics, warp
    // operations, library code): asked once, for the gate below and the fix.
    std::optional<BuiltinUse> KernelUse;
    // Shared memory that already holds an SM to MaxBlocksPerSM blocks or
    // fewer (1 KiB per block is reserved): that, not the block limit, is
    // what caps occupancy.
    if (KIt != At.end()) {
      const FunctionDecl *KD = KIt->second.second->getDefinition();
      uint64_t Shared = KD ? staticSharedBytes(C, KD) : 0;
      if (L.SharedMem.Present && L.SharedMem.Value && *L.SharedMem.Value > 0)
        Shared += *L.SharedMem.Value;
      if (Shared > 0 &&
          optionInt("SharedMemPerSM", 233472) / (int64_t)(Shared + 1024) <=
              MaxBlocks)
        continue;
      // A kernel that never reads threadIdx (nor do the functions it
      // calls) and has no atomic or warp operation that could hand its
      // threads different work: the threads of a block all do the same
      // work, so more of them per block would repeat it, not share it (a
      // latency probe's one-thread pointer chase, `<<<smCount, 1>>>`).
      if (KD) {
        const BuiltinUse &BU = KernelUse.emplace(builtinUse(C, KD));
        if (BU.Unknown.empty() && !BU.Atomic && !BU.WarpOp &&
            !BU.reads("threadIdx.x") && !BU.reads("threadIdx.y") &&
            !BU.reads("threadIdx.z"))
          continue;
      }
    }
    uint64_t Occ = std::min<uint64_t>(
        100, MaxBlocks * T * 100 / std::max<int64_t>(1, MaxWarps * 32));
    Finding &F = reportLater(finding(
        L, "blocks of " + std::to_string(T) +
               " threads: with at most " + std::to_string(MaxBlocks) +
               " resident blocks per SM, an SM holds only " +
               std::to_string(MaxBlocks * T) + " of its " +
               std::to_string(MaxWarps * 32) +
               " threads (occupancy at most " +
               std::to_string(Occ) +
               "%); use at least 64 (better 128-256) "
               "threads per block"));
    // --- the fix ----------------------------------------------------------------
    if (KIt == At.end()) {
      refuse(F, "the launch is not a `<<<>>>` launch of a kernel defined in "
                "this file");
      continue;
    }
    const CUDAKernelCallExpr *Call = KIt->second.first;
    const FunctionDecl *K = KIt->second.second;
    uint64_t B = (*L.Block.Dim)[0];
    if ((*L.Block.Dim)[1] != 1 || (*L.Block.Dim)[2] != 1 || 256 % B != 0) {
      refuse(F, "the block is not one-dimensional with a size that divides "
                "256");
      continue;
    }
    uint64_t M = 256 / B;
    if (K->isTemplated() || K->isTemplateInstantiation()) {
      refuse(F, "the kernel is a template");
      continue;
    }
    const FunctionDecl *Def = K->getDefinition() ? K->getDefinition() : K;
    if (std::string Why = foldable(C, Def); !Why.empty()) {
      refuse(F, "the kernel could tell larger blocks apart: " + Why);
      continue;
    }
    // Library code that reads the thread index itself (cooperative groups,
    // cub, libcu++), seen through the call graph (atomics, shuffles and
    // barriers foldable() refuses already).
    // (KernelUse holds Def's whenever K has a definition.)
    if (std::string Why =
            (KernelUse ? *KernelUse : builtinUse(C, Def)).Unknown;
        !Why.empty()) {
      refuse(F, "the kernel could tell larger blocks apart: " + Why);
      continue;
    }
    // A block of 256 must be one the kernel can be launched with.
    if (const auto *LB = Def->getAttr<CUDALaunchBoundsAttr>()) {
      std::optional<llvm::APSInt> Max =
          LB->getMaxThreads()
              ? LB->getMaxThreads()->getIntegerConstantExpr(C)
              : std::nullopt;
      if (!Max || Max->getExtValue() < 256) {
        refuse(F, "the kernel's __launch_bounds__ allows fewer than 256 "
                  "threads per block");
        continue;
      }
    }
    if (Def->hasAttr<CUDAClusterDimsAttr>()) {
      refuse(F, "the kernel has __cluster_dims__ (the grid must stay a "
                "multiple of the cluster)");
      continue;
    }
    const CallExpr *Cfg = Call->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2 ||
        !defaultStreamNoSharedMemory(C, Call)) {
      refuse(F, "the launch names dynamic shared memory or a stream");
      continue;
    }
    if (inMacro(Call->getSourceRange())) {
      refuse(F, "the launch comes from a macro expansion");
      continue;
    }
    const Expr *GW = writtenLaunchDim(Cfg->getArg(0));
    const Expr *BW = writtenLaunchDim(Cfg->getArg(1));
    GW = GW ? GW : Cfg->getArg(0);
    BW = BW ? BW : Cfg->getArg(1);
    if (!pureLaunchValue(C, GW) || !pureLaunchValue(C, BW)) {
      refuse(F, "the grid or the block has side effects (the grid is read "
                "several times)");
      continue;
    }
    // A constant grid: decided here (a plain launch, no run-time check).
    std::optional<uint64_t> ConstGX;
    if (L.Grid.Dim)
      ConstGX = (*L.Grid.Dim)[0];
    if (ConstGX && *ConstGX % M != 0) {
      refuse(F, "the grid's " + std::to_string(*ConstGX) +
                    " blocks are not a multiple of " + std::to_string(M) +
                    ", so blocks of 256 threads would not make the same "
                    "threads");
      continue;
    }
    std::string Why;
    auto GR = editableRange(
        C, CharSourceRange::getTokenRange(Cfg->getArg(0)->getSourceRange()),
        Why);
    auto BR = editableRange(
        C, CharSourceRange::getTokenRange(Cfg->getArg(1)->getSourceRange()),
        Why);
    std::string GT = sourceText(C, Cfg->getArg(0)->getSourceRange());
    std::string BT = sourceText(C, Cfg->getArg(1)->getSourceRange());
    if (!GR || !BR || GT.empty() || BT.empty()) {
      refuse(F, Why.empty() ? "the launch configuration cannot be edited"
                            : Why);
      continue;
    }
    // A dim3 (or uint3) is read by component, an integer as it is, a
    // floating value (`ceil(n / 32.0)`) converted as the launch converts
    // it; braces and other forms are not rewritten.
    auto Kind = [](const Expr *E) {
      QualType T = E->getType();
      if (isa<InitListExpr>(E->IgnoreParens()))
        return 0;
      if (T->isIntegerType())
        return 1;
      if (T->isRealFloatingType())
        return 2;
      if (const auto *RD = T->getAsCXXRecordDecl())
        if (RD->getIdentifier() &&
            (RD->getName() == "dim3" || RD->getName() == "uint3"))
          return 3;
      return 0;
    };
    if (!Kind(GW) || !Kind(BW)) {
      refuse(F, "the grid or the block is not written as a dim3, an integer "
                "or a floating value");
      continue;
    }
    auto IsInt = [&](const Expr *E) { return Kind(E) != 3; };
    std::string Ms = std::to_string(M);
    if (Kind(GW) == 2)
      GT = "(unsigned)(" + GT + ")";
    if (Kind(BW) == 2)
      BT = "(unsigned)(" + BT + ")";
    std::string GX = IsInt(GW) ? "(" + GT + ")" : "(" + GT + ").x";
    std::string Cond = GX + " % " + Ms + " == 0";
    std::string NewG =
        IsInt(GW) ? "(" + Cond + " ? " + GX + " / " + Ms + " : " + GX + ")"
                  : "dim3(" + Cond + " ? " + GX + " / " + Ms + " : " + GX +
                        ", (" + GT + ").y, (" + GT + ").z)";
    std::string BX = IsInt(BW) ? "(" + BT + ")" : "(" + BT + ").x";
    std::string NewB =
        IsInt(BW) ? "(" + Cond + " ? " + BX + " * " + Ms + " : " + BX + ")"
                  : "dim3(" + Cond + " ? " + BX + " * " + Ms + " : " + BX +
                        ", (" + BT + ").y, (" + BT + ").z)";
    if (ConstGX && IsInt(GW) && IsInt(BW)) {
      NewG = std::to_string(*ConstGX / M);
      NewB = std::to_string(B * M);
    }
    FixIt X;
    X.Exact = Exactness::Bitwise;
    X.Description = "fold " + Ms + " blocks of " + std::to_string(B) +
                    " threads into one of 256";
    X.Edits.push_back(makeTextEdit(C, *GR, NewG));
    X.Edits.push_back(makeTextEdit(C, *BR, NewB));
    F.Fix = std::move(X);
  }
}

} // namespace cudal1
