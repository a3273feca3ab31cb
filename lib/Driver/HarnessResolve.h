//===- HarnessResolve.h - the harness of a kernel for --verify=run -*- C++ -*-===//
//
// Private to lib/Driver.
//
// Where a kernel's harness comes from (docs/harness.md), in this order:
// --harness=<file> (when it has an entry for the kernel), the `Harness:`
// entry of the .cuda-l1.yaml that applies to the kernel's file (or
// --config-file), a launch site whose values are constants or --define'd.
// Used by `--verify=run --candidate` (Candidates.cpp) and by `--fix
// --verify=run` (FixVerify.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H
#define CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H

#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Verify/Harness.h"

#include <string>
#include <vector>

namespace cudal1 {

enum class HarnessStatus {
  Found,   ///< Out/Source set
  Missing, ///< nothing applies: Message says why, Template is a spec to copy
  Error    ///< a spec or configuration is wrong: Message is the error
};

struct HarnessQuery {
  std::string SourceFile; ///< the kernel's file (finds .cuda-l1.yaml)
  std::string Kernel;     ///< qualified name
  std::vector<ParamInfo> Params;
  ExprEnv Env; ///< --define
  std::vector<LaunchSite> Launches; ///< launch sites of this kernel
  std::string CommandLineSpec;      ///< --harness ("" = none)
};

struct HarnessAnswer {
  HarnessStatus Status = HarnessStatus::Missing;
  Harness H;
  std::string Source; ///< "h.yaml", "Harness: in <config>:<line>", ...
  std::string Message;
  std::string Template;
};

/// What a launch site tells inferHarness: its grid, block, shared memory and
/// argument texts, and its file's text (for the allocations).
LaunchFacts launchFacts(const LaunchSite &LS);

/// --harness (if it has an entry for the kernel), then the configuration,
/// then a launch site.
HarnessAnswer resolveHarness(const HarnessQuery &Q, ConfigStore &Configs);

/// The configuration step alone (for --verify=run --candidate, whose
/// --harness and launch-site steps live in Verify.cpp): Found, Missing (no
/// configuration, no `Harness:`, or no entry for the kernel) or Error.
HarnessAnswer harnessFromConfig(const HarnessQuery &Q, ConfigStore &Configs);

/// Parses the --define values; false (error reported) on a bad one.
bool parseDefines(const std::vector<std::string> &Defines, ExprEnv &Env);

} // namespace cudal1

#endif // CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H
