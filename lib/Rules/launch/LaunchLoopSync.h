//===- LaunchLoopSync.h - launch-loop-sync ----------------------*- C++ -*-===//
//
// launch-loop-sync: a device-wide synchronisation inside a host loop that
// launches kernels, which nothing in the loop needs.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_LAUNCHLOOPSYNC_H
#define CUDAL1_LIB_RULES_LAUNCH_LAUNCHLOOPSYNC_H

#include "../RuleCheck.h"

#include <map>
#include <vector>

namespace cudal1 {

class LaunchLoopSync : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void registerMatchers(clang::ast_matchers::MatchFinder &F) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R) override;
  void checkTranslationUnit() override;

private:
  /// The synchronisations found, by innermost enclosing loop (in order).
  std::vector<const clang::Stmt *> Loops;
  std::map<const clang::Stmt *, std::vector<const clang::CallExpr *>> Syncs;
  bool SharedScanned = false;
  std::string SharedFound; ///< the TU's first host/GPU shared memory
  void runOnLoop(const clang::Stmt *Loop,
                 const std::vector<const clang::CallExpr *> &Calls);
};

} // namespace cudal1

#endif
