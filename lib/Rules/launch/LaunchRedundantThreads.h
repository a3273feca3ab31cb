//===- LaunchRedundantThreads.h - launch-redundant-threads ------*- C++ -*-===//
//
// launch-redundant-threads: a launch gives a block (or grid) dimension an
// extent > 1 whose index the kernel never reads: several threads per element
// compute and store the same values.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHREDUNDANTTHREADS_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHREDUNDANTTHREADS_H

#include "../RuleCheck.h"
#include "cudal1/Rules/BuiltinUse.h"

namespace clang {
class CUDAKernelCallExpr;
}

namespace cudal1 {

class LaunchRedundantThreads : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;

private:
  void checkLaunch(const clang::CUDAKernelCallExpr *Site,
                   const LaunchSite *Model);
  std::map<const clang::FunctionDecl *, BuiltinUse> Uses;
};

} // namespace cudal1

#endif
