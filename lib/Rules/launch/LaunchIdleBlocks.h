//===- LaunchIdleBlocks.h - launch-idle-blocks -----------------*- C++ -*-===//
//
// launch-idle-blocks: a launch in a loop whose kernel's guard depends on the
// loop's variable (`if (i > k && j > k)`, `if (i < n - 1 - t)`) while the
// grid stays the same -> launch only the blocks that hold a thread that
// can pass the guard.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHIDLEBLOCKS_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHIDLEBLOCKS_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchIdleBlocks : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
