//===- Rule.h - the registry of rules (checks and transformations) -*- C++ -*-===//
//
// One table holds every rule the tool knows, like clang-tidy's check
// registry:
//   - C++ checks and transformations: a class deriving from Check, registered
//     with CUDAL1_REGISTER_CHECK(ClassName) in a .cpp file. Put that file in
//     an OBJECT library (or any source list linked straight into the tool) so
//     the linker keeps the static registration object; a plain static archive
//     would drop it.
//   - Rules that are not C++ classes (the YAML rules of rewrite-rules/ and
//     --rule-file) are added at run time: register a RuleLoader with
//     CUDAL1_REGISTER_RULE_LOADER; the driver calls every loader once, before
//     --list-rules or any analysis, and the loader calls CheckRegistry::add
//     for each rule it loads (a factory producing a Check that runs the
//     rule's matchers).
// Rule ids are "<category>-<name>" with category one of coalescing,
// unrolling, algebraic, memory, launch, sync, llm. Rules are selected with
// clang-tidy glob syntax (GlobList).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_RULE_H
#define CUDAL1_ANALYSIS_RULE_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Model/KernelInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CompilerInstance;
} // namespace clang

namespace cudal1 {

/// A rule's documentation: the sections of its page docs/rules/<id>.md
/// (written by utils/gen-rule-docs.py from `--list-rules --format=json`).
/// Markdown; code without fences.
struct RuleDoc {
  std::string Detects; ///< "What it detects"
  std::string WhySlow; ///< "Why it is slow"
  std::string Example; ///< code showing the problem
  std::string Fixed;   ///< the example after the rewrite ("" = not shown)
  std::string Fix;     ///< "The fix": what the rewrite does, or what to do
};

/// What --list-rules, SARIF and docs/rules/ show about a rule.
struct RuleInfo {
  std::string Id;         ///< "algebraic-powf-square"
  std::string Category;   ///< "algebraic"
  std::string Summary;    ///< one line
  /// The exactness of the rule's rewrite; None = finding only.
  cudal1::Exactness Exactness = cudal1::Exactness::None;
  /// Said after the exactness in the docs, e.g. "within 2 ulp", "applied
  /// only when no-aliasing is proven".
  std::string ExactnessNote;
  std::string Origin = "builtin"; ///< "builtin" or the YAML file's path
  std::string Help;       ///< longer text (SARIF fullDescription/help)
  /// Per-rule options and their defaults (documented, --dump-config).
  std::map<std::string, std::string> DefaultOptions;
  RuleDoc Doc;
};

/// The JSON object --list-rules --format=json prints for a rule (without
/// "enabled", which depends on the configuration).
llvm::json::Object toJSON(const RuleInfo &R);

/// clang-tidy's glob list: comma-separated globs, '*' matches any text, a
/// leading '-' removes; the last matching glob decides. Whitespace and
/// newlines around globs are ignored.
class GlobList {
public:
  GlobList() = default;
  explicit GlobList(llvm::StringRef Globs);
  bool contains(llvm::StringRef Id) const;
  bool empty() const { return Items.empty(); }
  /// The globs (as written, without a leading '-') that match none of
  /// \p Ids: a misspelt rule name selects or removes nothing.
  std::vector<std::string>
  unmatched(const std::vector<std::string> &Ids) const;

private:
  struct Item {
    bool Positive;
    std::string Pattern;
  };
  std::vector<Item> Items;
};

/// Per-rule key/value options (CheckOptions in .cuda-l1.yaml):
/// "<rule-id>.<Key>": "<value>".
class CheckOptions {
public:
  std::map<std::string, std::string> Values;

  std::string get(llvm::StringRef Rule, llvm::StringRef Key,
                  llvm::StringRef Default) const;
  int64_t getInt(llvm::StringRef Rule, llvm::StringRef Key,
                 int64_t Default) const;
  bool getBool(llvm::StringRef Rule, llvm::StringRef Key, bool Default) const;
};

class AnalysisResults; // cudal1/Analysis/AccessAnalysis.h
struct SharedRuleFacts; // lib/Rules (cudal1/Rules/RuleSupport.h)

/// Everything a check may use besides the AST.
struct CheckContext {
  /// Kernels and launch sites of this translation unit (block shapes,
  /// arguments at launch sites).
  const ProjectModel *Model = nullptr;
  const CheckOptions *Options = nullptr;
  /// Symbolic index analysis of every kernel of the TU (may be null when a
  /// tool runs rules without it).
  const AnalysisResults *Analysis = nullptr;
  /// The compiler instance of the TU (source manager, language options).
  clang::CompilerInstance *CI = nullptr;
  /// True for files whose findings are reported (user code, not system
  /// headers). Checks should skip code for which it is false.
  std::function<bool(const std::string &AbsPath)> IsUserFile;
  /// Facts about the translation unit that every rule needs (the kernels
  /// and their launches), computed by lib/Rules on first use and shared by
  /// the rules of this translation unit. Drivers leave it empty.
  mutable std::shared_ptr<const SharedRuleFacts> Shared;
};

/// A C++ check or transformation.
class Check {
public:
  virtual ~Check();
  virtual RuleInfo info() const = 0;
  /// Appends findings for the translation unit to \p Out. Locations use
  /// makeSourceLoc (expansion locations); Finding::Offset is the byte offset
  /// of the caret position in its file.
  virtual void run(clang::ASTContext &Ctx, const CheckContext &CC,
                   std::vector<Finding> &Out) = 0;
};

/// Options a rule loader gets from the command line / configuration.
struct RuleLoadOptions {
  std::vector<std::string> RuleFiles; ///< --rule-file (repeatable)
  std::string ShippedRulesDir;        ///< rewrite-rules/ ("" = the default)
  bool LoadShipped = true;
};

/// Loads rules at run time (e.g. YAML); prints its own errors as
/// "file:line:col: error: ..."; returns the number of files that failed.
using RuleLoader = std::function<unsigned(const RuleLoadOptions &)>;

class CheckRegistry {
public:
  using Factory = std::function<std::unique_ptr<Check>()>;

  /// Adds a rule. When the id is already present the second rule is
  /// ignored and the id is reported by duplicates().
  static void add(Factory F);
  static void addLoader(RuleLoader L);
  /// Calls every loader (once; later calls do nothing); returns the total
  /// of their failures.
  static unsigned runLoaders(const RuleLoadOptions &Opts);

  /// Every registered rule, sorted by id.
  static std::vector<RuleInfo> rules();
  /// Instances of the rules whose ids \p Enabled contains.
  static std::vector<std::unique_ptr<Check>> create(const GlobList &Enabled);
  static std::vector<std::string> duplicates();
};

template <typename T> struct CheckRegistration {
  CheckRegistration() {
    CheckRegistry::add([] { return std::unique_ptr<Check>(new T()); });
  }
};
struct RuleLoaderRegistration {
  explicit RuleLoaderRegistration(RuleLoader L) {
    CheckRegistry::addLoader(std::move(L));
  }
};

#define CUDAL1_REGISTER_CHECK(ClassName)                                       \
  static ::cudal1::CheckRegistration<ClassName> ClassName##Registration
#define CUDAL1_REGISTER_RULE_LOADER(Name, Fn)                                  \
  static ::cudal1::RuleLoaderRegistration Name##LoaderRegistration(Fn)

/// The rules enabled when neither --rules nor a config file says otherwise:
/// every rule but those whose findings change no machine code nvcc emits
/// (docs/rules/README.md, "Off by default"). Defined in Config.cpp.
const char *defaultRuleGlobs();

} // namespace cudal1

#endif
