//===- LaunchBounds.cpp - launch-bounds -----------------------------------===//
#include "LaunchBounds.h"

#include "../CompiledKernel.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

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

/// The most registers per thread a block of \p Threads threads can have
/// (CUDA's occupancy rules, sm_50 and later): registers go to warps in
/// units of 256 (8 per thread); a block's warps are counted in groups of 4
/// (one per SM sub-partition); 65536 per block; at most 255 per thread.
unsigned registerBudget(uint64_t Threads) {
  uint64_t Warps = (Threads + 31) / 32;
  uint64_t Counted = (Warps + 3) / 4 * 4;
  uint64_t PerThread = (65536 / Counted / 256) * 8;
  return unsigned(std::min<uint64_t>(PerThread, 255));
}

/// Registers per thread of each instantiation of the kernel compiled by
/// NVRTC (by mangled name), or why they are not known.
struct CompiledRegisters {
  std::map<std::string, unsigned> ByMangledName;
  std::string WhyNot;
};

/// Compiles the kernel extracted with its context (the verifier's way) and
/// reads its register counts from the CUBIN.
CompiledRegisters compiledRegisters(ASTContext &C, const CheckContext &CC,
                                    const FunctionDecl *FD) {
  CompiledRegisters Out;
  std::optional<ExtractedKernel> K = extractForCompile(C, CC, FD, Out.WhyNot);
  if (!K)
    return Out;
  CompiledKernel R = compileExtracted(*K, K->Source, rulesNvrtcOptions(CC));
  if (!R.WhyNot.empty()) {
    Out.WhyNot = R.WhyNot;
    return Out;
  }
  for (const auto &LN : R.LoweredNames) {
    auto It = R.Registers.find(LN.second);
    if (It != R.Registers.end())
      Out.ByMangledName[LN.second] = It->second;
  }
  if (Out.ByMangledName.empty())
    Out.WhyNot = "its CUBIN has no register count for it";
  return Out;
}

/// The registers of what launch \p L runs: its instantiation's count (by
/// mangled name), or the only count there is.
std::optional<unsigned> registersOf(ASTContext &C,
                                    const CompiledRegisters &Regs,
                                    const CUDAKernelCallExpr *L) {
  if (Regs.ByMangledName.size() == 1)
    return Regs.ByMangledName.begin()->second;
  const FunctionDecl *Callee = L->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  auto It = Regs.ByMangledName.find(mangledName(C, Callee));
  if (It == Regs.ByMangledName.end())
    return std::nullopt;
  return It->second;
}
} // namespace

