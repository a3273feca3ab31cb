//===- HostStatements.h - host statements around launches -----*- C++ -*-===//
//
// What the launch-* rules that rewrite host code around launches
// (launch-step-doubling-scan, launch-fuse-elementwise) ask about the
// statements next to a launch, and about the one-thread-per-element index.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_LAUNCH_HOSTSTATEMENTS_H
#define CUDAL1_LIB_RULES_LAUNCH_HOSTSTATEMENTS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <set>
#include <string>

namespace cudal1 {

/// \p T (through typedefs) is int, long or long long, signed or unsigned:
/// an integer type of at least 32 bits.
bool isWideInteger(clang::QualType T);

/// `blockIdx.x * blockDim.x + threadIdx.x` in any operand order, through
/// parentheses and casts.
bool isGlobalXIndex(const clang::Expr *E);
/// The same along \p Dim ('x', 'y' or 'z').
bool isGlobalIndex(const clang::Expr *E, char Dim);

/// The launch's configuration names no dynamic shared memory and no stream
/// other than the default one (its 3rd and 4th arguments absent, 0 or a
/// null pointer).
bool defaultStreamNoSharedMemory(const clang::ASTContext &C,
                                 const clang::CUDAKernelCallExpr *Launch);

/// \p S only checks errors or synchronises: calls of cudaGetLastError,
/// cudaPeekAtLastError, cudaDeviceSynchronize, cudaStreamSynchronize(0),
/// ..., of the program's own functions doing only that (2 levels deep),
/// and, only in the branch of an `if` whose condition tests a cudaError_t,
/// of functions of system headers (fprintf, exit) and stream output; no
/// launch, return, goto, throw, break, continue or static local; it
/// assigns only variables it declares (or the called function's own) and
/// reads none of \p Avoid.
/// \p Allowed, a call in \p S, is not looked at (the statement that checks
/// its result is then an error check of that call).
bool errorCheckOnly(const clang::ASTContext &C, const clang::Stmt *S,
                    const std::set<const clang::VarDecl *> &Avoid,
                    const clang::CallExpr *Allowed = nullptr);

/// The statement of a block that is (or holds, through expressions) \p E,
/// and that block (\p Parent); null when \p E is not in an expression
/// statement of a block.
const clang::Stmt *statementInBlock(clang::ASTContext &C, const clang::Stmt *E,
                                    const clang::CompoundStmt *&Parent);

/// The `for` loop whose body, a block, has launch \p L as one of its
/// statements (the launch is the statement, not part of one); \p S gets
/// that statement and \p Body the block. Null otherwise.
const clang::ForStmt *loopOfLaunch(clang::ASTContext &C,
                                   const clang::CUDAKernelCallExpr *L,
                                   const clang::Stmt *&S,
                                   const clang::CompoundStmt *&Body);

/// Where a fix that replaces loop \p Loop of host function \p Fn edits
/// (the loop's characters) and where it inserts helpers (before the
/// top-level declaration holding \p Fn, in the same file); std::nullopt
/// with \p Why (possibly empty: a macro expansion) otherwise.
std::optional<std::pair<clang::CharSourceRange, clang::SourceLocation>>
loopEdit(clang::ASTContext &C, const clang::Stmt *Loop,
         const clang::FunctionDecl *Fn, std::string &Why);

/// A value a launch may be given without side effects: isPure, or a
/// constructor call (`dim3(a, b)`) whose arguments are.
bool pureLaunchValue(clang::ASTContext &C, const clang::Expr *E);

/// A call device code may make without touching memory other than through
/// its arguments' values or cooperating with other threads: a function of
/// the system headers, not an atomic, shuffle, barrier, vote, fence, clock,
/// printf, assert, trap, texture or surface access, memcpy or memset.
bool plainMathCall(const clang::ASTContext &C, const clang::CallExpr *CE);

/// For the walks that prove a kernel's threads do not interact
/// (launch-small-block's fold, launch-coarsen-rows): why \p S breaks that,
/// "" when it does not. Refused: inline assembly, shared memory (declared
/// or named), a call that is not plain math into code the program does
/// not define, a constructor of the program's own. \p Callee: the
/// definition of a function of the program that \p S calls (with a body,
/// outside system headers), which the walk follows itself; null otherwise.
std::string threadCooperationWhy(const clang::ASTContext &C,
                                 const clang::Stmt *S,
                                 const clang::FunctionDecl *&Callee);

/// The top-level declaration of the translation unit that holds \p D.
const clang::Decl *topLevelDecl(clang::ASTContext &C, const clang::Decl *D);

/// The characters of statement \p S as written in the file (a macro
/// invocation whole), with its ';'; std::nullopt when they are not in one
/// file.
std::optional<clang::CharSourceRange>
statementRange(const clang::ASTContext &C, const clang::Stmt *S);
/// The text of statement \p S as written in the file (statementRange); ""
/// when it cannot be read.
std::string statementText(const clang::ASTContext &C, const clang::Stmt *S);
/// \p R (a character range) widened to its whole lines, end of line
/// included, when nothing but blanks shares them: what removing a statement
/// alone on its line removes.
clang::CharSourceRange wholeLines(const clang::ASTContext &C,
                                  clang::CharSourceRange R);

} // namespace cudal1

#endif
