//===- LaunchSmallGrid.h - launch-small-grid --------------------*- C++ -*-===//
//
// A grid with fewer blocks than the GPU has SMs, for a kernel that loops
// over its data (so more blocks would have work to do).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHSMALLGRID_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHSMALLGRID_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchSmallGrid : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;

private:
  /// Could more blocks help the kernel \p L launches (does it loop over a
  /// variable amount of data)?
  bool kernelLoopsOverData(const LaunchSite &L) const;
  /// A launch in the same function as \p L of another kernel that writes,
  /// through an argument \p L also passes, one value per block (every
  /// write at an address the block's threads share): \p L reduces the
  /// partial results of that launch. nullptr when there is none.
  const LaunchSite *partialsProducer(const LaunchSite &L) const;
};

} // namespace cudal1

#endif
