//===- LaunchSmallGrid.cpp - launch-small-grid ----------------------------===//
#include "LaunchSmallGrid.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

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
      "(option `NumSMs`, default 132 for H100/H200 SXM).";
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
  bool Loops = false;
  for (const KernelAnalysis &KA : analysis()->Kernels)
    if (KA.Name == L.Kernel)
      for (const auto &Lp : KA.Loops)
        if (Lp->Trip != TripKind::Constant)
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