RuleInfo LaunchBounds::info() const {
  RuleInfo I;
  I.Id = "launch-bounds";
  I.Category = "launch";
  I.Summary = "kernel launched only with constant blocks of more than 256 "
              "threads needs more registers than such a block can have";
  I.Exactness = Exactness::Bitwise;
  I.Help = "Without __launch_bounds__ the compiler may give a thread up to "
           "255 registers; a block of N threads can have 65536 registers in "
           "all (see the rule's documentation for the allocation rules). The "
           "rule compiles the kernel (extracted with its context, NVRTC, the "
           "--cuda-gpu-arch target and the compile command's -maxrregcount) "
           "and reports it when a launch's block cannot hold its register "
           "count: those launches fail. __launch_bounds__(N) makes the "
           "compiler fit the kernel. A kernel that already fits is not "
           "reported: the bound would only move the compiler's heuristics. "
           "When the register count cannot be measured, the bound is "
           "suggested from the block size alone, with a note. The fix is "
           "applied only when every launch of the kernel is visible in the "
           "file.";
  I.ExactnessNote =
      "bitwise; applied only when every launch is visible, otherwise "
      "reported without a fix";
  I.Doc.Detects =
      "A kernel without `__launch_bounds__` whose every launch site uses a "
      "constant block size (literal, constant, `dim3` never changed) of "
      "more than 256 threads, and a launch whose block cannot hold the "
      "kernel's registers. The register count is measured: the kernel is "
      "extracted with its context (as `--extract` does) and compiled with "
      "NVRTC for the `--cuda-gpu-arch` target (default sm_90), with the "
      "`-maxrregcount` of the file's nvcc compile command when it has one; "
      "the count is what `ptxas -v` prints as \"Used N registers\". Each "
      "template instantiation is checked against its own launches (the "
      "message names it); where clang's mangled name of an instantiation "
      "does not match NVRTC's (static and anonymous-namespace templates, "
      "lambda arguments), the launch is checked against the most any "
      "instantiation needs, and a note says so.\n"
      "\n"
      "The budget follows CUDA's occupancy rules (sm_50 and later): a block "
      "of N threads has ceil(N/32) warps, counted in groups of 4 (one per "
      "SM sub-partition); registers are given to warps in units of 256 "
      "(8 per thread); a block has at most 65536; a thread at most 255. "
      "So 512 threads allow 128 registers per thread, 544 (17 warps, "
      "counted as 20) 96, 640 96, 768 80, 1024 64.\n"
      "\n"
      "Not reported:\n"
      "- a kernel whose every launch fits: those launches already run, and "
      "the bound would only move ptxas's heuristics (on HeCBench, 10 of 17 "
      "such bounds changed the machine code; s8n's `k_cube_select` went "
      "from 29 registers to 32), which nothing here can show to help "
      "without measuring it on a GPU;\n"
      "- blocks of at most 256 threads: `__launch_bounds__(N)` then allows "
      "255 registers per thread, what a thread can have anyway.\n"
      "\n"
      "When the kernel cannot be compiled on its own (NVRTC missing, a "
      "device function defined in another file), the bound is suggested "
      "from the block size alone and a note says why the count is not "
      "known.";
  I.Doc.WhySlow =
      "Without launch bounds the compiler does not know the block size: a "
      "kernel that needs more registers per thread than a block of N "
      "threads can have fails to launch ('too many resources requested "
      "for launch').";
  I.Doc.Example = R"cuda(__global__ void heavy(...)   // 158 registers; heavy<<<g, 512>>>: 128 allowed)cuda";
  I.Doc.Fixed = R"cuda(__global__ void __launch_bounds__(512) heavy(...))cuda";
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
  std::vector<std::pair<const CUDAKernelCallExpr *, uint64_t>> Blocks;
  for (const CUDAKernelCallExpr *L : Launches) {
    const CallExpr *Cfg = L->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2)
      return;
    auto V = evalDim(C, Cfg->getArg(1));
    if (!V || *V == 0 || *V > 1024)
      return;
    Max = std::max(Max, *V);
    Blocks.push_back({L, *V});
  }
  // The register budget the bound gives a thread: it can change the code
  // only when it is below what a thread may use anyway (255).
  if (Max == 0 || registerBudget(Max) >= 255)
    return;
  // What the kernel needs, compiled, against each launch's block (each
  // template instantiation against its own launches): within the budget,
  // every launch already runs and the bound would only move the compiler's
  // heuristics, which nothing here can show to help (measure it with
  // --verify=run).
  CompiledRegisters Regs = compiledRegisters(C, context(), FD);
  bool Known = !Regs.ByMangledName.empty();
  const CUDAKernelCallExpr *Worst = nullptr;
  unsigned WorstRegs = 0;
  uint64_t WorstBlock = 0;
  // A launch whose instantiation cannot be matched to NVRTC's names
  // (clang and NVRTC mangle static and anonymous-namespace templates
  // differently): the most any instantiation needs, said in a note.
  unsigned MostRegs = 0;
  for (const auto &NR : Regs.ByMangledName)
    MostRegs = std::max(MostRegs, NR.second);
  bool WorstGuessed = false;
  for (const auto &[L, V] : Blocks) {
    if (!Known || registerBudget(V) >= 255)
      continue;
    std::optional<unsigned> R = registersOf(C, Regs, L);
    bool Guessed = !R;
    if (!R)
      R = MostRegs;
    if (*R > registerBudget(V) && V > WorstBlock) {
      Worst = L;
      WorstRegs = *R;
      WorstBlock = V;
      WorstGuessed = Guessed;
    }
  }
  if (Known && !Worst)
    return;
  std::string Why;
  bool Proven = allLaunchesVisible(C, context(), FD, Why);
  std::string N = std::to_string(Max);
  std::string Arch = context().Options
                         ? context().Options->get("cuda-l1", "GpuArch", "sm_90")
                         : "sm_90";
  std::string What = "the kernel";
  if (Worst && FD->getDescribedFunctionTemplate())
    if (const FunctionDecl *Callee = Worst->getDirectCallee()) {
      std::string S;
      raw_string_ostream OS(S);
      Callee->getNameForDiagnostic(OS, C.getPrintingPolicy(), true);
      What = "'" + S + "'";
    }
  std::string Msg;
  if (Worst) {
    std::string WB = std::to_string(WorstBlock);
    Msg = "compiled for " + Arch +
          (nvccMaxRegCount(context())
               ? " with -maxrregcount=" + std::to_string(nvccMaxRegCount(context()))
               : std::string()) +
          ", " + What + " needs " + std::to_string(WorstRegs) +
          " registers per thread, but a block of " + WB +
          " threads can have at most " +
          std::to_string(registerBudget(WorstBlock)) +
          ": its launches with " + WB +
          " threads fail ('too many resources requested for launch'); "
          "'__launch_bounds__(" +
          N + ")' makes the compiler fit it";
  } else {
    Msg = "every launch uses a constant block of at most " + N +
          " threads; '__launch_bounds__(" + N + ")' keeps the kernel within "
          "the " + std::to_string(registerBudget(Max)) +
          " registers per thread such a block has (without it the compiler "
          "may use up to 255, and the launch fails)";
  }
  Finding F = makeFinding(C, id(), FD->getLocation(), Msg, FD);
  if (WorstGuessed)
    note(F, Worst->getBeginLoc(),
         "the instantiation this launch runs could not be matched to the "
         "compiled ones; the count is the most any instantiation needs");
  if (!Known)
    note(F, FD->getLocation(),
         "the kernel's register count is not known: " + Regs.WhyNot +
             "; the bound is suggested from the block size alone");
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
