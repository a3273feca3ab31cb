//===- LaunchSingleThreadReduction.cpp - launch-single-thread-reduction ---===//
#include "LaunchSingleThreadReduction.h"
#include "../coalescing/RowWalk.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/SpelledType.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

/// Threads of the block the fix launches (a power of two: the tree below
/// needs none, but it keeps the partial sums' order simple to state).
constexpr unsigned BlockThreads = 256;

/// The kernel's body around its reduction loop: what comes before it
/// (declarations, assignments of locals, early exits: every thread runs
/// them), the loop, and what follows it (thread 0 runs it).
struct Shape {
  const ForStmt *Loop = nullptr;
  LoopShape LS;
  bool IVOutside = false; ///< `for (x = 0; ...)` with x declared before
  std::vector<Reduction> Reds;
  std::vector<const Stmt *> Before, After;
};

/// Every statement before the loop computes values only.
bool plainBefore(const ASTContext &Ctx, const Stmt *S,
                 std::set<const VarDecl *> &Assigned) {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->hasLocalStorage() || V->isStaticLocal() ||
          V->getType()->isReferenceType())
        return false;
    }
    return sideEffectFree(Ctx, S);
  }
  if (const Expr *C = earlyExit(S))
    return sideEffectFree(Ctx, C);
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->isAssignmentOp() && localAcc(BO->getLHS()) &&
        sideEffectFree(Ctx, BO->getRHS())) {
      Assigned.insert(localAcc(BO->getLHS()));
      return true;
    }
  return false;
}

std::optional<Shape> matchShape(ASTContext &Ctx, const CompoundStmt *Body) {
  Shape Sh;
  std::set<const VarDecl *> Assigned;
  for (const Stmt *S : Body->body()) {
    if (Sh.Loop) {
      Sh.After.push_back(S);
      continue;
    }
    const auto *L = dyn_cast<ForStmt>(S);
    if (const auto *AS = dyn_cast<AttributedStmt>(S))
      L = dyn_cast<ForStmt>(AS->getSubStmt());
    if (!L) {
      if (!plainBefore(Ctx, S, Assigned))
        return std::nullopt;
      Sh.Before.push_back(S);
      continue;
    }
    auto LS = analyzeFor(Ctx, L);
    if (!LS || LS->Step != 1 || (LS->Cmp != BO_LT && LS->Cmp != BO_LE) ||
        !L->getInc())
      return std::nullopt;
    auto Rs = loopReductions(Ctx, L);
    if (!Rs)
      return std::nullopt;
    for (Reduction &R : *Rs) {
      if (R.Acc == LS->IV)
        return std::nullopt;
      R.AssignedBefore = Assigned.count(R.Acc) > 0;
    }
    Sh.Reds = std::move(*Rs);
    Sh.Loop = L;
    Sh.LS = *LS;
    Sh.IVOutside = !isa_and_nonnull<DeclStmt>(L->getInit());
  }
  if (!Sh.Loop)
    return std::nullopt;
  return Sh;
}

/// The kernel reads a CUDA built-in variable (threadIdx, blockDim...).
bool readsBuiltin(const Stmt *S) {
  bool Any = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *E = dyn_cast<Expr>(X))
      Any |= !builtinName(E).empty();
    // The whole struct (`dim3 b = blockDim;`), not only its components.
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X)) {
      std::string N = DRE->getDecl()->getNameAsString();
      Any |= N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
             N == "gridDim" || N == "warpSize";
    }
  });
  return Any;
}

/// A call of a function that is neither a builtin nor declared in a system
/// header (a device function might read blockDim), a non-trivial
/// constructor, or a shared variable.
bool callsUserOrShares(const ASTContext &Ctx, const Stmt *S) {
  bool Any = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *CE = dyn_cast<CallExpr>(X))
      Any |= !systemCallee(Ctx, CE);
    // A constructor or destructor of the program's (it runs in every
    // thread of the block now).
    if (const auto *CC = dyn_cast<CXXConstructExpr>(X))
      Any |= !CC->getConstructor()->isTrivial();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        Any |= V->hasAttr<CUDASharedAttr>();
  });
  return Any;
}

} // namespace

