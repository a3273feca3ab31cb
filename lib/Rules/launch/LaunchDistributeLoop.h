//===- LaunchDistributeLoop.h - launch-distribute-loop ----------*- C++ -*-===//
//
// launch-distribute-loop: a kernel launched with few threads, each running a
// long loop whose iterations are independent: the iterations are spread over
// the grid's y dimension (a grid-stride loop over blockIdx.y), and the launch
// gets y blocks.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHDISTRIBUTELOOP_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHDISTRIBUTELOOP_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchDistributeLoop : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
