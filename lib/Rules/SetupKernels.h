//===- SetupKernels.h - kernels a program runs once beside a loop -*- C++ -*-===//
//
// A program that launches one kernel in a loop (its time step, its timed
// repetitions) and others once, before or after it, spends its time in the
// loop. A finding about a kernel launched once is noise next to it: the few
// instructions or the uncoalesced access it saves are paid once, while the
// loop's kernel pays its own every iteration (HeCBench's d3q19-bgk builds
// its wall flags once; bh initialises its tree once).
//
// RuleCheck::report drops such findings unless the option
// IncludeSetupKernels is true (docs/advise.md, "Setup kernels").
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_SETUPKERNELS_H
#define CUDAL1_RULES_SETUPKERNELS_H

namespace clang {
class ASTContext;
} // namespace clang

namespace cudal1 {

struct CheckContext;
struct Finding;

/// Is \p F about code that runs only in setup kernels: inside a kernel (or
/// a device function that only such kernels call), or at a launch of one,
/// where a setup kernel is a kernel of this translation unit
///  - every launch of which is visible here (allLaunchesVisible),
///  - none of them inside a loop, nor in a function that is called inside a
///    loop (followed through callers up to 4 levels; a function whose
///    callers are not all visible, a lambda, a virtual function count as
///    called in a loop; `main` is called once),
///  - whose loop nest (grid-stride loops not counted; one level more for a
///    <<<1, 1>>> kernel with a loop) is shallower than that of a kernel
///    launched in a loop that repeats work, plus the number of such loops
///    around its launch (docs/advise.md, "Setup kernels")?
bool inSetupKernel(clang::ASTContext &Ctx, const CheckContext &CC,
                   const Finding &F);

/// inSetupKernel, unless the option IncludeSetupKernels is true for
/// F.RuleId (`<rule>.IncludeSetupKernels`, else `*.IncludeSetupKernels`).
bool skipAsSetup(clang::ASTContext &Ctx, const CheckContext &CC,
                 const Finding &F);

} // namespace cudal1

#endif
