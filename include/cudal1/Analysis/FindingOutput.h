//===- FindingOutput.h - findings as JSON and SARIF 2.1.0 --------*- C++ -*-===//
#ifndef CUDAL1_ANALYSIS_FINDINGOUTPUT_H
#define CUDAL1_ANALYSIS_FINDINGOUTPUT_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "llvm/Support/JSON.h"
#include <vector>

namespace cudal1 {

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
