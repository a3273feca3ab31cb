//===- SyncSequentialReduction.cpp - sync-sequential-reduction ------------===//
//
// sync-sequential-reduction: the interleaved shared-memory tree
//   for (s = 1; s < N; s *= 2) { if (tid % (2*s) == 0) X[tid] op= X[tid+s];
//                                __syncthreads(); }
// (a divergent branch in every warp, a modulo per step, 2-way and worse
// bank conflicts) becomes sequential addressing
//   for (s = N/2; s > 0; s >>= 1) { if (tid < s) X[tid] op= X[tid+s];
//                                   __syncthreads(); }
// Only X[0] keeps its meaning (checked: the kernel reads nothing else of X
// after the loop). Integers: bitwise; floating point: reassociating.
//
//===----------------------------------------------------------------------===//
#include "SyncSequentialReduction.h"
#include "TreeStep.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

bool isPow2(uint64_t V) { return V && !(V & (V - 1)); }

/// \p E reads threadIdx (also through locals initialised from it).
bool mentionsThreadIdx(const Expr *E, unsigned D = 0) {
  if (!E || D > 6)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      if (V->getName() == "threadIdx")
        return true;
      if (V->hasLocalStorage() && V->getInit() && !isa<ParmVarDecl>(V))
        return mentionsThreadIdx(V->getInit(), D + 1);
    }
    return false;
  }
  if (const auto *POE = dyn_cast<PseudoObjectExpr>(E))
    return mentionsThreadIdx(POE->getSyntacticForm(), D);
  if (const auto *MS = dyn_cast<MSPropertyRefExpr>(E))
    return mentionsThreadIdx(MS->getBaseExpr(), D);
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(E))
    return mentionsThreadIdx(OVE->getSourceExpr(), D);
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (mentionsThreadIdx(CE, D))
        return true;
  return false;
}

/// \p E reads \p V.
bool mentionsVar(const Expr *E, const VarDecl *V) {
  if (!E)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (DRE->getDecl() == V)
      return true;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (mentionsVar(CE, V))
        return true;
  return false;
}

/// The variable a for loop's init declares or assigns.
const VarDecl *loopIV(const Stmt *L) {
  const auto *FS = dyn_cast<ForStmt>(L);
  if (!FS)
    return nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(FS->getInit()))
    if (DS->isSingleDecl())
      return dyn_cast<VarDecl>(DS->getSingleDecl());
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(FS->getInit()))
    if (const auto *DRE =
            dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

} // namespace

RuleInfo SyncSequentialReduction::info() const {
  RuleInfo I;
  I.Id = "sync-sequential-reduction";
  I.Category = "sync";
  I.Summary = "interleaved tree reduction (tid % (2*s) == 0) -> sequential "
              "addressing (tid < s)";
  I.Exactness = Exactness::Reassociating;
  I.Help = "The interleaved shared-memory reduction keeps only every "
           "(2*s)-th thread busy, so every warp diverges at every step, and "
           "its accesses conflict in the banks. Sequential addressing "
           "(s from N/2 down, tid < s) keeps the active threads packed in "
           "the first warps. The additions pair different elements: bitwise "
           "for integers, within tolerance for floating point.";
  I.ExactnessNote =
      "reassociating (bitwise for integers and min/max)";
  I.Doc.Detects =
      "The interleaved shared-memory tree reduction:\n"
      "\n"
      "```cuda\n"
      "for (unsigned int s = 1; s < blockDim.x; s *= 2) {\n"
      "  if (tid % (2 * s) == 0)                // warning\n"
      "    sdata[tid] += sdata[tid + s];\n"
      "  __syncthreads();\n"
      "}\n"
      "```\n"
      "\n"
      "It also reports, without a fix, the other divergent selections of a "
      "tree reduction (`tid % (2*s) == 0`, `(tid & mask) == 0` with the "
      "loop variable in the divisor or mask) in loops of device code (this "
      "rule took over `sync-divergent-reduction`).";
  I.Doc.WhySlow =
      "At step `s` only every `2s`-th thread works, so every warp diverges "
      "at every step and no warp can retire early; the modulo costs a "
      "division per step; the accesses `sdata[tid]`, `sdata[tid + s]` of "
      "the working lanes conflict in the banks.";
  I.Doc.Fix =
      "Sequential addressing:\n"
      "\n"
      "```cuda\n"
      "for (unsigned int s = (blockDim.x) / 2; s > 0; s >>= 1) {\n"
      "  if (tid < s)\n"
      "    sdata[tid] += sdata[tid + s];\n"
      "  __syncthreads();\n"
      "}\n"
      "```\n"
      "\n"
      "The active threads are packed into the first warps, whole warps "
      "drop out, accesses are conflict-free. The additions pair different "
      "elements, so floating-point sums differ in the last bits "
      "(reassociating: checked within tolerance); integer sums, min and "
      "max are exact.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the step is not a single update `X[tid] op= X[tid + s]` (or "
      "`X[tid] = X[tid] op X[tid + s]`, `max`/`min`/`fmaxf`/`fminf`) of a "
      "`__shared__` array;\n"
      "- the kernel reads any element of the array other than `X[0]` after "
      "the loop (they hold different partial sums after the rewrite);\n"
      "- the bound is not `blockDim.x` or a constant, or is not a power of "
      "two (for `blockDim.x`: the constant block size at the launch sites; "
      "when unknown, the fix is offered as not proven).";
  return I;
}

