//===- LaunchPartialWarp.cpp - launch-partial-warp ------------------------===//
#include "LaunchPartialWarp.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

RuleInfo LaunchPartialWarp::info() const {
  RuleInfo I;
  I.Id = "launch-partial-warp";
  I.Category = "launch";
  I.Summary = "block size that is not a multiple of the warp size (32)";
  I.Help = "Threads are scheduled in warps of 32. A block of 100 threads "
           "occupies 4 warps, the last with only 4 active lanes: 28 of 128 "
           "lanes (22%) do nothing but still take issue slots and "
           "registers.";
  I.Doc.Detects =
      "A launch whose constant block size is not a multiple of 32 and is "
      "more than one warp, with a grid of more than one block (smaller "
      "blocks are launch-small-block's; a single block is setup work), "
      "whose idle lanes are at least MinWastePercent (default 10) of the "
      "lanes its warps hold: a block of 400 threads (marchingCubes' "
      "tiles) idles 16 of 416 lanes, 3.8%, and a multiple of 32 could "
      "gain at most that; 100 threads idle 28 of 128, 22%.";
  I.Doc.WhySlow =
      "Threads run in warps of 32; the last warp of every block is partly "
      "empty and its idle lanes still occupy issue slots and registers.";
  I.Doc.Example = R"cuda(kernel<<<blocks, 100>>>(...);   // warning: 28 of 128 lanes wasted)cuda";
  I.DefaultOptions["MinWastePercent"] = "10";
  I.Doc.Fix =
      "Use a multiple of 32 (128, 256) and guard the tail with an index "
      "check.";
  return I;
}

void LaunchPartialWarp::checkTranslationUnit() {
  if (!context().Model)
    return;
  for (const LaunchSite &L : context().Model->LaunchSites) {
    if (!L.Block.Dim || !isUserFile(L.Loc))
      continue;
    uint64_t T = (*L.Block.Dim)[0] * (*L.Block.Dim)[1] * (*L.Block.Dim)[2];
    if (T == 0 || T % 32 == 0)
      continue;
    // A block smaller than a warp is launch-small-block's (its fix folds
    // blocks into whole warps); a single block is setup work.
    if (T < 32)
      continue;
    if (L.Grid.Dim &&
        (*L.Grid.Dim)[0] * (*L.Grid.Dim)[1] * (*L.Grid.Dim)[2] == 1)
      continue;
    uint64_t Warps = (T + 31) / 32, Lanes = Warps * 32;
    // Idle lanes that are a small share of the block's: the most a
    // multiple of 32 could gain.
    if ((Lanes - T) * 100 < uint64_t(optionInt("MinWastePercent", 10)) * Lanes)
      continue;
    report(finding(
        L, "block of " + std::to_string(T) +
               " threads is not a multiple of the warp size: its last warp "
               "runs " +
               std::to_string(T % 32) + " of 32 lanes, wasting " +
               std::to_string(Lanes - T) + " of " + std::to_string(Lanes) +
               " lanes (" + std::to_string((Lanes - T) * 100 / Lanes) +
               "%); use a multiple of 32 such as " +
               std::to_string(Warps * 32)));
  }
}

} // namespace cudal1
