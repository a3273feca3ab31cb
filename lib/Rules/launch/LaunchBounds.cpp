//===- LaunchBounds.cpp - launch-bounds -----------------------------------===//
#include "LaunchBounds.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// The value of a constant block-size argument (an integer or a dim3 built
/// from constants, also through an unchanged local).
std::optional<uint64_t> evalDim(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  const Expr *S = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(S))
    S = MT->getSubExpr()->IgnoreImplicit()->IgnoreParens();
  if (S->getType()->isIntegralOrEnumerationType()) {
    Expr::EvalResult R;
    if (S->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getZExtValue();
    // A const / never-changed local with a constant initialiser.
    if (const auto *D = dyn_cast<DeclRefExpr>(S->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->getInit() && V->isLocalVarDecl() &&
            V->getType().isConstQualified())
          return evalDim(Ctx, V->getInit());
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
    if (CE->getNumArgs() == 1 && CE->getArg(0)->getType()->isRecordType())
      return evalDim(Ctx, CE->getArg(0));
    uint64_t P = 1;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I);
      if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
        A = DA->getExpr();
      auto V = evalDim(Ctx, A);
      if (!V)
        return std::nullopt;
      P *= *V;
    }
    return P;
  }
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(S))
    return evalDim(Ctx, FC->getSubExpr());
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      if (V->getInit() && V->isLocalVarDecl()) {
        // dim3 block(16, 16): unchanged after its declaration.
        const FunctionDecl *FD =
            enclosingFunction(Ctx, DynTypedNode::create(*E));
        if (V->getType().isConstQualified())
          return evalDim(Ctx, V->getInit());
        if (FD && FD->getBody()) {
          ExprMutationAnalyzer EMA(*FD->getBody(), Ctx);
          if (!EMA.isMutated(V))
            return evalDim(Ctx, V->getInit());
        }
      }
  return std::nullopt;
}
} // namespace

RuleInfo LaunchBounds::info() const {
  RuleInfo I;
  I.Id = "launch-bounds";
  I.Category = "launch";
  I.Summary = "kernel launched only with constant blocks of more than 256 "
              "threads has no __launch_bounds__";
  I.Exactness = Exactness::Bitwise;
  I.Help = "Without __launch_bounds__ the compiler may give a thread up to "
           "255 registers; a block of N threads has 65536/N per thread "
           "(64K registers per SM on every GPU since sm_30). When every "
           "launch uses a constant block of at most N threads and 65536/N "
           "is below 255 (N > 256), __launch_bounds__(N) keeps the kernel "
           "within that budget: without it a kernel needing more fails to "
           "launch. With N <= 256 the bound allows 255 registers anyway and "
           "changes nothing, so it is not reported. Results are unchanged; "
           "a launch with a larger block would fail, so the fix is applied "
           "only when every launch of the kernel is visible in the file.";
  I.ExactnessNote =
      "bitwise; applied only when every launch is visible, otherwise "
      "reported without a fix";
  I.Doc.Detects =
      "A kernel without `__launch_bounds__` whose every launch site uses a "
      "constant block size (literal, constant, `dim3` never changed) of "
      "more than 256 and less than 1024 threads.\n"
      "\n"
      "Not reported when the largest block has at most 256 threads: "
      "`__launch_bounds__(N)` then allows 65536/N >= 256 registers per "
      "thread, more than the 255 a thread can have, so it cannot change "
      "the code the compiler generates. (A bound below 256 threads only "
      "matters with a minimum-blocks argument, which needs the kernel's "
      "register count: that is measured with `--verify=run`, not guessed.)";
  I.Doc.WhySlow =
      "Without launch bounds the compiler does not know the block size: "
      "it may use more registers per thread than a block of N threads can "
      "have (the launch then fails with 'too many resources requested'), "
      "and it cannot trade registers for the occupancy that size allows.";
  I.Doc.Example = R"cuda(__global__ void saxpy(...)   // saxpy<<<g, 512>>>)cuda";
  I.Doc.Fixed = R"cuda(__global__ void __launch_bounds__(512) saxpy(...))cuda";
  I.Doc.Fix =
      "Inserts `__launch_bounds__(N)` (N = the largest block) before the "
      "kernel's name. A launch with a larger block would fail, so the fix "
      "is applied only when every launch of the kernel is visible (see "
      "memory-restrict); otherwise offered.";
  return I;
}

void LaunchBounds::checkKernel(const KernelUnit &K) {
  ASTContext &C = ctx();
  const FunctionDecl *FD = K.FD;
  auto Launches = launchSitesOf(C, context(), FD);
  if (FD->hasAttr<CUDALaunchBoundsAttr>() || Launches.empty())
    return;
  for (const FunctionDecl *R : FD->redecls())
    if (R->hasAttr<CUDALaunchBoundsAttr>())
      return;
  uint64_t Max = 0;
  for (const CUDAKernelCallExpr *L : Launches) {
    const CallExpr *Cfg = L->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2)
      return;
    auto V = evalDim(C, Cfg->getArg(1));
    if (!V || *V == 0 || *V > 1024)
      return;
    Max = std::max(Max, *V);
  }
  // The register budget the bound gives a thread: it changes the code only
  // when it is below what a thread may use anyway (255).
  constexpr uint64_t RegsPerSM = 65536, MaxRegsPerThread = 255;
  if (Max == 0 || Max == 1024 || RegsPerSM / Max >= MaxRegsPerThread)
    return;
  std::string Why;
  bool Proven = allLaunchesVisible(C, context(), FD, Why);
  std::string N = std::to_string(Max);
  Finding F =
      makeFinding(C, id(), FD->getLocation(),
                  "every launch uses a constant block of at most " + N +
                      " threads; '__launch_bounds__(" + N +
                      ")' keeps the kernel within the " +
                      std::to_string(RegsPerSM / Max) +
                      " registers per thread such a block has (without it "
                      "the compiler may use up to 255, and the launch fails)",
                  FD);
  for (const CUDAKernelCallExpr *L : Launches)
    note(F, L->getBeginLoc(), "launched here");
  if (!Proven)
    F.WhyNoFix = "not every launch of the kernel is known: " + Why;
  SourceLocation NameLoc = FD->getLocation();
  auto ER =
      editableRange(C, CharSourceRange::getTokenRange(NameLoc, NameLoc), Why);
  if (!ER) {
    F.WhyNoFix = Why;
  } else {
    FixIt X;
    X.Description = "add __launch_bounds__(" + N + ")";
    X.Exact = Exactness::Bitwise;
    X.Proven = Proven;
    X.Edits.push_back(
        makeInsertion(C, ER->getBegin(), "__launch_bounds__(" + N + ") "));
    F.Fix = std::move(X);
  }
  report(std::move(F));
}

} // namespace cudal1
