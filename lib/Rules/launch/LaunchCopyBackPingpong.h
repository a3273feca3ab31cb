//===- LaunchCopyBackPingpong.h - launch-copy-back-pingpong ----*- C++ -*-===//
//
// launch-copy-back-pingpong: a time-step loop that launches a step kernel
// (reads A, writes B) and then a kernel that copies B back into A over the
// same elements -> the steps alternate between A and a copy of it, and the
// copy kernel runs once at the end.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHCOPYBACKPINGPONG_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHCOPYBACKPINGPONG_H

#include "../RuleCheck.h"

namespace cudal1 {

class LaunchCopyBackPingpong : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;

private:
  /// The variant with `cudaMemcpy(A, B, bytes, cudaMemcpyDeviceToDevice)`
  /// in place of the copy kernel.
  void checkMemcpyLoops();
};

} // namespace cudal1

#endif
