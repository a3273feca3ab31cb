//===- StructuralSupport.h - legality helpers of structural rewrites -----===//
//
// Private to lib/Rules/Structural. What the structural transformations need
// to prove a rewrite legal before they offer it: which locals a kernel
// mutates, block-uniform values, affine forms of index expressions (over
// threadIdx/blockIdx/blockDim/gridDim, parameters and named induction
// variables), the pointer parameter an expression derives from, aliasing
// between parameters (restrict, or distinct allocations at every visible
// launch site), the launch sites of a kernel and its constant block shape.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_STRUCTURAL_SUPPORT_H
#define CUDAL1_LIB_RULES_STRUCTURAL_SUPPORT_H

#include "cudal1/Analysis/Affine.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudal1 {
namespace structural {

/// A for, while or do loop.
bool isLoop(const clang::Stmt *S);

/// Calls \p Fn on \p S and every statement below it (pre-order). Lambdas
/// and nested declarations' bodies are included.
void forEachStmt(const clang::Stmt *S,
                 const std::function<void(const clang::Stmt *)> &Fn);

/// Facts about one kernel body.
struct FunctionFacts {
  const clang::FunctionDecl *FD = nullptr;
  /// Variables assigned after their initialisation, incremented, or whose
  /// address is taken / bound to a non-const reference.
  std::set<const clang::VarDecl *> Mutated;
  static FunctionFacts compute(const clang::FunctionDecl *FD);
  bool isMutated(const clang::VarDecl *V) const { return Mutated.count(V); }
};

/// "threadIdx.x", "blockIdx.y", ... for a CUDA built-in index variable
/// access; "" otherwise.
std::string builtinName(const clang::Expr *E);

/// Variables of \p S written in \p S (assignments, ++/--, address taken).
std::set<const clang::VarDecl *> varsWrittenIn(const clang::Stmt *S);

/// The affine form of an integer expression. \p Syms names variables to be
/// treated as symbols (e.g. loop induction variables). Locals that are never
/// mutated are followed through their initialiser; unmutated parameters are
/// symbols named after them. Anything else is unknown.
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

/// Launch sites (chevron calls) of \p Kernel in the translation unit.
std::vector<const clang::CUDAKernelCallExpr *>
launchSitesOf(clang::ASTContext &Ctx, const clang::FunctionDecl *Kernel);

/// True when \p P and \p Q provably point into different objects for the
/// whole kernel: one of them is __restrict__ (and the kernel accesses that
/// object only through it), or at every launch site of the translation unit
/// (at least one) the two arguments are different local variables, each
/// set only by cudaMalloc/cudaMallocManaged. \p How says which; \p Why says
/// what failed.
bool provenDistinct(clang::ASTContext &Ctx, const clang::FunctionDecl *K,
                    const clang::ParmVarDecl *P, const clang::ParmVarDecl *Q,
                    std::string &How, std::string &Why);

/// The block shape of every launch site of \p K in the model when all are
/// constant and equal; std::nullopt with \p Why otherwise.
std::optional<std::array<uint64_t, 3>>
constantBlock(const CheckContext &CC, const clang::FunctionDecl *K,
              std::string &Why);

/// Just past statement \p S, including its ';' when it has one.
clang::SourceLocation stmtEnd(clang::ASTContext &Ctx, const clang::Stmt *S);

/// The leading white space of the line holding \p L.
std::string indentOf(const clang::ASTContext &Ctx, clang::SourceLocation L);

/// \p Base, or \p Base with a numeric suffix, not declared anywhere in
/// \p FD (and not a parameter's name).
std::string uniqueName(const clang::FunctionDecl *FD, const std::string &Base);

/// Source text of \p E with the given sub-expressions replaced (each
/// replacement: a node of \p E and its new text). "" when a range cannot be
/// mapped to the file.
std::string
rewrittenText(const clang::ASTContext &Ctx, const clang::Stmt *E,
              const std::vector<std::pair<const clang::Stmt *, std::string>>
                  &Replacements);

/// The kernels (definitions, __global__, user files, not templates) of the
/// translation unit.
std::vector<const clang::FunctionDecl *> userKernels(clang::ASTContext &Ctx,
                                                     const CheckContext &CC);

/// A check that looks at one kernel at a time: run() calls runOn for every
/// kernel of userKernels(), in order, with the kernel's FunctionFacts.
class PerKernelCheck : public Check {
public:
  void run(clang::ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) final;

protected:
  virtual void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
                     const clang::FunctionDecl *K, const FunctionFacts &F,
                     std::vector<Finding> &Out) = 0;
};

/// Structural equality of two expressions (same tokens modulo parentheses
/// and implicit casts, same declarations).
bool sameExpr(const clang::ASTContext &Ctx, const clang::Expr *A,
              const clang::Expr *B);

/// True when \p S contains a call to a function named \p Names (any).
bool containsCallTo(const clang::Stmt *S,
                    std::initializer_list<llvm::StringRef> Names);
/// True when \p S contains return, goto, or break / continue that leave
/// \p S itself (breaks of loops / switches nested in \p S are fine).
bool containsEscape(const clang::Stmt *S, bool AllowContinue);

/// A finding that carries no fix: \p Why explains the refusal.
void refuse(Finding &F, const std::string &Why);

} // namespace structural
} // namespace cudal1

#endif
