//===- LaunchSingleThreadReduction.h - launch-single-thread-reduction -*- C++ -*-===//
//
// launch-single-thread-reduction: a kernel launched with one thread
// (`<<<1, 1>>>`) whose work is a reduction loop (a norm, the final sum of
// partial sums) -> a block of 256 threads strides the loop, the partial
// values are combined in shared memory in a fixed tree order, and thread 0
// runs what follows the loop.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHSINGLETHREADREDUCTION_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHSINGLETHREADREDUCTION_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchSingleThreadReduction : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
