//===- LaunchPartialWarp.h - launch-partial-warp ----------------*- C++ -*-===//
//
// A launch whose constant block size is not a multiple of the warp size.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHPARTIALWARP_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHPARTIALWARP_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchPartialWarp : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
