//===- FindingOutput.h - findings as JSON and SARIF 2.1.0 --------*- C++ -*-===//
//
// --format=json (docs/findings-json.md: a versioned schema,
// docs/findings.schema.json) and --format=sarif (SARIF 2.1.0, validated
// against the OASIS schema in the tests), and --baseline: the findings of
// an earlier --format=json output, matched by fingerprint, are left out.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_FINDINGOUTPUT_H
#define CUDAL1_ANALYSIS_FINDINGOUTPUT_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "llvm/Support/JSON.h"
#include <set>
#include <string>
#include <vector>

namespace cudal1 {

/// The version of the --format=json document ("version"): raised when a
/// field is removed, renamed or changes meaning; fields may be added within
/// a version (docs/findings-json.md).
constexpr int FindingsJsonVersion = 2;

/// What the outputs need besides the findings.
struct OutputOptions {
  /// Base URL of the rule pages (SARIF helpUri); "" = no links.
  std::string RuleDocsBase;
  /// Paths in fingerprints and SARIF URIs are relative to this folder when
  /// under it ("" = the current folder).
  std::string Root;
};

/// The documentation page of \p RuleId: "<Base><id>.md" (docs/rules/ of
/// this repository, under the base URL given with --rule-docs-url).
std::string ruleDocUrl(llvm::StringRef Base, llvm::StringRef RuleId);
/// The base URL used when --rule-docs-url is not given: a file:// URL of the
/// rule pages next to the executable (<prefix>/share/doc/cuda-l1/rules/, as
/// the portable release lays them out), else of the source tree the tool
/// was built from; "" when neither exists.
std::string defaultRuleDocsBase(const char *Argv0, void *MainAddr);
/// A file:// URI of an absolute path, percent-encoding what RFC 3986 asks.
std::string fileUri(llvm::StringRef Path);

/// A finding's identity across runs, stable when lines move: a hash of the
/// rule, the file (relative to \p Root when under it), the kernel, the
/// message, the text of the finding's line (spaces squeezed) and how many
/// findings before it in \p Findings had the same data. One per finding.
std::vector<std::string> findingFingerprints(const std::vector<Finding> &F,
                                             llvm::StringRef Root = "");

llvm::json::Value findingToJson(const Finding &F,
                                const std::string &Fingerprint);
/// {"version": FindingsJsonVersion, "findings": [...]}
llvm::json::Value findingsJson(const std::vector<Finding> &Findings,
                               llvm::StringRef Root = "");
/// A SARIF 2.1.0 log with one run; \p Rules gives the rule metadata (of the
/// rules that have results).
llvm::json::Value findingsSarif(const std::vector<Finding> &Findings,
                                const std::vector<RuleInfo> &Rules,
                                const std::string &ToolVersion,
                                const OutputOptions &Opts = {});

/// Reads the fingerprints of an earlier --format=json output (--baseline);
/// false with \p Error ("<path>: <problem>") when it is not one.
bool readBaseline(llvm::StringRef Path, std::multiset<std::string> &Out,
                  std::string &Error);
/// Removes the findings found in \p Baseline (each baseline entry matches
/// one finding); returns how many were removed.
unsigned applyBaseline(std::vector<Finding> &Findings,
                       std::multiset<std::string> Baseline,
                       llvm::StringRef Root = "");

} // namespace cudal1

#endif
