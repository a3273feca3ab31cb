//===- LaunchSmallBlock.cpp - launch-small-block --------------------------===//
#include "LaunchSmallBlock.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo LaunchSmallBlock::info() const {
  RuleInfo I;
  I.Id = "launch-small-block";
  I.Category = "launch";
  I.Summary = "blocks so small that the per-SM block limit caps occupancy";
  I.Help = "An SM holds at most 32 resident blocks (sm_80-sm_90). With "
           "blocks of fewer than 64 threads it cannot reach its 2048 "
           "resident threads: 32-thread blocks cap occupancy at 50%, which "
           "limits latency hiding.";
  I.DefaultOptions["MinThreads"] = "64";
  I.Doc.Detects =
      "A launch with fewer than `MinThreads` (default 64) threads per "
      "block.";
  I.Doc.WhySlow =
      "An SM holds at most 32 resident blocks (sm_80 to sm_90); with "
      "32-thread blocks it holds 1024 of its 2048 threads, so occupancy is "
      "capped at 50% and latency is poorly hidden.";
  I.Doc.Example = R"cuda(kernel<<<n / 32, 32>>>(...);   // warning: occupancy at most 50%)cuda";
  I.Doc.Fix =
      "Use 128 to 256 threads per block.";
  return I;
}

void LaunchSmallBlock::checkTranslationUnit() {
  if (!context().Model)
    return;
  int64_t Min = optionInt("MinThreads", 64);
  for (const LaunchSite &L : context().Model->LaunchSites) {
    if (!L.Block.Dim || !isUserFile(L.Loc))
      continue;
    uint64_t T = (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
    if (T == 0 || (int64_t)T >= Min)
      continue;
    uint64_t Occ = std::min<uint64_t>(100, 32 * T * 100 / 2048);
    report(finding(
        L, "blocks of " + std::to_string(T) +
               " threads: with at most 32 resident blocks per SM, an SM "
               "holds only " +
               std::to_string(32 * T) +
               " of its 2048 threads (occupancy at most " +
               std::to_string(Occ) +
               "%); use at least 64 (better 128-256) "
               "threads per block"));
  }
}

} // namespace cudal1
