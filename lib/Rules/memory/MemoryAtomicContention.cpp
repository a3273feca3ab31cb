//===- MemoryAtomicContention.cpp - memory-atomic-contention --------------===//
//
// memory-atomic-contention: from the symbolic access analysis, global
// atomics whose address is the same for every lane of a warp.
//
//===----------------------------------------------------------------------===//
#include "MemoryAtomicContention.h"

#include "../AccessNotes.h"

#include <vector>

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
      "warp first. Nor is a program's own min or max built on "
      "compare-and-swap whose loop runs only while the thread's value "
      "beats the current one (`while (val > __int_as_float(old)) { ... "
      "atomicCAS ... }`): once the extreme is near, a lane loads, compares "
      "and leaves without an atomic.";
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
      "finding is dropped: one diagnosis per atomic.\n"
      "\n"
      "Not reported where nvcc already combines the atomic across the "
      "warp: CUDA's atomicAdd, atomicSub, atomicMin, atomicMax, atomicAnd, "
      "atomicOr or atomicXor (any scope; min, max and the bitwise ones "
      "only when their old value is not used) on a 32-bit integer, called "
      "directly, at an address built from parameters, constants, global "
      "variables, blockIdx/blockDim/gridDim and locals never changed after "
      "being initialised from those (`int gx = blockIdx.x`: the same "
      "REDUX in the SASS, utils/experiments/atomic-uniform-local.cu). nvcc "
      "13 turns those into "
      "one atomic per warp (REDUX or POPC in the SASS); on the H200 they "
      "take the time of a hand-written warp reduction "
      "(utils/bench/atomics/uniform-atomics.sh), while a float atomicAdd "
      "from every lane took 30x the hand-reduced time.";
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

/// \p CAS is in a `while` or `for` loop of \p F whose condition (or one
/// of its top-level `&&` operands) compares one of \p F's value parameters
/// with <, >, <= or >= (`while (val > __int_as_float(old))`): a lane whose
/// value does not beat the current one never reaches the atomic. (A
/// do-while runs it at least once; a retry cap `t < 1000` compares no
/// parameter.)
bool casUnderComparison(ASTContext &Ctx, const FunctionDecl *F,
                        const CallExpr *CAS) {
  // Through a declaration (`unsigned prev = atomicCAS(...)`) too.
  std::vector<const Stmt *> Up = stmtAncestors(Ctx, CAS);
  for (size_t I = 1; I < Up.size() && I <= 16; ++I) {
    const Stmt *P = Up[I];
    if (isa<DoStmt>(P))
      return false;
    if (!isa<WhileStmt>(P) && !isa<ForStmt>(P))
      continue;
    const Expr *Cond = isa<WhileStmt>(P) ? cast<WhileStmt>(P)->getCond()
                                         : cast<ForStmt>(P)->getCond();
    std::vector<const Expr *> Conj;
    if (Cond)
      splitTopLevel(Cond, BO_LAnd, Conj);
    // The innermost loop decides.
    for (const Expr *E : Conj) {
      const auto *B = dyn_cast<BinaryOperator>(E);
      if (!B || !B->isRelationalOp())
        continue;
      bool Param = false;
      forEachStmt(B, [&](const Stmt *S) {
        if (const auto *D = dyn_cast<DeclRefExpr>(S))
          if (const auto *PV = dyn_cast<ParmVarDecl>(D->getDecl()))
            Param |= PV->getDeclContext() == F &&
                     !PV->getType()->isPointerType();
      });
      if (Param)
        return true;
    }
    return false;
  }
  return false;
}

