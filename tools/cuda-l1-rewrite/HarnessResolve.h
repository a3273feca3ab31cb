//===- HarnessResolve.h - the harness of a kernel for --verify=run -*- C++ -*-===//
//
// Where a kernel's harness comes from (docs/harness.md), in this order:
// --harness=<file> (when it has an entry for the kernel), the `Harness:`
// entry of the .cuda-l1.yaml that applies to the kernel's file (or
// --config-file), a launch site whose values are constants or --define'd.
// Used by `--verify=run --candidate` (Verify.cpp: the configuration step) and
// by `--fix --verify=run` (FixVerify.cpp: all of it).
//
// This file sees the configuration (cudal1/Analysis) and the harness
// (cudal1/Verify/Harness.h) but not cudal1/Verify/Verdict.h: both stages
// name an enum Exactness.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_REWRITE_HARNESSRESOLVE_H
#define CUDAL1_TOOLS_REWRITE_HARNESSRESOLVE_H

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
HarnessAnswer resolveHarness(const HarnessQuery &Q);

/// The configuration step alone (for --verify=run --candidate, whose
/// --harness and launch-site steps live in Verify.cpp): Found, Missing (no
/// configuration, no `Harness:`, or no entry for the kernel) or Error.
HarnessAnswer harnessFromConfig(const HarnessQuery &Q);

/// The value of an option another mode's file defines (e.g. "harness",
/// "min-speedup"), read through LLVM's option registry; \p Default when it is
/// not registered.
std::string registeredString(const std::string &Name,
                             const std::string &Default = "");
double registeredDouble(const std::string &Name, double Default);
unsigned registeredUnsigned(const std::string &Name, unsigned Default);
bool registeredFlag(const std::string &Name);
std::vector<std::string> registeredList(const std::string &Name);

} // namespace cudal1

#endif