RuleInfo LaunchSingleThreadReduction::info() const {
  RuleInfo I;
  I.Id = "launch-single-thread-reduction";
  I.Category = "launch";
  I.Summary = "a kernel launched with one thread whose work is a reduction "
              "loop: a block of threads can split it";
  I.Help = "Every launch of the kernel is <<<1, 1>>>: its reduction loop "
           "(a norm, a final sum of partial sums) runs serially in one "
           "thread, one load in flight at a time, on one SM of the GPU. A "
           "block of 256 threads strides the loop and combines the partial "
           "values in shared memory; thread 0 runs the rest.";
  I.Exactness = Exactness::Reassociating;
  I.ExactnessNote = "reassociating (bitwise for integer reductions)";
  I.DefaultOptions["MinTrip"] = "64";
  I.Doc.Detects =
      "A kernel that reads no built-in index or extent (`threadIdx`, "
      "`blockIdx`, `blockDim`, `gridDim`) and is launched only as `<<<1, "
      "1>>>` (the kernel model's constant grid and block at every launch "
      "site in the file), whose body is: statements that only compute "
      "values (declarations, assignments of locals, `if (...) return;`), "
      "then a `for` loop with a step of 1 (`<` or `<=`; its variable "
      "declared in the loop or before it, `for (x = 0; ...)`) whose body is "
      "reductions into distinct locals (`acc += e`, `acc = fmaxf(acc, e)`, "
      "`max`, `min`, `fmax`, `fmin`, `fminf`), then anything else (the "
      "epilogue: `R[k * n + k] = sqrt(nrm);`, `partial_sums[0] = sum;`). "
      "Gram-Schmidt's column norm, the last step of a two-kernel sum. "
      "Loops with a constant trip count below `MinTrip` (default 64) are "
      "not reported. An accumulation into global memory in such a loop "
      "(`e[0] += e[i]`) is reached by composition: "
      "[memory-register-accumulation](memory-register-accumulation.md) "
      "makes it a register sum in round 1 when it can prove the element "
      "is not read by another iteration.";
  I.Doc.WhySlow =
      "One thread runs the whole loop: with a strided column read "
      "(`A[i * n + k]`) each iteration waits for its own load, about a "
      "microsecond per hundred iterations at best, while 131 of the "
      "H200's 132 SMs and all but one lane of the one warp sit idle. A "
      "host loop that launches it once per column pays this every time.";
  I.Doc.Example = R"cuda(__global__ void col_norm(float *A, float *R, int k, int m, int n) {
  float nrm = 0.0f;
  for (int i = 0; i < m; i++)          // warning: one thread runs the loop
    nrm += A[i * n + k] * A[i * n + k];
  R[k * n + k] = sqrtf(nrm);
}
...
col_norm<<<1, 1>>>(A, R, k, m, n);)cuda";
  I.Doc.Fixed = R"cuda(__global__ void col_norm(float *A, float *R, int k, int m, int n) {
  __shared__ float cudal1_part[256];
  float nrm = 0.0f;
  for (int i = (int)threadIdx.x; i < m; i += (int)blockDim.x)
    nrm += A[i * n + k] * A[i * n + k];
  cudal1_part[threadIdx.x] = nrm;
  __syncthreads();
  for (unsigned int cudal1_s = 1u; cudal1_s < blockDim.x; cudal1_s *= 2u) {
    if (threadIdx.x % (2u * cudal1_s) == 0u && threadIdx.x + cudal1_s < blockDim.x)
      cudal1_part[threadIdx.x] += cudal1_part[threadIdx.x + cudal1_s];
    __syncthreads();
  }
  if (threadIdx.x != 0u)
    return;
  nrm = cudal1_part[0];
  R[k * n + k] = sqrtf(nrm);
}
...
col_norm<<<1, 256>>>(A, R, k, m, n);)cuda";
  I.Doc.Fix =
      "Every launch's block becomes 256 threads (the grid stays one "
      "block). The loop starts at its start plus `threadIdx.x` and steps "
      "by `blockDim.x`; each accumulator gets a `__shared__` array of 256 "
      "elements (its type as written), each thread stores its partial "
      "value there, and a tree combines them in a fixed order (the same "
      "bits on every run; with one thread it does nothing, so a launch "
      "left at `<<<1, 1>>>` still computes the original). Threads other "
      "than 0 then return, and thread 0 takes the combined value and runs "
      "the epilogue as written. A sum that does not start at zero (its "
      "initialiser, or an assignment before the loop) keeps its start in "
      "thread 0 only; a max or min may start anywhere. A loop variable "
      "declared before the loop must not be read after it (thread 0 would "
      "see another final value).\n"
      "\n"
      "Float sums are reassociated (and float max/min may return the "
      "other zero): the verifier compares within tolerance; integer "
      "reductions are exact. Nothing before the epilogue writes memory, so "
      "the partial sums read what the one thread read.\n"
      "\n"
      "## When there is no fix\n"
      "\n"
      "- the loop variable is declared before the loop and read after it, "
      "is not a local, or is narrower than `int`; the loop's condition "
      "compares in another type (`int i` against an `unsigned n`); its "
      "start or bound reads an accumulator;\n"
      "- the kernel has `__launch_bounds__`, or reads a built-in variable "
      "as a whole (`dim3 b = blockDim;`);\n"
      "- a reduced value reads an accumulator of the loop;\n"
      "- a launch's block is written in a macro;\n"
      "- the code calls a function of the program (it might read "
      "`blockDim`) or a non-trivial constructor, or uses shared memory, "
      "barriers or warp operations.\n"
      "\n"
      "When not every launch of the kernel is visible in the file, the "
      "fix is offered unproven (for `--verify=run`).";
  return I;
}

