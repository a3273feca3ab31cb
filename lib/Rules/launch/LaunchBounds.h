//===- LaunchBounds.h - launch-bounds ---------------------------*- C++ -*-===//
//
// __launch_bounds__(N) for kernels launched only with constant blocks of at
// most N threads whose compiled register count (NVRTC) exceeds what such a
// block can have.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHBOUNDS_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHBOUNDS_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchBounds : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &K) override;
};

} // namespace cudal1

#endif