/// \p F is a program's own min or max built on compare-and-swap whose loop
/// runs only while the thread's value beats the current one (`while (val >
/// __int_as_float(old)) { ... atomicCAS ... }`): once the extreme is near,
/// a lane loads, compares and leaves without an atomic, so the lanes are
/// not serialised on the address. (An add built on compare-and-swap
/// retries until it succeeds, `while (assumed != old)`: not this.)
bool guardedCasMinMax(ASTContext &Ctx, const FunctionDecl *F) {
  std::string N = StringRef(F->getName()).lower();
  if (N.find("min") == std::string::npos && N.find("max") == std::string::npos)
    return false;
  const FunctionDecl *Def = F->getDefinition();
  if (!Def || !Def->hasBody() ||
      Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return false;
  bool Cas = false, Guarded = true;
  forEachStmt(Def->getBody(), [&](const Stmt *S) {
    const auto *C = dyn_cast<CallExpr>(S);
    const FunctionDecl *G = C ? C->getDirectCallee() : nullptr;
    if (!G || !G->getIdentifier() || !G->getName().starts_with("atomicCAS"))
      return;
    Cas = true;
    Guarded &= casUnderComparison(Ctx, Def, C);
  });
  return Cas && Guarded;
}

/// The atomic \p A combines across lanes: add, sub, min, max, and, or, xor
/// (CUDA's atomicAdd..., the scoped _system/_block forms, nvcc's
/// __nv_atomic_* and the __atomic_*_fetch built-ins), also when it is the
/// compare-and-swap loop inside a function of the user's named for one
/// (`atomicMaxFloat`, a double `atomicAdd` emulation).
bool combinableAtomic(ASTContext &Ctx, const MemAccess &A) {
  const auto *CE = dyn_cast<CallExpr>(A.E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return true; // unknown form: as before
  if (combinableName(StringRef(FD->getName()).lower()))
    return !guardedCasMinMax(Ctx, FD);
  for (const CallExpr *Via : A.CallChain)
    if (const FunctionDecl *F = Via->getDirectCallee();
        F && F->getIdentifier() &&
        combinableName(StringRef(F->getName()).lower()))
      return !guardedCasMinMax(Ctx, F);
  return false;
}

/// An address every lane of a warp computes the same way, as the compiler
/// sees it: parameters, constants, blockIdx/blockDim/gridDim, global
/// variables, locals of \p F never changed after an initialiser that is
/// such a value (`int gx = blockIdx.x`: the SASS has the same REDUX as with
/// blockIdx.x written in place, utils/experiments/atomic-uniform-local.cu),
/// and + - * & [] of those (no load, no threadIdx).
bool compilerUniform(const Expr *E, const FunctionFacts &F,
                     unsigned Depth = 0) {
  E = E->IgnoreParenImpCasts();
  if (Depth > 4)
    return false;
  if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E))
    return true;
  // blockIdx.x, blockDim.y, gridDim.z (not threadIdx)
  if (std::string B = builtinName(E); !B.empty())
    return !StringRef(B).starts_with("threadIdx");
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    if (isa<ParmVarDecl>(D->getDecl()) || isa<EnumConstantDecl>(D->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (V && V->hasLocalStorage() && V->getInit() && !F.isMutated(V) &&
        !V->getType()->isReferenceType())
      return compilerUniform(V->getInit(), F, Depth + 1);
    return V && (V->hasGlobalStorage() ||
                 (V->getType().isConstQualified() && V->getInit() &&
                  V->getInit()->isIntegerConstantExpr(V->getASTContext())));
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() != UO_AddrOf)
      return false;
    const Expr *Sub = U->getSubExpr()->IgnoreParens();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub))
      return compilerUniform(AS->getBase(), F, Depth) &&
             compilerUniform(AS->getIdx(), F, Depth);
    return compilerUniform(Sub, F, Depth);
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return (B->isAdditiveOp() || B->isMultiplicativeOp() || B->isShiftOp() ||
            B->getOpcode() == BO_And || B->getOpcode() == BO_Or) &&
           compilerUniform(B->getLHS(), F, Depth) &&
           compilerUniform(B->getRHS(), F, Depth);
  return false;
}

/// nvcc 13 already combines the atomic across the warp: a direct call of
/// CUDA's atomicAdd/Sub/Min/Max/And/Or/Xor (any scope) on a 32-bit integer
/// at an address it sees as uniform becomes one atomic per warp (REDUX or
/// POPC in the SASS, the same time as a hand-written warp reduction on the
/// H200: utils/bench/atomics/uniform-atomics.sh). Float adds are not
/// combined (30x slower than by hand).
bool compilerCombines(const ASTContext &Ctx, const MemAccess &A,
                      const FunctionFacts &F) {
  const auto *CE = dyn_cast<CallExpr>(A.E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || !A.CallChain.empty() ||
      CE->getNumArgs() < 1)
    return false;
  StringRef N = FD->getName();
  bool Cuda = false;
  for (StringRef Op : {"atomicAdd", "atomicSub", "atomicMin", "atomicMax",
                       "atomicAnd", "atomicOr", "atomicXor"})
    if (N == Op || N == (Op + "_system").str() || N == (Op + "_block").str())
      Cuda = true;
  if (!Cuda || !Ctx.getSourceManager().isInSystemHeader(FD->getLocation()))
    return false;
  // Min, max, and, or, xor are combined only when the old value is not
  // used (with it, one ATOMG per lane stays); add and sub either way.
  if (!N.starts_with("atomicAdd") && !N.starts_with("atomicSub")) {
    auto Ps = const_cast<ASTContext &>(Ctx).getParents(*CE);
    while (!Ps.empty() && (Ps[0].get<ParenExpr>() || Ps[0].get<ExprWithCleanups>()))
      Ps = const_cast<ASTContext &>(Ctx).getParents(Ps[0]);
    bool Discarded =
        !Ps.empty() && (Ps[0].get<CompoundStmt>() || Ps[0].get<IfStmt>() ||
                        Ps[0].get<ForStmt>() || Ps[0].get<WhileStmt>() ||
                        Ps[0].get<DoStmt>() ||
                        (Ps[0].get<CStyleCastExpr>() &&
                         Ps[0].get<CStyleCastExpr>()->getType()->isVoidType()));
    if (const auto *If = Ps.empty() ? nullptr : Ps[0].get<IfStmt>())
      Discarded = If->getCond() != CE;
    if (!Discarded)
      return false;
  }
  QualType T = CE->getType();
  if (!T->isIntegerType() || Ctx.getTypeSize(T) != 32)
    return false;
  return compilerUniform(CE->getArg(0), F);
}
} // namespace

void MemoryAtomicContention::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  const CheckContext &CC = context();
  if (!CC.Analysis)
    return;
  for (const KernelAnalysis &K : CC.Analysis->Kernels) {
    if (!K.Kernel)
      continue;
    FunctionFacts Facts = FunctionFacts::compute(K.Kernel);
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
      if (!combinableAtomic(Ctx, A) || compilerCombines(Ctx, A, Facts))
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
}

} // namespace cudal1
