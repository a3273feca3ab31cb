//===- RuleSupport.h - what rules need besides the AST facts ----*- C++ -*-===//
//
// The helpers every rule uses (with the AST facts of
// cudal1/Analysis/AstFacts.h, shared with the access analysis):
//   - edits: a source range as a TextEdit, refusing macro text that is not
//     safe to change; the parsed contents of every edited file are recorded,
//     which lets applyFixes refuse to overwrite a file that changed after it
//     was parsed;
//   - findings located the way every rule reports them;
//   - where code is: enclosing function and loop, host or device, template
//     instantiation, every statement of the device code;
//   - value facts: provably non-negative, pure;
//   - kernels and their launches: the kernels of the translation unit,
//     their launch sites, whether every launch is visible, whether two
//     pointer parameters provably point to different allocations, the
//     constant block shape;
//   - writing code: indentation, fresh names, a statement's end, the text
//     of an expression with some sub-expressions replaced.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_RULESUPPORT_H
#define CUDAL1_RULES_RULESUPPORT_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTTypeTraits.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class Preprocessor;
class FunctionDecl;
class ParmVarDecl;
class Stmt;
class Expr;
class CUDAKernelCallExpr;
} // namespace clang

namespace cudal1 {

// --- edits -------------------------------------------------------------------

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

/// True when \p L, or anything in \p R, comes from a macro expansion.
bool inMacro(clang::SourceRange R);

/// The number of references (DeclRefExprs) to \p D in \p S: "used only
/// here" checks of the rules (an accumulator used by one atomic only, a
/// loop-invariant factor named once).
unsigned countReferences(const clang::Stmt *S, const clang::Decl *D);

/// The preprocessor of the TU being checked (for macro definitions); set by
/// RuleCheck (and the YAML rules) for the duration of a run (thread-local).
void setRulePreprocessor(const clang::Preprocessor *PP);

/// Remembers the contents \p Path had when it was parsed.
void recordParsedFile(llvm::StringRef Path, llvm::StringRef Contents);
/// Hash (hex) of the recorded contents; "" when never recorded.
std::string parsedFileHash(llvm::StringRef Path);
/// Hash (hex) of \p Contents, as parsedFileHash computes it.
std::string contentHash(llvm::StringRef Contents);

// --- findings ----------------------------------------------------------------

/// A finding of rule \p RuleId at \p L (expansion location), with the
/// enclosing kernel's name when \p InFunction is a kernel; \p Range is
/// highlighted when it ends on the finding's line.
Finding makeFinding(const clang::ASTContext &Ctx, llvm::StringRef RuleId,
                    clang::SourceLocation L, llvm::StringRef Message,
                    const clang::FunctionDecl *InFunction = nullptr,
                    clang::SourceRange Range = {});
FindingNote makeNote(const clang::ASTContext &Ctx, clang::SourceLocation L,
                     llvm::StringRef Message);
/// "1.5x", "32x".
std::string factorText(double F);

// --- where code is -------------------------------------------------------------

/// The function whose body holds \p N (lambdas: the lambda's operator()).
const clang::FunctionDecl *enclosingFunction(clang::ASTContext &Ctx,
                                             const clang::DynTypedNode &N);
/// The innermost loop (for/while/do/range-for) whose body holds \p S, inside
/// its function; null when none.
const clang::Stmt *enclosingLoop(clang::ASTContext &Ctx, const clang::Stmt &S);
/// The parent of \p E skipping parentheses upward (null when it is not an
/// expression); \p Child is set to the outermost parenthesised form of \p E.
const clang::Expr *parentSkippingParens(clang::ASTContext &Ctx,
                                        const clang::Expr *E,
                                        const clang::Expr **Child = nullptr);
/// The loop carries a #pragma unroll / loop hint.
bool hasLoopHint(clang::ASTContext &Ctx, const clang::Stmt *Loop);

/// __global__ or __device__ (incl. __host__ __device__).
bool isDeviceCode(const clang::FunctionDecl *FD);
/// Host code: neither __global__ nor __device__-only.
bool isHostCode(const clang::FunctionDecl *FD);
/// In a template instantiation (matches are taken from the written pattern).
bool isInInstantiation(const clang::FunctionDecl *FD);

/// Calls \p Fn for every statement of every device function and kernel
/// defined in user code (template instantiations included), with the
/// function and the loops enclosing the statement (outermost first).
void forEachDeviceStmt(
    clang::ASTContext &Ctx, const CheckContext &CC,
    const std::function<void(const clang::Stmt *, const clang::FunctionDecl *,
                             llvm::ArrayRef<const clang::Stmt *>)> &Fn);

// --- values --------------------------------------------------------------------

/// Provably >= 0: unsigned types, non-negative constants, CUDA built-in
/// index variables, and +,*,/,%,>>,& of such values whose bound stays
/// below 2^31; locals initialised from such values and never modified.
bool isProvablyNonNegative(clang::ASTContext &Ctx, const clang::Expr *E);
/// No side effects (also no possible ones: calls to functions that are not
/// known to be pure).
bool isPure(clang::ASTContext &Ctx, const clang::Expr *E);

/// A CUDA math function without side effects, by name: sqrt, exp, sin,
/// pow, fmin, fma, erf, ... (and the float forms, sqrtf, ...), the
/// intrinsics __expf, __fdividef, __frcp_rn, __saturatef, ..., with or
/// without `std::`.
bool isPureMathName(llvm::StringRef Name);

// --- kernels and launches ----------------------------------------------------------

/// The launches of one kernel in the translation unit, outside template
/// instantiations.
struct KernelLaunches {
  std::vector<const clang::CUDAKernelCallExpr *> Sites;
  unsigned Refs = 0; ///< expressions naming the kernel (launches included)
};

/// Computed once per translation unit (CheckContext::Shared).
struct SharedRuleFacts {
  /// Kernel definitions in user code, not template instantiations: plain
  /// kernels and the written pattern of kernel templates.
  std::vector<const clang::FunctionDecl *> Kernels;
  /// By canonical declaration of the kernel.
  std::map<const clang::FunctionDecl *, KernelLaunches> Launches;
  /// A launch whose kernel is not resolved (in a template).
  bool UnresolvedLaunch = false;
  /// Names introduced by the fixes of this run, per function (freshName).
  mutable std::map<const clang::FunctionDecl *, std::set<std::string>>
      GeneratedNames;
};
const SharedRuleFacts &sharedFacts(clang::ASTContext &Ctx,
                                   const CheckContext &CC);

/// The kernels of sharedFacts() that are not templates.
std::vector<const clang::FunctionDecl *> userKernels(clang::ASTContext &Ctx,
                                                     const CheckContext &CC);
/// Launch sites (chevron calls) of \p Kernel in the translation unit.
std::vector<const clang::CUDAKernelCallExpr *>
launchSitesOf(clang::ASTContext &Ctx, const CheckContext &CC,
              const clang::FunctionDecl *Kernel);

/// Every launch of \p Kernel is visible here: all its declarations are in
/// this file (or it has internal linkage), its name is used only in <<<>>>
/// launches, and there is at least one. \p Why says what fails.
bool allLaunchesVisible(clang::ASTContext &Ctx, const CheckContext &CC,
                        const clang::FunctionDecl *Kernel, std::string &Why);

/// True when \p P and \p Q provably point into different objects for the
/// whole kernel: one of them is __restrict__ (and the kernel accesses that
/// object only through it), or at every launch site of the translation unit
/// (at least one) the two arguments are separate allocations (different
/// local variables each set only by cudaMalloc*, followed through host
/// functions' parameters). \p How says which; \p Why says what failed.
bool provenDistinct(clang::ASTContext &Ctx, const CheckContext &CC,
                    const clang::FunctionDecl *K, const clang::ParmVarDecl *P,
                    const clang::ParmVarDecl *Q, std::string &How,
                    std::string &Why);

/// The values of \p AP and \p AQ (pointer arguments written in host
/// function \p Fn) point into different objects: different locals each set
/// only by cudaMalloc, a fresh allocation and a parameter of \p Fn, or two
/// parameters of \p Fn whose arguments are distinct at every call in the
/// file (3 levels). \p Why says what fails.
bool distinctHostArgs(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn,
                      const clang::Expr *AP, const clang::Expr *AQ,
                      std::string &Why);

/// No two pointer arguments alias at any launch of \p Kernel, and every
/// launch is visible (allLaunchesVisible): each launch passes separate
/// allocations (provenDistinct's launch-site proof) for every pair of
/// pointer parameters.
bool pointerArgsDistinct(clang::ASTContext &Ctx, const CheckContext &CC,
                         const clang::FunctionDecl *Kernel, std::string &Why);

/// The pointer parameters of \p FD (not pointers to functions).
std::vector<const clang::ParmVarDecl *>
pointerParams(const clang::FunctionDecl *FD);
/// The written pointer type of \p P (through qualifiers, attributes and
/// parentheses); null when it is not written as a pointer (typedef).
clang::PointerTypeLoc pointerTypeLoc(const clang::ParmVarDecl *P);

/// A launch-configuration argument (`<<<grid, block>>>`) as written: through
/// the implicit int -> dim3 construction, copies, temporaries and functional
/// casts, down to `dim3(a, b)`, `{a, b}`, a variable or an integer.
const clang::Expr *writtenLaunchDim(const clang::Expr *E);
/// The components written in `dim3(a, b, c)`, `dim3 v(a, b)` or `{a, b}`
/// (\p W from writtenLaunchDim; default arguments left out); std::nullopt
/// when \p W is not one.
std::optional<std::vector<const clang::Expr *>>
writtenDimComponents(const clang::Expr *W);

/// The block shape of every launch site of \p K in the model when all are
/// constant (a constant expression, or one value on every path through
/// the launching function: `dim3 b; b.x = 128;` before it) and equal;
/// std::nullopt with \p Why otherwise.
std::optional<std::array<uint64_t, 3>>
constantBlock(const CheckContext &CC, const clang::FunctionDecl *K,
              std::string &Why);

// --- writing code ----------------------------------------------------------------

/// Just past statement \p S, including its ';' when it has one.
clang::SourceLocation stmtEnd(clang::ASTContext &Ctx, const clang::Stmt *S);

/// Just past statement \p S, including its ';' when it has one; a
/// declaration ends at the end of its last token.
clang::SourceLocation afterStmt(clang::ASTContext &Ctx, const clang::Stmt *S);
/// \p Text with \p Extra added after every newline.
std::string reindent(const std::string &Text, const std::string &Extra);
/// The warp-shuffle sum of register \p Var (`for (int cudal1_o = 16; ...)
/// Var += __shfl_down_sync(0xffffffffu, Var, cudal1_o);`), its two lines
/// indented with \p Indent, without a final newline: lane 0 ends with the
/// sum of the warp's 32 values. Every full-warp reduction fix writes it
/// with this.
std::string warpShuffleSum(const std::string &Indent, const std::string &Var);

/// The leading white space of the line holding \p L.
std::string indentOf(const clang::ASTContext &Ctx, clang::SourceLocation L);
/// Text of the white space that starts the line of \p L, when \p L is the
/// first non-blank character of its line; std::nullopt otherwise.
std::optional<std::string> lineIndent(const clang::ASTContext &Ctx,
                                      clang::SourceLocation L);

/// \p Base, or \p Base with a numeric suffix, not declared anywhere in
/// \p FD (and not a parameter's name).
std::string uniqueName(const clang::FunctionDecl *FD, const std::string &Base);
/// \p Base, or \p Base + "_<n>", not declared or named in \p FD and not
/// introduced before by a fix of this run in \p FD (two fixes of one run
/// must not declare the same name); the name is remembered.
std::string freshName(clang::ASTContext &Ctx, const CheckContext &CC,
                      const clang::FunctionDecl *FD, llvm::StringRef Base);

/// Source text of \p E with the given sub-expressions replaced (each
/// replacement: a node of \p E and its new text). "" when a range cannot be
/// mapped to the file.
std::string
rewrittenText(const clang::ASTContext &Ctx, const clang::Stmt *E,
              const std::vector<std::pair<const clang::Stmt *, std::string>>
                  &Replacements);

} // namespace cudal1

#endif
