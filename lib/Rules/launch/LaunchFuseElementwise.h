//===- LaunchFuseElementwise.h - launch-fuse-elementwise -------*- C++ -*-===//
//
// launch-fuse-elementwise: consecutive launches of element-wise kernels
// (one thread per element, every access at the thread's own index) with
// the same grid and block -> one launch of a kernel that runs each body in
// turn, so the intermediate arrays are read back from cache, not DRAM, and
// the launches' fixed costs are paid once.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHFUSEELEMENTWISE_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHFUSEELEMENTWISE_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchFuseElementwise : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
