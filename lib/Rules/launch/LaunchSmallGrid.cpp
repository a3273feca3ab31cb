//===- LaunchSmallGrid.cpp - launch-small-grid ----------------------------===//
#include "LaunchSmallGrid.h"

#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

bool loopBounded(ASTContext &C, const LoopInfo &L, unsigned Depth);

/// \p E's value cannot exceed a compile-time constant inside the loop
/// \p L: an integer constant, the induction variable of an enclosing loop
/// that is itself bounded (lud's triangular `for (j = 0; j < i; j++)` in
/// `for (i = 0; i < BLOCK_SIZE; i++)`), a local initialised with such a
/// value and never changed, `min(x, y)` with either one bounded, and sums,
/// products and differences of bounded values.
bool valueBounded(ASTContext &C, const Expr *E, const LoopInfo &L,
                  unsigned Depth) {
  if (!E || Depth > 8)
    return false;
  E = E->IgnoreParenImpCasts();
  if (evalInt(C, E))
    return true;
  if (const auto *CE = dyn_cast<CastExpr>(E))
    return valueBounded(C, CE->getSubExpr(), L, Depth + 1);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add: case BO_Sub: case BO_Mul: case BO_Div: case BO_Shr:
      return valueBounded(C, BO->getLHS(), L, Depth + 1) &&
             (BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Shr ||
              valueBounded(C, BO->getRHS(), L, Depth + 1));
    default:
      return false;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *F = Call->getDirectCallee();
    StringRef N = F && F->getIdentifier() ? F->getName() : "";
    if ((N == "min" || N == "umin" || N == "llmin" || N == "ullmin" ||
         N == "fminf") && Call->getNumArgs() == 2)
      return valueBounded(C, Call->getArg(0), L, Depth + 1) ||
             valueBounded(C, Call->getArg(1), L, Depth + 1);
    return false;
  }
  const VarDecl *V = varOf(E);
  if (!V)
    return false;
  for (const LoopInfo *P = L.Parent; P; P = P->Parent)
    if (P->IV == V)
      return loopBounded(C, *P, Depth + 1);
  if (!V->isLocalVarDecl() || !V->getInit())
    return false;
  if (!V->getType().isConstQualified()) {
    const auto *F = dyn_cast_or_null<FunctionDecl>(
        V->getParentFunctionOrMethod());
    if (!F || !F->getBody() || varsWrittenIn(F->getBody()).count(V))
      return false;
  }
  return valueBounded(C, V->getInit(), L, Depth + 1);
}

/// The trip count of \p L has a compile-time bound.
bool loopBounded(ASTContext &C, const LoopInfo &L, unsigned Depth) {
  if (L.Trip == TripKind::Constant)
    return true;
  const auto *For = dyn_cast_or_null<ForStmt>(L.S);
  if (!For || Depth > 8)
    return false;
  std::optional<LoopShape> S = analyzeFor(C, For);
  if (!S || S->Step <= 0 || !evalInt(C, S->Init))
    return false;
  return valueBounded(C, S->Bound, L, Depth + 1);
}

/// The argument texts \p L passes, spaces removed.
std::string argText(const std::string &A) {
  std::string R;
  for (char Ch : A)
    if (!isspace((unsigned char)Ch))
      R += Ch;
  return R;
}

} // namespace

RuleInfo LaunchSmallGrid::info() const {
  RuleInfo I;
  I.Id = "launch-small-grid";
  I.Category = "launch";
  I.Summary = "grid with fewer blocks than the GPU has SMs";
  I.Help = "Each block runs on one streaming multiprocessor. A grid with "
           "fewer blocks than SMs (132 on H100/H200 SXM) leaves the other "
           "SMs idle for the kernel's whole duration.";
  I.DefaultOptions["NumSMs"] = "132";
  I.Doc.Detects =
      "A launch whose constant grid has fewer blocks than the GPU has SMs "
      "(option `NumSMs`, default 132 for H100/H200 SXM), of a kernel with "
      "a loop whose trip count grows with the data. Not reported when "
      "every loop's trip count has a compile-time bound (a constant, the "
      "induction variable of such an enclosing loop, `min(x, C)`: an LU "
      "factorisation's diagonal tile), nor for the second pass of a "
      "multi-pass reduction: the launch passes a buffer that a launch of "
      "another kernel in the same function writes one value per block "
      "into (every write at an address the block's threads share), so its "
      "data is as large as that grid.";
  I.Doc.WhySlow =
      "A block runs on one SM; the other SMs stay idle for the whole "
      "kernel.";
  I.Doc.Example = R"cuda(reduce<<<1, 256>>>(in, out, n);   // warning: 1 of 132 SMs busy)cuda";
  I.Doc.Fix =
      "Launch at least one block per SM (better several) with a "
      "grid-stride loop, or split the work (e.g. a two-pass reduction). "
      "Not reported when every integer-literal argument of the launch (the "
      "problem size, e.g. `kernel<<<1, 256>>>(p, 256)`) is covered by the "
      "threads launched.";
  return I;
}

