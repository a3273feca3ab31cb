//===- AstFacts.h - facts about kernel code, shared by analysis and rules -===//
//
// The one set of AST helpers that the symbolic access analysis
// (AccessAnalysis.h) and the rules (lib/Rules) use to ask the same
// questions the same way: which variable an expression names, which CUDA
// built-in it reads, what a loop looks like and how often it runs, which
// locals a function changes, the affine form of an index, whether a value
// is the same in every thread of a block, which pointer parameter an
// address comes from.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_ASTFACTS_H
#define CUDAL1_ANALYSIS_ASTFACTS_H

#include "cudal1/Analysis/Affine.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class ParmVarDecl;
class VarDecl;
} // namespace clang

namespace cudal1 {

/// The variable \p E names, through parentheses and implicit casts.
const clang::VarDecl *varOf(const clang::Expr *E);

/// "threadIdx.x", "blockIdx.y", ... for a read of a CUDA built-in index
/// variable (any of the forms Clang builds for it); "" otherwise.
std::string builtinName(const clang::Expr *E);

/// The statements from \p S up to the function body, \p S first (through
/// a variable's declaration to its DeclStmt).
std::vector<const clang::Stmt *> stmtAncestors(clang::ASTContext &Ctx,
                                               const clang::Stmt *S);

/// \p C split at its top-level \p Op (`&&` or `||`) into \p Out, each part
/// without parentheses and implicit casts.
void splitTopLevel(const clang::Expr *C, clang::BinaryOperatorKind Op,
                   std::vector<const clang::Expr *> &Out);

/// A for, range-for, while or do loop.
bool isLoop(const clang::Stmt *S);
/// The body of loop \p S (null when \p S is not a loop).
const clang::Stmt *loopBody(const clang::Stmt *S);
/// A loop anywhere below \p S (not \p S itself).
bool containsLoop(const clang::Stmt *S);
/// Statements (not expressions) in \p S, \p S included.
unsigned countStmts(const clang::Stmt *S);

/// Calls \p Fn on \p S and every statement below it (pre-order): the
/// syntactic form of pseudo-objects, variable initialisers of declarations.
void forEachStmt(const clang::Stmt *S,
                 const std::function<void(const clang::Stmt *)> &Fn);

/// Variables of \p S written in \p S (assignments, ++/--, address taken,
/// bound to a non-const reference, passed by non-const reference).
std::set<const clang::VarDecl *> varsWrittenIn(const clang::Stmt *S);

/// Variables a loop may give a different value in each iteration:
/// varsWrittenIn(\p Loop) and the variables declared inside it.
std::set<const clang::VarDecl *> varsChangedIn(const clang::Stmt *Loop);
/// Does \p E have the same value in every iteration of the loop whose
/// changed variables are \p Changed (varsChangedIn)? No loads, no calls
/// (CUDA built-ins are fine). \p HasVar is set when \p E reads a variable.
bool isLoopInvariant(const clang::Expr *E,
                     const std::set<const clang::VarDecl *> &Changed,
                     bool &HasVar);

/// Facts about one function body.
struct FunctionFacts {
  const clang::FunctionDecl *FD = nullptr;
  /// Variables written after their initialisation (varsWrittenIn).
  std::set<const clang::VarDecl *> Mutated;
  static FunctionFacts compute(const clang::FunctionDecl *FD);
  bool isMutated(const clang::VarDecl *V) const { return Mutated.count(V); }
};

/// The affine form of an integer expression. \p Syms names variables to be
/// treated as symbols (e.g. loop induction variables). Locals that are never
/// mutated are followed through their initialiser; unmutated parameters are
/// symbols named after them; built-ins are symbols "threadIdx.x", ...
/// Anything else is unknown.
AffineExpr
toAffine(const clang::Expr *E, const FunctionFacts &F,
         const std::map<const clang::VarDecl *, std::string> &Syms = {});

/// No memory reads, no calls, no side effects: literals, variables,
/// built-ins, arithmetic, casts, conditionals.
bool isPureNoMemory(const clang::Expr *E);

/// Same value in every thread of a block for the whole kernel: literals,
/// unmutated parameters, blockIdx/blockDim/gridDim, unmutated locals with
/// such initialisers, and arithmetic on them (no memory reads, no calls).
bool isBlockUniform(const clang::Expr *E, const FunctionFacts &F);

/// The pointer parameter \p E (a pointer-typed expression) points into:
/// through parentheses, casts, pointer arithmetic and unmutated local
/// pointers initialised from such expressions. Null when unknown.
const clang::ParmVarDecl *rootPointerParam(const clang::Expr *E,
                                           const FunctionFacts &F);

/// Structural equality of two expressions (same tokens modulo parentheses
/// and implicit casts, same declarations).
bool sameExpr(const clang::ASTContext &Ctx, const clang::Expr *A,
              const clang::Expr *B);

/// True when \p S contains a call to a function named in \p Names ("foo*"
/// matches every name starting with "foo"). "atomic*" also matches nvcc's
/// scoped atomics (__nv_atomic_*) and the __atomic built-ins.
bool containsCallTo(const clang::Stmt *S,
                    std::initializer_list<llvm::StringRef> Names);
/// True when \p S contains return, goto, or break / continue that leave
/// \p S itself (breaks of loops / switches nested in \p S are fine).
bool containsEscape(const clang::Stmt *S, bool AllowContinue);

/// \p E is a constant integer or floating zero (-0.0 too unless
/// \p RejectNegativeZero).
bool isZeroConstant(clang::ASTContext &Ctx, const clang::Expr *E,
                    bool RejectNegativeZero = false);

/// The value of a constant integer expression (not value-dependent).
std::optional<int64_t> evalInt(clang::ASTContext &Ctx, const clang::Expr *E);

/// A counted for loop: `for (iv = Init; iv Cmp Bound; iv += Step)` with a
/// constant step and an induction variable the body does not change.
struct LoopShape {
  const clang::VarDecl *IV = nullptr;
  const clang::Expr *Init = nullptr;
  const clang::Expr *Bound = nullptr;
  clang::BinaryOperatorKind Cmp = clang::BO_LT; ///< iv Cmp Bound
  int64_t Step = 0;
};
std::optional<LoopShape> analyzeFor(clang::ASTContext &Ctx,
                                    const clang::ForStmt *F);

/// Iterations of `for (i = Init; i Cmp Bound; i += Step)`; std::nullopt
/// when the loop does not terminate that way (wrong direction, != that
/// steps over the bound).
std::optional<int64_t> tripCount(int64_t Init, int64_t Bound,
                                 clang::BinaryOperatorKind Cmp, int64_t Step);

} // namespace cudal1

#endif
