//===- LaunchSmallBlock.h - launch-small-block ------------------*- C++ -*-===//
//
// Blocks so small that the per-SM limit of resident blocks caps occupancy.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHSMALLBLOCK_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHSMALLBLOCK_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchSmallBlock : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
