//===- RuleSupport.h - helpers shared by rewrite rules ---------*- C++ -*-===//
//
// What every transformation needs: turning a source range into a TextEdit
// (refusing macro text that is not safe to change), findings located the
// way the analysis reports them, the enclosing function / loop, CUDA
// host/device classification, and simple value facts (non-negative, pure).
// Any check that produces fixes may use makeTextEdit: it also records the
// parsed contents of the edited file, which lets applyFixes refuse to
// overwrite a file that changed after it was parsed.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_RULESUPPORT_H
#define CUDAL1_RULES_RULESUPPORT_H

#include "cudal1/Analysis/Finding.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTTypeTraits.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace clang {
class Preprocessor;
class FunctionDecl;
class Stmt;
class Expr;
} // namespace clang

namespace cudal1 {

/// A file range for an edit of \p R, or std::nullopt with \p Why set when
/// the text cannot be changed safely: it comes from a macro body, spans
/// several files/expansions, or lies in a macro argument the macro uses
/// more than once (or stringifies / pastes).
std::optional<clang::CharSourceRange>
editableRange(const clang::ASTContext &Ctx, clang::CharSourceRange R,
              std::string &Why);

/// A TextEdit replacing \p R (a file range from editableRange) with \p Text.
/// Records the parsed file contents (see parsedFileHash).
TextEdit makeTextEdit(const clang::ASTContext &Ctx, clang::CharSourceRange R,
                      llvm::StringRef Text);
/// An insertion at \p L (a file location).
TextEdit makeInsertion(const clang::ASTContext &Ctx, clang::SourceLocation L,
                       llvm::StringRef Text);

/// Source text of a node's range (macro arguments mapped to their spelling);
/// "" when it cannot be mapped to one file range.
std::string sourceText(const clang::ASTContext &Ctx, clang::SourceRange R);

/// A finding of rule \p RuleId at \p L (expansion location), with the
/// enclosing kernel's name when \p InFunction is a kernel or called by one.
Finding makeFinding(const clang::ASTContext &Ctx, llvm::StringRef RuleId,
                    clang::SourceLocation L, llvm::StringRef Message,
                    const clang::FunctionDecl *InFunction = nullptr);
FindingNote makeNote(const clang::ASTContext &Ctx, clang::SourceLocation L,
                     llvm::StringRef Message);

/// The function whose body holds \p N (lambdas: the lambda's operator()).
const clang::FunctionDecl *enclosingFunction(clang::ASTContext &Ctx,
                                             const clang::DynTypedNode &N);
/// The innermost loop (for/while/do/range-for) whose body holds \p S, inside
/// its function; null when none.
const clang::Stmt *enclosingLoop(clang::ASTContext &Ctx, const clang::Stmt &S);

/// __global__ or __device__ (incl. __host__ __device__).
bool isDeviceCode(const clang::FunctionDecl *FD);
/// Host code: neither __global__ nor __device__-only.
bool isHostCode(const clang::FunctionDecl *FD);
/// In a template instantiation (matches are taken from the written pattern).
bool isInInstantiation(const clang::FunctionDecl *FD);

/// Provably >= 0: unsigned types, non-negative constants, CUDA built-in
/// index variables, and +,*,/,%,>>,& of such values whose bound stays
/// below 2^31; locals initialised from such values and never modified.
bool isProvablyNonNegative(clang::ASTContext &Ctx, const clang::Expr *E);
/// No side effects (also no possible ones: calls to functions that are not
/// known to be pure).
bool isPure(clang::ASTContext &Ctx, const clang::Expr *E);
/// True when \p L, or anything in \p R, comes from a macro expansion.
bool inMacro(clang::SourceRange R);

/// The preprocessor of the TU being checked (for macro definitions); set by
/// checks at the start of run() (thread-local).
void setRulePreprocessor(const clang::Preprocessor *PP);

/// Remembers the contents \p Path had when it was parsed.
void recordParsedFile(llvm::StringRef Path, llvm::StringRef Contents);
/// Hash (hex) of the recorded contents; "" when never recorded.
std::string parsedFileHash(llvm::StringRef Path);
/// Hash (hex) of \p Contents, as parsedFileHash computes it.
std::string contentHash(llvm::StringRef Contents);

} // namespace cudal1

#endif
