//===- RowWalk.h - kernels whose threads each walk a row --------*- C++ -*-===//
//
// Private to the coalescing rules that rewrite row-walking kernels
// (coalescing-smem-staging, coalescing-warp-per-row): thread
// `row = blockIdx.x*blockDim.x + threadIdx.x` reads A[row*LD + k] in a loop
// over k, so the lanes of a warp read addresses LD elements apart.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_ROWWALK_H
#define CUDAL1_LIB_RULES_COALESCING_ROWWALK_H

#include "cudal1/Analysis/Affine.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Analysis/Finding.h"
#include "clang/AST/Stmt.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ArraySubscriptExpr;
class CallExpr;
class ForStmt;
class Stmt;
class CUDAKernelCallExpr;
class ASTContext;
class ParmVarDecl;
class Expr;
class VarDecl;
} // namespace clang

namespace cudal1 {

/// The for loops of \p Body, outermost first.
std::vector<const clang::ForStmt *> forLoopsIn(const clang::Stmt *Body);

/// True when index \p Idx (over the loop variable "k@iv") walks a row per
/// thread: unit stride in k, a uniform threadIdx.x coefficient that is not
/// -1, 0 or 1 (those are coalesced or a broadcast).
bool walksRowPerThread(const AffineExpr &Idx);

/// The pointer parameter \p AS reads and its index as one flat offset:
/// `A[e]` gives e; `A[i][j]` on a parameter of type `T A[][C]` (or
/// `T (*A)[C]`) gives i*C + j. Null for other accesses, and for `A[i]` of
/// such a parameter (a row, not an element).
const clang::ParmVarDecl *
rowWalkAccess(const clang::ArraySubscriptExpr *AS, const FunctionFacts &F,
              const std::map<const clang::VarDecl *, std::string> &Syms,
              AffineExpr &Idx);

/// The pointer parameter an element access reaches: `P[i]`, or `P[i][j]`
/// through its inner subscript (a `T P[][N]` parameter); null when the
/// base is not traced to a parameter (rootPointerParam).
const clang::ParmVarDecl *subscriptParam(const clang::ArraySubscriptExpr *AS,
                                         const FunctionFacts &F);

/// `for (T k = K0; k < END; ++k)` (or k += 1), with k declared in the loop:
/// the induction variable, its start \p K0 and bound \p End; null when the
/// loop has another shape.
const clang::VarDecl *simpleLoop(clang::ASTContext &Ctx,
                                 const clang::ForStmt *L,
                                 const clang::Expr *&K0,
                                 const clang::Expr *&End);

/// The one statement of \p If's then-branch (braced or not) when \p If has
/// no else, no init statement and no condition variable; else null.
const clang::Stmt *soleThen(const clang::IfStmt *If);

/// `if (c) return;` (a bare return, alone in its branch): c; else null.
const clang::Expr *earlyExit(const clang::Stmt *S);

/// The variables \p S reads (its DeclRefExprs to VarDecls).
std::set<const clang::VarDecl *> varsRead(const clang::Stmt *S);

/// The statement that holds loop \p L in its block: \p L itself, or the
/// AttributedStmt of a `#pragma unroll` (or `[[likely]]`...) written before
/// it (another rule's fix, or the user's).
const clang::Stmt *loopStatement(clang::ASTContext &Ctx,
                                 const clang::ForStmt *L);

/// Adds to \p Edits the edit that multiplies the grid of launch \p Site by
/// 32 (one warp per former thread): `(g) * 32` for an integer grid,
/// `dim3((g).x * 32, (g).y, (g).z)` for a dim3 variable. False with \p Why
/// for other grids or a grid written in a macro.
bool gridTimes32(clang::ASTContext &Ctx, const clang::CUDAKernelCallExpr *Site,
                 std::vector<TextEdit> &Edits, std::string &Why);

// --- reductions ------------------------------------------------------------------

enum class ReductionKind { Sum, Max, Min };

/// One reduction statement: `acc += e`, `acc = max(acc, e)`, ...
struct Reduction {
  ReductionKind Kind = ReductionKind::Sum;
  const clang::VarDecl *Acc = nullptr;
  std::string Callee;                 ///< Max/Min: the function as written
  const clang::Expr *Value = nullptr; ///< the reduced value
  /// A statement before the loop assigns the accumulator: its start is not
  /// its initialiser.
  bool AssignedBefore = false;
};

/// A local arithmetic variable (not a parameter) named by \p E, or null.
const clang::VarDecl *localAcc(const clang::Expr *E);

/// The reduction statement \p S is (`acc += e`, `acc = max(acc, e)`,
/// `acc = max(e, acc)`, the min and fmax/fmaxf/fmin/fminf forms, with acc a
/// localAcc), or std::nullopt.
std::optional<Reduction> reductionOf(clang::ASTContext &Ctx,
                                     const clang::Stmt *S);

/// The statements of \p L's body: those of a braced body, or the one
/// statement.
std::vector<const clang::Stmt *> loopBodyStatements(const clang::ForStmt *L);

/// Every statement of \p L's body is a reduction (reductionOf) into an
/// accumulator no other statement of the body reduces: those reductions;
/// std::nullopt otherwise, or for an empty body.
std::optional<std::vector<Reduction>> loopReductions(clang::ASTContext &Ctx,
                                                     const clang::ForStmt *L);

/// \p R is a sum that does not start at zero where its loop begins (its
/// initialiser is not a literal zero, or a statement before the loop
/// assigns it): when the loop is split across lanes or threads, only one
/// may keep that start and the others begin at zero.
bool sumStartsElsewhere(clang::ASTContext &Ctx, const Reduction &R);

/// A fix that reorders reductions: bitwise when every accumulator is an
/// integer (\p AnyFloat false), else reassociating, compared within rtol
/// 1e-4, atol 1e-5 and 1e-4 of the output's largest value (sums that
/// cancel).
FixIt reductionFix(bool AnyFloat);

/// \p CE calls a builtin or a function declared in a system header.
bool systemCallee(const clang::ASTContext &Ctx, const clang::CallExpr *CE);

/// No stores, no increments, no calls but CUDA's and the C library's (and
/// none of those with effects on other threads: atomics, shuffles,
/// barriers, printf, clocks).
bool sideEffectFree(const clang::ASTContext &Ctx, const clang::Stmt *S);

/// A launch value written \p W (writtenLaunchDim) as a dim3 a launch edit can
/// take components of: `(e)` for a dim3 expression, `dim3(e)` for a number.
std::string launchDimText(clang::ASTContext &Ctx, const clang::Expr *W);

} // namespace cudal1


#endif