bool LaunchSmallGrid::kernelLoopsOverData(const LaunchSite &L) const {
  // Without a loop whose trip count varies, every thread handles a fixed
  // amount of work: the grid *is* the problem size and more blocks would
  // have nothing to do. Only kernels that loop over the data (grid-stride,
  // per-thread loops) could use the idle SMs.
  if (!analysis())
    return false;
  // A loop whose trip count a constant bounds (lud's diagonal block:
  // `for (j = 0; j < i; j++)` inside `for (i = 0; i < BLOCK_SIZE; i++)`)
  // does a fixed amount of work too.
  bool Loops = false;
  for (const KernelAnalysis &KA : analysis()->Kernels)
    if (KA.Name == L.Kernel)
      for (const auto &Lp : KA.Loops)
        if (!loopBounded(ctx(), *Lp, 0))
          Loops = true;
  if (!Loops || !L.Block.Dim || !L.Grid.Dim)
    return Loops;
  // A problem-size literal that the launched threads already cover
  // (kernel<<<1, 256>>>(p, 256)): nothing for more SMs to do.
  uint64_t Threads = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2] *
                     (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
  bool AnyLiteral = false, AllFit = true;
  for (const std::string &Arg : L.Args) {
    uint64_t V;
    if (StringRef(Arg).trim().getAsInteger(0, V))
      continue;
    AnyLiteral = true;
    if (V > Threads)
      AllFit = false;
  }
  return !(AnyLiteral && AllFit);
}

const LaunchSite *
LaunchSmallGrid::partialsProducer(const LaunchSite &L) const {
  if (!analysis() || L.EnclosingFunction.empty())
    return nullptr;
  for (const LaunchSite &P : context().Model->LaunchSites) {
    if (&P == &L || P.Kernel == L.Kernel ||
        P.EnclosingFunction != L.EnclosingFunction ||
        P.Loc.File != L.Loc.File)
      continue;
    for (const KernelAnalysis &KA : analysis()->Kernels) {
      if (KA.Name != P.Kernel || KA.WrittenBases.empty())
        continue;
      for (const ValueDecl *W : KA.WrittenBases) {
        const auto *Parm = dyn_cast<ParmVarDecl>(W);
        if (!Parm || Parm->getFunctionScopeIndex() >= P.Args.size() ||
            KA.EscapedBases.count(W))
          continue;
        // Every write through it is at an address the same for all the
        // threads of a block: one value per block.
        bool PerBlock = false, Other = false;
        for (const MemAccess &A : KA.Accesses) {
          if (A.Base != W || !A.IsWrite)
            continue;
          if (A.IsAtomic || !A.Address.isKnown() ||
              A.Address.dependsOnThread())
            Other = true;
          else
            PerBlock = true;
        }
        if (!PerBlock || Other)
          continue;
        std::string T = argText(P.Args[Parm->getFunctionScopeIndex()]);
        for (const std::string &A : L.Args)
          if (argText(A) == T)
            return &P;
      }
    }
  }
  return nullptr;
}

void LaunchSmallGrid::checkTranslationUnit() {
  if (!context().Model)
    return;
  int64_t SMs = optionInt("NumSMs", 132);
  for (const LaunchSite &L : context().Model->LaunchSites) {
    if (!L.Grid.Dim || !isUserFile(L.Loc))
      continue;
    uint64_t B = (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2];
    if (B == 0 || (int64_t)B >= SMs || !kernelLoopsOverData(L))
      continue;
    // The second pass of a multi-pass reduction: it reads the one value
    // per block that a launch before it in the same function wrote (as
    // many values as that grid has blocks): its data is small by design.
    if (partialsProducer(L))
      continue;
    report(finding(
        L, "grid of " + std::to_string(B) + " block" + (B == 1 ? "" : "s") +
               " keeps only " + std::to_string(B) + " of the GPU's " +
               std::to_string(SMs) +
               " SMs busy; the rest idle for the whole kernel (use a grid "
               "of at least " +
               std::to_string(SMs) +
               " blocks, e.g. a "
               "grid-stride loop over more blocks)"));
  }
}

} // namespace cudal1
