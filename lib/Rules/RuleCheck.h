//===- RuleCheck.h - the base class of every C++ rule -----------*- C++ -*-===//
//
// A C++ rule is one class deriving from RuleCheck, in
// lib/Rules/<category>/<RuleName>.{h,cpp} (RuleName: the CamelCase of the
// rule id), registered in lib/Rules/<category>/<Category>Module.cpp
// (utils/add-rule.py writes the skeleton). Like a clang-tidy check it
// overrides whichever entry points it needs; run() calls them in this order
// for each translation unit:
//
//   registerMatchers(Finder) + check(Result)   AST matchers (clang-query
//                                              syntax), one callback per
//                                              match
//   checkKernel(Kernel)                        every kernel defined in user
//                                              code (not a template
//                                              instantiation), with the facts
//                                              of its body and its access
//                                              analysis
//   checkTranslationUnit()                   rules that group matches, read
//                                              the whole access analysis or
//                                              the launch sites
//
// Rules append findings with report(). The base decides what a finding
// carries: a fix only when it is proven (FixIt::Proven); a fix that is not
// proven is dropped and the finding says why (Finding::WhyNoFix), so that
// one rule reports one problem once, with or without a fix. The base also
// supplies the rule's options (CheckOptions "<rule-id>.<Key>"), the
// user-code predicate (cudal1/Frontend/UserCode.h) and one report per
// location.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_RULECHECK_H
#define CUDAL1_LIB_RULES_RULECHECK_H

#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Frontend/UserCode.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <deque>
#include <memory>
#include <set>
#include <string>

namespace cudal1 {

/// One kernel handed to RuleCheck::checkKernel.
struct KernelUnit {
  const clang::FunctionDecl *FD = nullptr; ///< the definition
  const FunctionFacts &Facts;              ///< its body's facts
  /// Its symbolic access analysis (null for templates, or when the driver
  /// ran none).
  const KernelAnalysis *Analysis = nullptr;
  /// The written pattern of a kernel template (dependent code): rules that
  /// rewrite it work on the template's own text.
  bool IsTemplate = false;
  /// For rules that check templates through their instantiations
  /// (RuleCheck::checksInstantiations): FD is one instantiation, checked on
  /// behalf of this pattern; the edits land in the pattern's text.
  const clang::FunctionDecl *Pattern = nullptr;
};

class RuleCheck : public Check,
                  public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  void run(clang::ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) final;

protected:
  // --- entry points (see the file comment) ---------------------------------
  virtual void registerMatchers(clang::ast_matchers::MatchFinder &Finder);
  virtual void check(const clang::ast_matchers::MatchFinder::MatchResult &R) {}
  virtual void checkKernel(const KernelUnit &Kernel);
  virtual void checkTranslationUnit() {}
  /// True for rules that check a kernel template through each of its
  /// instantiations in the translation unit (concrete types, launch facts,
  /// access analysis), instead of its dependent pattern: checkKernel runs
  /// once per instantiation (KernelUnit::Pattern set), and a finding is
  /// reported once, with its fix only when every instantiation gives the
  /// same edits (the edits are in the template's text, shared by all).
  virtual bool checksInstantiations() const { return false; }

  // --- context -------------------------------------------------------------
  clang::ASTContext &ctx() const { return *Ctx; }
  const clang::SourceManager &sourceManager() const {
    return Ctx->getSourceManager();
  }
  const CheckContext &context() const { return *CC; }
  /// The access analysis of the translation unit (may be null).
  const AnalysisResults *analysis() const { return CC->Analysis; }
  /// The analyses of kernels in user code (template instantiations
  /// included), in the order of the translation unit.
  std::vector<const KernelAnalysis *> analyzedKernels() const;
  std::string id() const { return info().Id; }
  /// The function whose body holds \p S.
  const clang::FunctionDecl *functionOf(const clang::Stmt &S) const;

  /// The rule's option \p Key (CheckOptions "<rule-id>.<Key>").
  int64_t optionInt(llvm::StringRef Key, int64_t Default) const;
  bool optionBool(llvm::StringRef Key, bool Default) const;

  /// Is \p L in user code (cudal1/Frontend/UserCode.h)?
  bool isUserCode(clang::SourceLocation L) const;
  /// Is the file of \p L (a location of the kernel model) user code?
  bool isUserFile(const SourceLoc &L) const {
    return !CC->IsUserFile || CC->IsUserFile(L.File);
  }
  /// isUserCode, and no finding of this rule was reported at \p L's
  /// expansion location yet, nor asked about (one report per place).
  bool firstInUserCode(clang::SourceLocation L);

  // --- findings ------------------------------------------------------------
  /// A finding of this rule at \p L (its expansion location), highlighting
  /// \p Range when it is on the same line, in \p Fn's kernel when \p Fn is
  /// a kernel.
  Finding finding(clang::SourceLocation L, const std::string &Message,
                  const clang::FunctionDecl *Fn = nullptr,
                  clang::SourceRange Range = {}) const;
  /// A finding at a launch site of the kernel model.
  Finding finding(const LaunchSite &L, const std::string &Message) const;
  /// Adds a note at \p L to \p F.
  void note(Finding &F, clang::SourceLocation L,
            const std::string &Message) const;
  /// Reports \p F (see the file comment for what happens to its fix).
  void report(Finding F);
  /// Reports \p F with the fix \p X when \p Ok, else without a fix and
  /// \p Why as the reason.
  void reportFixOr(Finding F, bool Ok, FixIt X, const std::string &Why);
  /// Reports \p F without a fix: \p Why says why there is none.
  void reportWithoutFix(Finding F, const std::string &Why);
  /// Reports \p F when the current entry point returns: for rules that
  /// state the problem first and then try to prove their rewrite, leaving
  /// at each refusal. The reference stays valid until then.
  Finding &reportLater(Finding F);
  /// Drops the fix of \p F and says why there is none.
  static void refuse(Finding &F, const std::string &Why);

private:
  void run(const clang::ast_matchers::MatchFinder::MatchResult &R) final {
    check(R);
    flushPending();
  }
  /// MatchFinder's own end-of-TU hook: unused (it runs before checkKernel);
  /// rules override checkTranslationUnit.
  void onEndOfTranslationUnit() final {}

  clang::ASTContext *Ctx = nullptr;
  const CheckContext *CC = nullptr;
  std::vector<Finding> *Out = nullptr;
  std::unique_ptr<UserCodeFilter> UserCode;
  std::set<std::pair<std::string, unsigned>> Reported;
  std::deque<Finding> Pending;
  void flushPending();
  /// checksInstantiations(): checkKernel on each instantiation of the
  /// template whose pattern is \p Pattern, findings merged.
  void checkInstantiations(const clang::FunctionDecl *Pattern);
  /// Set by the default registerMatchers / checkKernel: the rule does not
  /// use that entry point (saves an AST traversal).
  bool NoMatchers = false, NoKernels = false;
};

/// Adds each rule class to the registry: the body of a category module,
/// `static RuleModule<MemoryConstPointer, MemoryRestrict, ...> Module;`.
template <typename... Rules> struct RuleModule {
  RuleModule() {
    (CheckRegistry::add([] { return std::unique_ptr<Check>(new Rules()); }),
     ...);
  }
};

} // namespace cudal1

#endif
