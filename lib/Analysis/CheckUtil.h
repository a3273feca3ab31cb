//===- CheckUtil.h - helpers shared by the built-in checks ------*- C++ -*-===//
// Private to lib/Analysis.
#ifndef CUDAL1_LIB_ANALYSIS_CHECKUTIL_H
#define CUDAL1_LIB_ANALYSIS_CHECKUTIL_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include <functional>
#include <map>
#include <string>

namespace cudal1 {

/// The RuleInfo of a built-in check; the category is the id's first word.
RuleInfo rule(llvm::StringRef Id, llvm::StringRef Summary,
              llvm::StringRef Help,
              std::map<std::string, std::string> Opts = {});

/// A finding at \p L (expansion location), in \p Fn's kernel (if any).
Finding makeFinding(clang::ASTContext &Ctx, llvm::StringRef Rule,
                    clang::SourceLocation L, std::string Message,
                    const clang::FunctionDecl *Fn = nullptr,
                    clang::SourceRange Range = {});
void addNote(clang::ASTContext &Ctx, Finding &F, clang::SourceLocation L,
             std::string Message);
/// The source text of \p R on one line ("" if unavailable).
std::string textOf(clang::ASTContext &Ctx, clang::SourceRange R);
/// "1.5x", "32x".
std::string factorText(double F);

/// Calls \p Fn for every statement of every device function and kernel
/// defined in user code (template instantiations included), with the
/// function and the loops enclosing the statement (outermost first).
void forEachDeviceStmt(
    clang::ASTContext &Ctx, const CheckContext &CC,
    const std::function<void(const clang::Stmt *, const clang::FunctionDecl *,
                             llvm::ArrayRef<const clang::Stmt *>)> &Fn);

/// Is \p L in a file the user owns (not a system header)?
bool isUserLoc(clang::ASTContext &Ctx, const CheckContext &CC,
               clang::SourceLocation L);

} // namespace cudal1

#endif
