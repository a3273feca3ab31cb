//===- Config.h - .cuda-l1.yaml and NOLINT suppressions ----------*- C++ -*-===//
//
// .cuda-l1.yaml (found from each input file's folder upward, or given with
// --config-file):
//   Rules: 'coalescing-*,memory-*,-memory-const-restrict'
//   WarningsAsErrors: 'coalescing-*'
//   CheckOptions:
//     unrolling-constant-trip-count.MaxTripCount: 16
//     # or clang-tidy's list form: - key: ...   value: ...
//   Harness:                       # harness specs for --verify=run
//     kernels:                     # (docs/harness.md: same format as a
//       saxpy: { grid: ..., ... }  #  --harness file), or a file name:
//   Harness: specs/harness.yaml    # relative to the configuration's folder
//   LLM:                           # model proposals (docs/llm.md)
//     Endpoint: http://localhost:8000/v1
//     Model: qwen2.5-coder-32b
//     ApiKeyEnv: OPENAI_API_KEY    # the variable's name; never the key
// Plain data + LLVM Support only.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_CONFIG_H
#define CUDAL1_ANALYSIS_CONFIG_H

#include "cudal1/Analysis/Rule.h"
#include "cudal1/LLM/Settings.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// The `Harness:` entry of a configuration: harness specs for
/// --verify=run, read by lib/Verify's parseHarnessSpec.
struct ConfigHarness {
  /// Inline spec: the configuration's text with everything but the value of
  /// `Harness:` blanked out (newlines kept), so that a spec parser reports
  /// the configuration's own lines and columns. Empty for the file form.
  std::string SpecText;
  /// File form (`Harness: <file>`): the spec file, made absolute against the
  /// configuration's folder. Empty for the inline form.
  std::string SpecFile;
  unsigned Line = 0, Column = 0; ///< of the value in the configuration
};

struct AnalysisConfig {
  std::optional<std::string> Rules;            ///< glob list
  std::optional<std::string> WarningsAsErrors; ///< glob list
  CheckOptions Options;
  std::optional<ConfigHarness> Harness;
  /// `LLM:` (docs/llm.md); Prompts and Store made absolute against the
  /// configuration's folder.
  std::optional<LlmOverrides> Llm;
  std::string Source; ///< the file it came from ("" = defaults)
};

/// \p Text with every character outside [\p Begin, \p End) replaced by a
/// space, newlines kept: the same lines and columns, only that range left.
std::string blankOutside(llvm::StringRef Text, size_t Begin, size_t End);

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
