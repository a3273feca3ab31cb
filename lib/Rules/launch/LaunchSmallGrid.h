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
  /// A launch before \p L in the same function, of another kernel with
  /// more blocks, that writes one value (or row) per block (every write at
  /// an address that depends on blockIdx and not on threadIdx) into a
  /// buffer that \p L passes for a parameter its kernel only reads: \p L
  /// reduces the partial results of that launch. nullptr when there is
  /// none.
  const LaunchSite *partialsProducer(const LaunchSite &L) const;
};

} // namespace cudal1

#endif
