//===- FindingOutput.h - findings as JSON and SARIF 2.1.0 --------*- C++ -*-===//
#ifndef CUDAL1_ANALYSIS_FINDINGOUTPUT_H
#define CUDAL1_ANALYSIS_FINDINGOUTPUT_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace cudal1 {

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

llvm::json::Value findingToJson(const Finding &F);
/// {"version": 1, "findings": [...]}
llvm::json::Value findingsJson(const std::vector<Finding> &Findings);
/// A SARIF 2.1.0 log with one run; \p Rules gives the rule metadata (only
/// the rules that have results, plus every enabled rule when
/// \p AllRules is true).
llvm::json::Value findingsSarif(const std::vector<Finding> &Findings,
                                const std::vector<RuleInfo> &Rules,
                                const std::string &ToolVersion);

} // namespace cudal1

#endif
