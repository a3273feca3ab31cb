//===- LaunchStepDoublingScan.h - launch-step-doubling-scan ----*- C++ -*-===//
//
// launch-step-doubling-scan: a host loop that computes an inclusive prefix
// sum by step doubling (Hillis-Steele) over global memory, one launch per
// step (`for (offset = 1; offset < n; offset *= 2) { step<<<...>>>(in, out,
// offset, n); swap(in, out); }`) -> a tiled scan in three passes that
// leaves both buffers exactly as the loop leaves them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHSTEPDOUBLINGSCAN_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHSTEPDOUBLINGSCAN_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchStepDoublingScan : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
