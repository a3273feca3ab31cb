//===- SyncSharedHistogram.h - sync-shared-histogram ------------*- C++ -*-===//
//
// sync-shared-histogram: TODO: one line on the problem this rule finds.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_SYNCSHAREDHISTOGRAM_H
#define CUDAL1_LIB_RULES_SYNC_SYNCSHAREDHISTOGRAM_H

#include "../RuleCheck.h"

namespace cudal1 {

class SyncSharedHistogram : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  // The entry points (lib/Rules/RuleCheck.h): registerMatchers + check for
  // AST matchers, checkKernel per kernel, checkTranslationUnit at the end.
  void checkKernel(const KernelUnit &Kernel) override;
};

} // namespace cudal1

#endif
