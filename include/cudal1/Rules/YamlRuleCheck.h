//===- YamlRuleCheck.h - YAML rules as checks (Clang side) ------*- C++ -*-===//
//
// A YamlRuleSpec becomes a Check: its matcher text is parsed with clang's
// dynamic matcher parser (clang-query syntax), its `replace`/`with` template
// becomes a clang::transformer::RewriteRule (changeTo(node(replace),
// cat(text, node(x), ...))), its `requires` guards are checked on the bound
// nodes of every match.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_YAMLRULECHECK_H
#define CUDAL1_RULES_YAMLRULECHECK_H

#include "cudal1/Analysis/Rule.h"
#include "cudal1/Rules/YamlRule.h"
#include <memory>
#include <vector>

namespace cudal1 {

struct CompiledYamlRule;

/// Parses the matcher and template of \p Spec; on failure appends located
/// errors to \p Diags and returns null.
std::shared_ptr<const CompiledYamlRule>
compileYamlRule(const YamlRuleSpec &Spec, std::vector<RuleFileDiag> &Diags);

/// A check running one compiled YAML rule.
std::unique_ptr<Check>
makeYamlRuleCheck(std::shared_ptr<const CompiledYamlRule> Rule);

/// Reads, parses and compiles one rule file (errors appended to \p Diags).
std::shared_ptr<const CompiledYamlRule>
loadYamlRuleFile(llvm::StringRef Path, std::vector<RuleFileDiag> &Diags);

/// The loader registered with CheckRegistry: the shipped rules (unless
/// Opts.LoadShipped is false) and every --rule-file. Errors go to stderr as
/// "file:line:col: error: ..."; returns the number of files that failed.
unsigned loadYamlRules(const RuleLoadOptions &Opts);

/// Info of a compiled rule (for --list-rules and docs).
RuleInfo yamlRuleInfo(const CompiledYamlRule &R);

} // namespace cudal1

#endif
