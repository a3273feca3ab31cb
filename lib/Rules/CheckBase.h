//===- CheckBase.h - base of the C++ local transformations -----*- C++ -*-===//
//
// Private to lib/Rules. A matcher-driven check: registerMatchers() +
// check(), with the filters every transformation applies (user code only,
// the template's own text rather than its instantiations) and helpers to
// build fixes.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_CHECKBASE_H
#define CUDAL1_LIB_RULES_CHECKBASE_H

#include "cudal1/Analysis/Rule.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"

#include <set>
#include <string>

namespace cudal1 {

class MatcherCheck : public Check,
                     public clang::ast_matchers::MatchFinder::MatchCallback {
public:
  void run(clang::ASTContext &C, const CheckContext &CCtx,
           std::vector<Finding> &O) override {
    Ctx = &C;
    CC = &CCtx;
    Out = &O;
    Seen.clear();
    if (CC->CI && CC->CI->hasPreprocessor())
      setRulePreprocessor(&CC->CI->getPreprocessor());
    clang::ast_matchers::MatchFinder F;
    registerMatchers(F);
    F.matchAST(C);
    finish();
    setRulePreprocessor(nullptr);
  }

protected:
  virtual void registerMatchers(clang::ast_matchers::MatchFinder &F) = 0;
  virtual void finish() {}

  std::string id() const { return info().Id; }

  /// The rule's option \p Key (CheckOptions "<rule-id>.<Key>").
  int64_t optionInt(llvm::StringRef Key, int64_t Default) const {
    return CC && CC->Options ? CC->Options->getInt(id(), Key, Default)
                             : Default;
  }
  bool optionBool(llvm::StringRef Key, bool Default) const {
    return CC && CC->Options ? CC->Options->getBool(id(), Key, Default)
                             : Default;
  }

  /// True when \p L is in user code (not a system header, a file the
  /// driver reports), and each location is reported once.
  bool wanted(clang::SourceLocation L, bool Dedup = true) {
    const clang::SourceManager &SM = Ctx->getSourceManager();
    if (L.isInvalid())
      return false;
    clang::SourceLocation E = SM.getExpansionLoc(L);
    if (SM.isInSystemHeader(E) || !SM.getFileEntryRefForID(SM.getFileID(E)))
      return false;
    if (CC->IsUserFile) {
      SourceLoc SL = makeSourceLoc(SM, E);
      if (!CC->IsUserFile(SL.File))
        return false;
    }
    if (Dedup) {
      auto Key = E.getRawEncoding();
      if (!Seen.insert(Key).second)
        return false;
    }
    return true;
  }

  /// The enclosing function of a statement, or null when it is in a
  /// template instantiation (rewrites use the template's own text).
  const clang::FunctionDecl *functionOf(const clang::Stmt &S) {
    const clang::FunctionDecl *FD =
        enclosingFunction(*Ctx, clang::DynTypedNode::create(S));
    return FD;
  }

  /// Text of the whitespace that starts the line of \p L, when \p L is the
  /// first non-blank character of its line; std::nullopt otherwise.
  std::optional<std::string> lineIndent(clang::SourceLocation L) {
    const clang::SourceManager &SM = Ctx->getSourceManager();
    if (L.isMacroID())
      return std::nullopt;
    auto [FID, Off] = SM.getDecomposedLoc(L);
    bool Invalid = false;
    llvm::StringRef Buf = SM.getBufferData(FID, &Invalid);
    if (Invalid)
      return std::nullopt;
    size_t Start = Buf.rfind('\n', Off == 0 ? 0 : Off - 1);
    Start = Start == llvm::StringRef::npos ? 0 : Start + 1;
    if (Off < Start)
      Start = Off;
    llvm::StringRef Pre = Buf.slice(Start, Off);
    if (!Pre.trim().empty())
      return std::nullopt;
    return Pre.str();
  }

  /// Adds \p F to the output.
  void emit(Finding F) { Out->push_back(std::move(F)); }

  clang::ASTContext *Ctx = nullptr;
  const CheckContext *CC = nullptr;
  std::vector<Finding> *Out = nullptr;
  std::set<unsigned long long> Seen;
};

} // namespace cudal1

#endif