void SyncSequentialReduction::runOn(ASTContext &Ctx, const CheckContext &CC,
                                    const FunctionDecl *K,
                                    const FunctionFacts &F,
                                    std::vector<Finding> &Out) {
  forEachStmt(K->getBody(), [&](const Stmt *S) {
    if (const auto *L = dyn_cast<ForStmt>(S))
      match(Ctx, CC, K, F, L, Out);
  });
}

// Over 150 lines: the pattern of the interleaved tree, its legality (what is
// read after the loop, the bound) and the rewritten loop, sharing the matched
// loop and update.
void SyncSequentialReduction::match(ASTContext &Ctx, const CheckContext &CC,
                                    const FunctionDecl *K,
                                    const FunctionFacts &F, const ForStmt *L,
                                    std::vector<Finding> &Out) {
  // for (T s = 1; s < BOUND; s *= 2 | s <<= 1 | s = s * 2)
  const auto *DS = dyn_cast_or_null<DeclStmt>(L->getInit());
  if (!DS || !DS->isSingleDecl())
    return;
  const auto *S = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!S || !S->getInit() || !S->getType()->isIntegerType())
    return;
  Expr::EvalResult ER;
  if (!S->getInit()->EvaluateAsInt(ER, Ctx) || ER.Val.getInt() != 1)
    return;
  const auto *C = dyn_cast_or_null<BinaryOperator>(L->getCond());
  if (!C || C->getOpcode() != BO_LT || varOf(C->getLHS()) != S)
    return;
  const Expr *Bound = C->getRHS();
  const Expr *Inc = L->getInc() ? L->getInc()->IgnoreParens() : nullptr;
  const auto *IB = dyn_cast_or_null<BinaryOperator>(Inc);
  if (!IB || varOf(IB->getLHS()) != S)
    return;
  auto ConstIs = [&](const Expr *E, int64_t V) {
    Expr::EvalResult R;
    return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == V;
  };
  bool Doubling =
      (IB->getOpcode() == BO_MulAssign && ConstIs(IB->getRHS(), 2)) ||
      (IB->getOpcode() == BO_ShlAssign && ConstIs(IB->getRHS(), 1));
  if (!Doubling)
    return;
  // Body: { if (tid % (2*s) == 0) <update>; __syncthreads(); }
  const auto *Body = dyn_cast<CompoundStmt>(L->getBody());
  if (!Body || Body->size() != 2)
    return;
  const auto *If = dyn_cast<IfStmt>(Body->body_front());
  const auto *Sync = dyn_cast<CallExpr>(Body->body_back());
  if (!If || !Sync || !Sync->getDirectCallee() ||
      Sync->getDirectCallee()->getName() != "__syncthreads" || If->getElse() ||
      If->getInit() || If->getConditionVariable())
    return;
  const auto *Eq = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
  if (!Eq || Eq->getOpcode() != BO_EQ || !ConstIs(Eq->getRHS(), 0))
    return;
  const auto *Rem =
      dyn_cast<BinaryOperator>(Eq->getLHS()->IgnoreParenImpCasts());
  if (!Rem || Rem->getOpcode() != BO_Rem)
    return;
  std::map<const VarDecl *, std::string> Syms{{S, "s@red"}};
  if (!isThreadX(Rem->getLHS(), F) ||
      toAffine(Rem->getRHS(), F, Syms) !=
          AffineExpr::constant(2) * AffineExpr::symbol("s@red"))
    return;
  const Expr *Tid = Rem->getLHS()->IgnoreParenImpCasts();
  std::string TidText = sourceText(Ctx, Tid->getSourceRange());

  Finding Fd = makeFinding(
      Ctx, "sync-sequential-reduction", If->getCond()->getBeginLoc(),
      "interleaved tree reduction: '" +
          sourceText(Ctx, If->getCond()->getSourceRange()) +
          "' leaves most threads of every warp idle at every step (divergent "
          "branches, a modulo per step, bank conflicts); sequential "
          "addressing keeps the active threads in the first warps",
      K);
  Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the reduction loop"));
  // The update: X[tid] op= X[tid + s] (or X[tid] = X[tid] op X[tid+s],
  // or X[tid] = f(X[tid], X[tid+s])) with X in shared memory.
  const Stmt *Upd = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Upd)) {
    if (CS->size() != 1) {
      refuse(Fd, "the reduction step is not a single update statement");
      Out.push_back(Fd);
      return;
    }
    Upd = CS->body_front();
  }
  const auto *UA = dyn_cast<BinaryOperator>(Upd);
  const auto *LHS =
      UA ? dyn_cast<ArraySubscriptExpr>(UA->getLHS()->IgnoreParens()) : nullptr;
  const VarDecl *X = LHS ? varOf(LHS->getBase()) : nullptr;
  if (!UA || !UA->isAssignmentOp() || !X || !X->hasAttr<CUDASharedAttr>() ||
      !isThreadX(LHS->getIdx(), F)) {
    refuse(Fd, "the reduction step is not 'X[tid] op= X[tid + s]' on a "
               "__shared__ array");
    Out.push_back(Fd);
    return;
  }
  std::string Why;
  bool ReadsPartner = false;
  forEachStmt(UA->getRHS(), [&](const Stmt *St) {
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(St)) {
      if (varOf(AS->getBase()) != X) {
        Why = "the reduction step reads other arrays";
        return;
      }
      AffineExpr I = toAffine(AS->getIdx(), F, Syms);
      if (I == AffineExpr::symbol("threadIdx.x") + AffineExpr::symbol("s@red"))
        ReadsPartner = true;
      else if (I != AffineExpr::symbol("threadIdx.x"))
        Why = "the reduction step reads '" +
              sourceText(Ctx, AS->getSourceRange()) + "'";
    }
    if (isa<CallExpr>(St)) {
      const auto *CE = cast<CallExpr>(St);
      const FunctionDecl *FD = CE->getDirectCallee();
      std::string N = FD && FD->getIdentifier() ? FD->getName().str() : "";
      if (!isMinMaxName(N))
        Why = "the reduction step calls '" + N + "'";
    }
  });
  if (Why.empty() && !ReadsPartner)
    Why = "the reduction step does not read X[tid + s]";
  if (!Why.empty()) {
    refuse(Fd, Why);
    Out.push_back(Fd);
    return;
  }
  // After the loop, only X[0] is read.
  Why = readAfterTree(Ctx, K, X, L);
  if (!Why.empty()) {
    refuse(Fd, Why);
    Out.push_back(Fd);
    return;
  }
  // The number of elements reduced must be a power of two.
  FixIt Fix;
  std::string BoundText = sourceText(Ctx, Bound->getSourceRange());
  Expr::EvalResult BR;
  if (Bound->EvaluateAsInt(BR, Ctx)) {
    if (!isPow2(BR.Val.getInt().getZExtValue())) {
      refuse(Fd, "the reduction bound " + BoundText + " is not a power of two");
      Out.push_back(Fd);
      return;
    }
  } else if (builtinName(Bound) == "blockDim.x") {
    auto Block = constantBlock(CC, K, Why);
    if (!Block) {
      Fix.Proven = false;
      Fd.Notes.push_back(
          makeNote(Ctx, L->getBeginLoc(),
                   "needs blockDim.x to be a power of two: " + Why));
    } else if (!isPow2((*Block)[0]) || (*Block)[1] != 1 || (*Block)[2] != 1) {
      refuse(Fd, "the block size is not a one-dimensional power of two");
      Out.push_back(Fd);
      return;
    }
  } else {
    refuse(Fd, "the reduction bound '" + BoundText +
                   "' is neither a constant nor blockDim.x");
    Out.push_back(Fd);
    return;
  }
  if (inMacro(L->getSourceRange()) || BoundText.empty() || TidText.empty()) {
    refuse(Fd, "the loop comes from a macro expansion");
    Out.push_back(Fd);
    return;
  }
  QualType ET = LHS->getType();
  Fix.Exact =
      ET->isIntegerType() ? Exactness::Bitwise : Exactness::Reassociating;
  if (Fix.Exact == Exactness::Reassociating) {
    Fix.Rtol = 1e-5;
    Fix.Atol = 1e-6;
    Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
  }
  // Max/min are exact in any order.
  if (UA->getOpcode() == BO_Assign) {
    bool MinMax = false;
    forEachStmt(UA->getRHS(), [&](const Stmt *St) {
      if (isa<CallExpr>(St))
        MinMax = true;
    });
    if (MinMax)
      Fix.Exact = Exactness::Bitwise;
  }
  std::string TypeText = spelledType(Ctx, S);
  std::string SN = S->getName().str();
  Fix.Edits.push_back(makeTextEdit(
      Ctx,
      CharSourceRange::getCharRange(L->getLParenLoc().getLocWithOffset(1),
                                    L->getRParenLoc()),
      TypeText + " " + SN + " = (" + BoundText + ") / 2; " + SN + " > 0; " +
          SN + " >>= 1"));
  Fix.Edits.push_back(makeTextEdit(
      Ctx, CharSourceRange::getTokenRange(If->getCond()->getSourceRange()),
      TidText + " < " + SN));
  Fix.Description = "sequential addressing: " + SN + " from " + BoundText +
                    "/2 down, threads " + TidText + " < " + SN + " add";
  Fd.Fix = Fix;
  Out.push_back(Fd);
}

