//===- Config.h - .cuda-l1.yaml and NOLINT suppressions ----------*- C++ -*-===//
//
// .cuda-l1.yaml (found from each input file's folder upward, or given with
// --config-file):
//   Rules: 'coalescing-*,memory-*,-memory-const-restrict'
//   WarningsAsErrors: 'coalescing-*'
//   CheckOptions:
//     unrolling-constant-trip-count.MaxTripCount: 16
//     # or clang-tidy's list form: - key: ...   value: ...
// Plain data + LLVM Support only.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_CONFIG_H
#define CUDAL1_ANALYSIS_CONFIG_H

#include "cudal1/Analysis/Rule.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

struct AnalysisConfig {
  std::optional<std::string> Rules;            ///< glob list
  std::optional<std::string> WarningsAsErrors; ///< glob list
  CheckOptions Options;
  std::string Source; ///< the file it came from ("" = defaults)
};

/// Parses a configuration; on error returns false and sets \p Error to
/// "<path>:<line>:<col>: error: <problem>".
bool parseConfig(llvm::StringRef Text, llvm::StringRef Path,
                 AnalysisConfig &Out, std::string &Error);

/// The nearest ".cuda-l1.yaml" in \p Dir or a parent folder ("" if none).
std::string findConfigFile(llvm::StringRef Dir);

/// The effective configuration as YAML (every rule's options with their
/// defaults, overridden by \p C).
std::string dumpConfig(const AnalysisConfig &C,
                       const std::vector<RuleInfo> &Rules);

/// clang-tidy's suppression comments in \p FileText: "NOLINT" or
/// "NOLINT(globs)" on \p Line, "NOLINTNEXTLINE[(globs)]" on the line
/// before, or \p Line inside "NOLINTBEGIN[(globs)]" ... "NOLINTEND[(globs)]".
/// Lines are 1-based.
bool isSuppressed(llvm::StringRef FileText, unsigned Line,
                  llvm::StringRef RuleId);

} // namespace cudal1

#endif