// Over 150 lines: the shape's legality and the edits of the kernel and its
// launch sites, in one pass.
void LaunchSingleThreadReduction::checkKernel(const KernelUnit &Kernel) {
  if (Kernel.IsTemplate || !context().Model)
    return;
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const FunctionDecl *K = Kernel.FD;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K->getBody());
  if (!Body || !isUserCode(K->getLocation()) || readsBuiltin(Body))
    return;
  // Every launch in the file: one block of one thread.
  std::string QN = K->getQualifiedNameAsString();
  unsigned N = 0;
  const std::array<uint64_t, 3> One{1, 1, 1};
  for (const LaunchSite &S : context().Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    ++N;
    if (S.Form != "chevron" || !S.Grid.Dim || !S.Block.Dim ||
        *S.Grid.Dim != One || *S.Block.Dim != One)
      return;
  }
  if (!N)
    return;
  auto Sh = matchShape(C, Body);
  if (!Sh)
    return;
  {
    Expr::EvalResult A, B;
    if (Sh->LS.Init->EvaluateAsInt(A, C) && Sh->LS.Bound->EvaluateAsInt(B, C)) {
      auto T = tripCount(A.Val.getInt().getExtValue(),
                         B.Val.getInt().getExtValue(), Sh->LS.Cmp, 1);
      if (T && *T < optionInt("MinTrip", 64))
        return;
    }
  }
  std::string Accs;
  for (const Reduction &R : Sh->Reds)
    Accs += (Accs.empty() ? "'" : ", '") + R.Acc->getNameAsString() + "'";
  const ForStmt *L = Sh->Loop;
  std::string IVN = Sh->LS.IV->getNameAsString();
  Finding &Fd = reportLater(finding(
      L->getBeginLoc(),
      "'" + K->getNameAsString() +
          "' runs in one thread (every launch is <<<1, 1>>>): its loop over '" +
          IVN + "' reducing into " + Accs +
          " runs serially on one SM; a block of " +
          std::to_string(BlockThreads) +
          " threads can split it and combine the partial values in shared "
          "memory",
      K, SourceRange(L->getBeginLoc(), L->getRParenLoc())));

  // --- legality ----------------------------------------------------------------
  if (callsUserOrShares(C, Body) ||
      containsCallTo(Body, {"atomic*", "__shfl*", "__syncthreads*",
                            "__syncwarp", "__ballot*", "__any*", "__all*",
                            "__activemask", "__match*", "__reduce*"})) {
    refuse(Fd, "the kernel calls a function of the program, uses shared "
               "memory, barriers, warp operations or atomics");
    return;
  }
  if (C.getTypeSize(Sh->LS.IV->getType()) < 32 ||
      !Sh->LS.IV->getType()->isIntegerType()) {
    refuse(Fd, "the loop variable '" + IVN + "' is narrower than int");
    return;
  }
  if (!Sh->LS.IV->hasLocalStorage()) {
    refuse(Fd, "the loop variable '" + IVN +
                   "' is not a local (every thread would share it)");
    return;
  }
  // The comparison is made in the loop variable's type (`i < n` with an
  // unsigned n would compare a negative start as a huge value).
  if (const auto *Cmp = dyn_cast_or_null<BinaryOperator>(L->getCond());
      !Cmp ||
      !C.hasSameUnqualifiedType(Cmp->getLHS()->getType(),
                                Sh->LS.IV->getType()) ||
      !C.hasSameUnqualifiedType(Cmp->getRHS()->getType(),
                                Sh->LS.IV->getType())) {
    refuse(Fd, "the loop's condition compares '" + IVN +
                   "' in another type than its own");
    return;
  }
  // The start and bound are the same in every thread: they read no
  // accumulator (the other threads reset theirs, or reduce their own).
  for (const Reduction &R : Sh->Reds)
    if (varsRead(Sh->LS.Init).count(R.Acc) ||
        varsRead(Sh->LS.Bound).count(R.Acc)) {
      refuse(Fd, "the loop's start or bound reads '" +
                     R.Acc->getNameAsString() + "', which the loop reduces");
      return;
    }
  if (K->hasAttr<CUDALaunchBoundsAttr>()) {
    refuse(Fd, "the kernel has __launch_bounds__ (a block of " +
                   std::to_string(BlockThreads) + " threads may exceed it)");
    return;
  }
  if (Sh->IVOutside) {
    for (const Stmt *S : Sh->After)
      if (varsRead(S).count(Sh->LS.IV)) {
        refuse(Fd, "the loop variable '" + IVN +
                       "' is declared before the loop and read after it");
        return;
      }
  }
  bool AnyFloat = false;
  for (const Reduction &R : Sh->Reds) {
    if (!sideEffectFree(C, R.Value)) {
      refuse(Fd, "a reduced value calls a function, stores or counts");
      return;
    }
    if (R.Acc->getType()->isIntegerType() &&
        !R.Value->getType()->isIntegerType()) {
      refuse(Fd, "'" + R.Acc->getNameAsString() +
                     "' is an integer reduced from floating values: each "
                     "step truncates, so the order matters");
      return;
    }
    for (const Reduction &Q : Sh->Reds)
      if (varsRead(R.Value).count(Q.Acc)) {
        refuse(Fd, "the value reduced into '" + R.Acc->getNameAsString() +
                       "' reads '" + Q.Acc->getNameAsString() + "'");
        return;
      }
    AnyFloat |= !R.Acc->getType()->isIntegerType();
  }
  auto Sites = launchSitesOf(C, context(), K);
  if (Sites.empty()) {
    refuse(Fd, "no launch site is visible to rewrite the block");
    return;
  }

  // --- edits -------------------------------------------------------------------
  FixIt X = reductionFix(AnyFloat);
  std::string Why;
  for (const CUDAKernelCallExpr *Site : Sites) {
    const CallExpr *Cfg = Site->getConfig();
    const Expr *W = Cfg && Cfg->getNumArgs() > 1
                        ? writtenLaunchDim(Cfg->getArg(1))
                        : nullptr;
    auto R = W ? editableRange(C,
                               CharSourceRange::getTokenRange(
                                   W->getSourceRange()),
                               Why)
               : std::nullopt;
    if (!R) {
      refuse(Fd, Why.empty() ? "a launch's block cannot be edited" : Why);
      return;
    }
    X.Edits.push_back(makeTextEdit(C, *R, std::to_string(BlockThreads)));
    note(Fd, Site->getBeginLoc(),
         "block of " + std::to_string(BlockThreads) + " threads at this launch");
  }
  std::string IVT = spelledType(C, Sh->LS.IV);
  std::string Ind = indentOf(C, L->getBeginLoc());
  std::string BodyInd = Ind;
  // The loop: start + threadIdx.x, step blockDim.x.
  {
    const Expr *K0 = Sh->LS.Init;
    std::string K0T = sourceText(C, K0->getSourceRange());
    auto IR = editableRange(
        C, CharSourceRange::getTokenRange(K0->getSourceRange()), Why);
    auto NR = editableRange(
        C, CharSourceRange::getTokenRange(L->getInc()->getSourceRange()), Why);
    if (!IR || !NR || K0T.empty()) {
      refuse(Fd, Why.empty() ? "the loop's header cannot be edited" : Why);
      return;
    }
    std::string Start = "(" + IVT + ")threadIdx.x";
    if (!isZeroConstant(C, K0))
      Start = "(" + K0T + ") + " + Start;
    X.Edits.push_back(makeTextEdit(C, *IR, Start));
    X.Edits.push_back(
        makeTextEdit(C, *NR, IVN + " += (" + IVT + ")blockDim.x"));
  }
  std::string Decls, Resets, Store, Combine, Take;
  std::string S = freshName(C, context(), K, "cudal1_s");
  for (const Reduction &R : Sh->Reds) {
    std::string A = R.Acc->getNameAsString();
    std::string P = freshName(C, context(), K, "cudal1_part");
    Decls += "\n" + BodyInd + "__shared__ " + spelledType(C, R.Acc) + " " +
             P + "[" + std::to_string(BlockThreads) + "];";
    if (sumStartsElsewhere(C, R))
      Resets += "\n" + Ind + "if (threadIdx.x != 0u)\n" + Ind + "  " + A +
                " = 0;";
    Store += "\n" + Ind + P + "[threadIdx.x] = " + A + ";";
    std::string Mine = P + "[threadIdx.x]", Other = P + "[threadIdx.x + " + S + "]";
    Combine += "\n" + Ind + "    " +
               (R.Kind == ReductionKind::Sum
                    ? Mine + " += " + Other + ";"
                    : Mine + " = " + R.Callee + "(" + Mine + ", " + Other +
                          ");");
    Take += "\n" + Ind + A + " = " + P + "[0];";
  }
  if (inMacro(Body->getLBracLoc()) || inMacro(L->getSourceRange())) {
    refuse(Fd, "the code comes from a macro expansion");
    return;
  }
  // The resets go after the statement before the loop (before a '#pragma'
  // the loop may carry), or with the shared arrays at the body's start.
  const Stmt *Prev = Sh->Before.empty() ? nullptr : Sh->Before.back();
  if (Prev && !Resets.empty()) {
    if (inMacro(Prev->getSourceRange())) {
      refuse(Fd, "the code comes from a macro expansion");
      return;
    }
    X.Edits.push_back(makeInsertion(C, stmtEnd(C, Prev), Resets));
  } else {
    Decls += Resets;
  }
  X.Edits.push_back(
      makeInsertion(C, Body->getLBracLoc().getLocWithOffset(1), Decls));
  X.Edits.push_back(makeInsertion(
      C, stmtEnd(C, L),
      Store + "\n" + Ind + "__syncthreads();\n" + Ind + "for (unsigned int " +
          S + " = 1u; " + S + " < blockDim.x; " + S + " *= 2u) {\n" + Ind +
          "  if (threadIdx.x % (2u * " + S + ") == 0u && threadIdx.x + " + S +
          " < blockDim.x)" + Combine + "\n" + Ind + "  __syncthreads();\n" +
          Ind + "}\n" + Ind + "if (threadIdx.x != 0u)\n" + Ind + "  return;" +
          Take));
  std::string VisWhy;
  if (!allLaunchesVisible(C, context(), K, VisWhy)) {
    X.Proven = false;
    note(Fd, K->getLocation(),
         "not every launch of '" + K->getNameAsString() +
             "' is visible (" + VisWhy +
             "): one with a block of more than 256 threads would overflow the "
             "shared arrays; not proven");
  }
  X.Description = "a block of " + std::to_string(BlockThreads) +
                  " threads strides the loop; partial values combined in "
                  "shared memory in a fixed tree order; thread 0 runs the "
                  "rest";
  Fd.Fix = std::move(X);
}

} // namespace cudal1
