//===- LaunchBounds.cpp - launch-bounds -----------------------------------===//
#include "LaunchBounds.h"

#include "cudal1/Capture/CubinSymbols.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Extract/Extract.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/Hashing.h"

#include <map>
#include <mutex>

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

/// The most registers per thread a block of \p Threads threads can have:
/// registers are given to warps in units of 256 (8 per thread), 65536 per
/// block and per SM, at most 255 per thread (every GPU since sm_50).
unsigned registerBudget(uint64_t Threads) {
  uint64_t Warps = (Threads + 31) / 32;
  uint64_t PerThread = (65536 / Warps / 256) * 8;
  return unsigned(std::min<uint64_t>(PerThread, 255));
}

/// Registers per thread of the kernel compiled by NVRTC (its most hungry
/// instantiation), or why that is not known.
struct CompiledRegisters {
  std::optional<unsigned> Count;
  std::string WhyNot;
};

/// Compiles the kernel extracted with its context (the verifier's way) and
/// reads its register count from the CUBIN. Results are kept per source
/// and architecture: the language server analyses the same file often.
CompiledRegisters compiledRegisters(ASTContext &C, const CheckContext &CC,
                                    const FunctionDecl *FD) {
  CompiledRegisters Out;
  NvrtcOptions NO;
  NO.CudaPath = CC.Options ? CC.Options->get("cuda-l1", "CudaPath", "") : "";
  NO.GpuArch =
      CC.Options ? CC.Options->get("cuda-l1", "GpuArch", "sm_90") : "sm_90";
  std::string Where;
  if (!nvrtcAvailable(NO.CudaPath, &Where)) {
    Out.WhyNot = "NVRTC is not available (" + Where + ")";
    return Out;
  }
  if (!CC.CI) {
    Out.WhyNot = "the kernel could not be extracted";
    return Out;
  }
  std::string Name = FD->getQualifiedNameAsString();
  const SourceManager &SM = C.getSourceManager();
  unsigned Line = SM.getExpansionLineNumber(FD->getBeginLoc());
  const ExtractedKernel *K = nullptr;
  std::vector<ExtractedKernel> All =
      extractKernels(C, CC.CI->getPreprocessor(), Name);
  for (const ExtractedKernel &E : All)
    if (E.Kernel == Name && (All.size() == 1 || E.KernelRange.Begin.Line == Line))
      K = &E;
  if (!K || !K->Problems.empty() || K->NameExprs.empty()) {
    Out.WhyNot = "the kernel could not be extracted with its context" +
                 (K && !K->Problems.empty() ? ": " + K->Problems.front()
                                            : std::string());
    return Out;
  }
  static std::mutex Mu;
  static std::map<std::pair<size_t, std::string>, CompiledRegisters> Cache;
  auto Key = std::make_pair(size_t(hash_value(K->Source)), NO.GpuArch);
  {
    std::lock_guard<std::mutex> L(Mu);
    auto It = Cache.find(Key);
    if (It != Cache.end())
      return It->second;
  }
  NvrtcResult R = compileWithNvrtc(K->Source, kernelFileStem(K->Kernel) + ".cu",
                                   K->NameExprs, NO);
  capture::CubinSymbols S;
  std::string Err;
  if (!R.Ok) {
    Out.WhyNot = "NVRTC could not compile the extracted kernel";
  } else if (!capture::readCubinSymbols(R.Cubin.data(), R.Cubin.size(), S,
                                        Err)) {
    Out.WhyNot = "its CUBIN could not be read (" + Err + ")";
  } else {
    for (const auto &LN : R.LoweredNames) {
      auto It = S.Registers.find(LN.second);
      if (It != S.Registers.end())
        Out.Count = std::max(Out.Count.value_or(0), It->second);
    }
    if (!Out.Count)
      Out.WhyNot = "its CUBIN has no register count for it";
  }
  std::lock_guard<std::mutex> L(Mu);
  Cache[Key] = Out;
  return Out;
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
           "all, given to warps in units of 256. The rule compiles the kernel "
           "(extracted with its context, NVRTC, the --cuda-gpu-arch target) "
           "and reports it when its register count exceeds what its largest "
           "constant block allows: those launches fail. "
           "__launch_bounds__(N) makes the compiler fit the kernel. A kernel "
           "that already fits is not reported: the bound would only move the "
           "compiler's heuristics. When the register count cannot be "
           "measured, the bound is suggested from the block size alone, with "
           "a note. The fix is applied only when every launch of the kernel "
           "is visible in the file.";
  I.ExactnessNote =
      "bitwise; applied only when every launch is visible, otherwise "
      "reported without a fix";
  I.Doc.Detects =
      "A kernel without `__launch_bounds__` whose every launch site uses a "
      "constant block size (literal, constant, `dim3` never changed) of "
      "more than 256 and less than 1024 threads, and whose register count "
      "exceeds what a block of that size can have. The register count is "
      "measured: the kernel is extracted with its context (as "
      "`--extract` does) and compiled with NVRTC for the `--cuda-gpu-arch` "
      "target (default sm_90); the count is what `ptxas -v` prints as "
      "\"Used N registers\" (the largest over a template's "
      "instantiations). A block of N threads has ceil(N/32) warps, and "
      "registers are given to warps in units of 256, 65536 per block: 128 "
      "per thread for 512 threads, 96 for 640, 80 for 768.\n"
      "\n"
      "Not reported:\n"
      "- a kernel that fits: every launch already runs, and the bound would "
      "only move ptxas's heuristics (on HeCBench, 10 of 17 such bounds "
      "changed the machine code, in either direction of register use), "
      "which nothing here can show to help; measure such a change with "
      "`--verify=run`;\n"
      "- blocks of at most 256 threads: `__launch_bounds__(N)` then allows "
      "255 registers per thread, what a thread can have anyway;\n"
      "- blocks of 1024 threads, which the compiler assumes already.\n"
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
  for (const CUDAKernelCallExpr *L : Launches) {
    const CallExpr *Cfg = L->getConfig();
    if (!Cfg || Cfg->getNumArgs() < 2)
      return;
    auto V = evalDim(C, Cfg->getArg(1));
    if (!V || *V == 0 || *V > 1024)
      return;
    Max = std::max(Max, *V);
  }
  // The register budget the bound gives a thread: it can change the code
  // only when it is below what a thread may use anyway (255).
  if (Max == 0 || Max == 1024)
    return;
  unsigned Budget = registerBudget(Max);
  if (Budget >= 255)
    return;
  // What the kernel needs, compiled: within the budget, every launch already
  // runs and the bound would only move the compiler's heuristics, which
  // nothing here can show to help (measure it with --verify=run).
  CompiledRegisters Regs = compiledRegisters(C, context(), FD);
  if (Regs.Count && *Regs.Count <= Budget)
    return;
  std::string Why;
  bool Proven = allLaunchesVisible(C, context(), FD, Why);
  std::string N = std::to_string(Max), B = std::to_string(Budget);
  std::string Arch = context().Options
                         ? context().Options->get("cuda-l1", "GpuArch", "sm_90")
                         : "sm_90";
  std::string Msg =
      Regs.Count
          ? "compiled for " + Arch + ", the kernel needs " +
                std::to_string(*Regs.Count) +
                " registers per thread, but a block of " + N +
                " threads can have at most " + B +
                ": its launches with " + N +
                " threads fail ('too many resources requested for launch'); "
                "'__launch_bounds__(" + N + ")' makes the compiler fit it"
          : "every launch uses a constant block of at most " + N +
                " threads; '__launch_bounds__(" + N +
                ")' keeps the kernel within the " + B +
                " registers per thread such a block has (without it the "
                "compiler may use up to 255, and the launch fails)";
  Finding F = makeFinding(C, id(), FD->getLocation(), Msg, FD);
  if (!Regs.Count)
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
