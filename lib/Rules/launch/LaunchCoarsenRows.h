//===- LaunchCoarsenRows.h - launch-coarsen-rows ----------------*- C++ -*-===//
//
// 2-D kernels of one element per thread that wait on several global loads:
// each thread does the work of R threads along y (a block R times shorter).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHCOARSENROWS_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHCOARSENROWS_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchCoarsenRows : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
