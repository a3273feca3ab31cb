//===- YamlRule.h - declarative rewrite rules (rewrite-rules/*.yaml) -*- C++ -*-===//
//
// The plain-data half of the YAML rules: reading a rule file into a
// YamlRuleSpec, with every error located as "file:line:col: error: ...".
// The Clang half (matcher text -> DynTypedMatcher, guards, Transformer edits)
// is in YamlRuleCheck.h. Format: see docs/fixes.md and docs/rules.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_YAMLRULE_H
#define CUDAL1_RULES_YAMLRULE_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// A 1-based position in a rule file.
struct TextPos {
  unsigned Line = 0, Column = 0;
};

/// One problem found while loading a rule file.
struct RuleFileDiag {
  std::string File;
  TextPos Pos;
  std::string Kind = "error"; ///< "error", "warning" or "note"
  std::string Message;
  /// "file:line:col: error: message" (":line:col" left out when unknown).
  std::string str() const;
};

/// A guard from `requires:`: name and (bound-node) arguments.
struct RuleGuard {
  std::string Name;              ///< "pure", "device-code", ...
  std::vector<std::string> Args; ///< bound node names
  TextPos Pos;
};

/// A piece of a `with:` template: literal text or ${node}.
struct TemplatePiece {
  bool IsNode = false;
  std::string Text; ///< the text, or the node name
};

/// How a scalar was written, to map positions inside its value back to the
/// file (matcher parse errors).
struct ScalarPlacement {
  TextPos Start;         ///< first character of the value
  bool Block = false;    ///< `|` / `>` block scalar
  unsigned Indent = 0;   ///< block scalars: columns of indentation
};

/// The optional `doc:` mapping of a rule file: the sections of its page in
/// docs/rules (RuleDoc).
struct YamlRuleDoc {
  std::string Detects, WhySlow, Example, Fixed, Fix;
};

struct YamlRuleSpec {
  std::string File; ///< path as given
  std::string Id, Category, Message, Description;
  std::string Match;
  ScalarPlacement MatchAt;
  std::string Replace; ///< bound node whose range is replaced
  TextPos ReplaceAt;
  std::string With;
  TextPos WithAt;
  std::vector<TemplatePiece> Template; ///< With, parsed
  std::vector<RuleGuard> Requires;
  std::string Exactness = "bitwise";
  unsigned Ulp = 0;
  double Rtol = 0, Atol = 0;
  /// Errors allowed relative to the output buffer's largest |value|
  /// (FixIt::ScaleRtol): for rewrites whose per-term error ends up in sums
  /// that can cancel.
  double ScaleRtol = 0;
  TextPos RuleAt; ///< position of the `rule:` key
  YamlRuleDoc Doc;

  /// File position of (Line, Column) inside the matcher text (1-based).
  TextPos matchPos(unsigned Line, unsigned Column) const;
};

/// The guards `requires:` accepts, with the number of node arguments each
/// takes.
struct GuardSpec {
  const char *Name;
  unsigned Args;
  const char *Help;
};
const std::vector<GuardSpec> &knownGuards();

/// Rule categories (the first word of a rule id).
bool isKnownCategory(llvm::StringRef C);

/// Reads one rule file. Returns the rule, or std::nullopt with at least one
/// error in \p Diags. \p Contents is the file's text.
std::optional<YamlRuleSpec> parseYamlRule(llvm::StringRef Path,
                                          llvm::StringRef Contents,
                                          std::vector<RuleFileDiag> &Diags);

/// Parses a `with:` template ("(${x}) * (${x})"; "$$" is a literal '$').
/// On error returns false and sets \p Error and the 0-based \p ErrorOffset.
bool parseRuleTemplate(llvm::StringRef With, std::vector<TemplatePiece> &Out,
                       std::string &Error, size_t &ErrorOffset);

/// Every *.yaml / *.yml file under \p Dir (recursively), sorted.
std::vector<std::string> findRuleFiles(llvm::StringRef Dir);

/// The shipped rules folder: $CUDAL1_RULES_DIR, else <exe>/../share/cuda-l1/
/// rewrite-rules, <exe>/../rewrite-rules, else the source tree's (configured
/// by CMake). "" when none exists.
std::string findShippedRulesDir(const char *Argv0 = nullptr,
                                void *MainAddr = nullptr);

} // namespace cudal1

#endif