void SyncSequentialReduction::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate)
    return;
  std::vector<Finding> Out;
  runOn(ctx(), context(), Kernel.FD, Kernel.Facts, Out);
  for (Finding &F : Out)
    report(std::move(F));
}

void SyncSequentialReduction::checkTranslationUnit() {
  ASTContext &Ctx = ctx();
  forEachDeviceStmt(
      Ctx, context(),
      [&](const Stmt *S, const FunctionDecl *FD, ArrayRef<const Stmt *> Loops) {
        const auto *If = dyn_cast<IfStmt>(S);
        if (!If || Loops.empty() || !If->getCond())
          return;
        const auto *Cmp =
            dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
        if (!Cmp || (Cmp->getOpcode() != BO_EQ && Cmp->getOpcode() != BO_NE))
          return;
        const Expr *Mod = nullptr;
        for (const Expr *Side : {Cmp->getLHS(), Cmp->getRHS()}) {
          const Expr *Other =
              Side == Cmp->getLHS() ? Cmp->getRHS() : Cmp->getLHS();
          Expr::EvalResult R;
          if (!Other->isValueDependent() && Other->EvaluateAsInt(R, Ctx) &&
              R.Val.getInt() == 0)
            Mod = Side->IgnoreParenImpCasts();
        }
        const auto *M = dyn_cast_or_null<BinaryOperator>(Mod);
        if (!M || (M->getOpcode() != BO_Rem && M->getOpcode() != BO_And))
          return;
        const VarDecl *IV = loopIV(Loops.back());
        if (!IV || !mentionsVar(M->getRHS(), IV) ||
            !mentionsThreadIdx(M->getLHS()) ||
            !firstInUserCode(If->getCond()->getBeginLoc()))
          return;
        std::string Msg =
            "divergent interleaved reduction: '" +
            oneLineText(Ctx, Cmp->getSourceRange()) +
            "' keeps every warp resident with only a fraction of its lanes "
            "active (half in the first step, 1 in 32 from the sixth), and " +
            (M->getOpcode() == BO_Rem
                 ? std::string("the modulo by a run-time value costs about 20 "
                               "instructions per step")
                 : std::string("the mask test runs on every thread")) +
            "; use sequential addressing ('if (tid < s)' with s halving) and "
            "warp shuffles for the last 32 elements";
        Finding F = makeFinding(Ctx, id(), If->getCond()->getBeginLoc(), Msg,
                                FD, Cmp->getSourceRange());
        note(F, Loops.back()->getBeginLoc(),
             "reduction loop over '" + IV->getNameAsString() + "'");
        reportWithoutFix(
            std::move(F),
            "the rewrite handles the tree 'for (s = 1; s < n; s *= "
            "2) { if (tid % (2 * s) == 0) X[tid] op= X[tid + s]; "
            "__syncthreads(); }' in a kernel's own body");
      });
}

} // namespace cudal1
