//===- AccessAnalysis.h - symbolic index analysis of kernels -----*- C++ -*-===//
//
// For every kernel of a translation unit: its loops (induction variables,
// trip counts, unroll pragmas) and every global / shared memory access with
// its byte address as a symbolic expression (Affine.h) of threadIdx,
// blockIdx, blockDim, gridDim, loop induction variables and parameters.
// Follows local variables, casts, pointer arithmetic, macros (through the
// AST) and user device functions (inlined at each call, with their
// parameters bound to the caller's arguments). What cannot be expressed is
// Unknown.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_ACCESSANALYSIS_H
#define CUDAL1_ANALYSIS_ACCESSANALYSIS_H

#include "cudal1/Analysis/Affine.h"
#include "cudal1/Model/KernelInfo.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class SourceRange;
class Stmt;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace cudal1 {

/// The source text of \p R on one line: trimmed, each run of white space
/// folded to one space ("" if unavailable).
std::string oneLineText(const clang::ASTContext &Ctx, clang::SourceRange R);

enum class MemSpace { Global, Shared, Constant, Local, Unknown };
const char *toString(MemSpace S);

enum class TripKind { Constant, Parameter, Unknown };

struct LoopInfo {
  unsigned Id = 0;
  const clang::Stmt *S = nullptr;   ///< ForStmt / WhileStmt / DoStmt
  const clang::VarDecl *IV = nullptr;
  std::string IVName;
  /// Symbol of the IV's value (uniform IVs: "i@<Id>"), or
  /// Init + Step*iter(i)@<Id> for thread-dependent (grid-stride) IVs.
  AffineExpr IVValue = AffineExpr::unknown();
  AffineExpr Init = AffineExpr::unknown(), Step = AffineExpr::unknown();
  bool Geometric = false; ///< i *= c, i /= c, i >>= c, i <<= c
  TripKind Trip = TripKind::Unknown;
  std::optional<int64_t> TripCount; ///< constant trip count
  std::string TripText;             ///< "4", "N / 2", "unknown"
  bool HasUnrollPragma = false;     ///< #pragma unroll (any form)
  bool ContainsSync = false;        ///< __syncthreads() in the body
  bool ContainsGlobalStore = false; ///< a global store or atomic in it
  LoopInfo *Parent = nullptr;
  unsigned Depth = 0;
  /// Symbols that vary with this loop (its IV and those of inner loops).
  std::set<std::string> VaryingSyms;
  SourceLoc Loc;
};

struct MemAccess {
  const clang::Expr *E = nullptr;     ///< the accessed lvalue (or the atomic call)
  const clang::Expr *Full = nullptr;  ///< the whole assignment / call / load
  const clang::Expr *Index = nullptr; ///< the subscript / pointer operand
  const clang::ValueDecl *Base = nullptr;
  std::string BaseName;
  MemSpace Space = MemSpace::Unknown;
  bool IsRead = false, IsWrite = false, IsAtomic = false;
  bool IsCompound = false; ///< x += ..., ++x, x = x + ...
  /// Under a condition that leaves only some lanes of a warp active
  /// (tid == 0, lane % 2, ...): warp-wide counts do not apply.
  bool SparseGuard = false;
  AffineExpr Address = AffineExpr::unknown(); ///< bytes from Base
  unsigned AccessBytes = 0;
  unsigned ElemBytes = 0;
  std::vector<const LoopInfo *> Loops; ///< enclosing, outermost first
  /// Device-function calls through which this access was reached
  /// (outermost first); empty when it is in the kernel's own body.
  std::vector<const clang::CallExpr *> CallChain;
  WarpRequest Global;  ///< when Space == Global
  BankResult Banks;    ///< when Space == Shared
  SourceLoc Loc;
  std::string Text;    ///< source text of the access
};

struct KernelAnalysis {
  const clang::FunctionDecl *Kernel = nullptr;
  std::string Name;
  BlockShape Block{0, 0, 0};
  std::string BlockSource; ///< "launch at file:line" / "" (unknown)
  SourceLoc BlockLoc;      ///< the launch site giving the block shape
  std::vector<std::unique_ptr<LoopInfo>> Loops;
  std::vector<MemAccess> Accesses;
  /// Pointer parameters written through (directly or via derived pointers).
  std::set<const clang::ValueDecl *> WrittenBases, ReadBases;
  /// Pointer parameters whose derived pointers escape the analysis (passed
  /// to unknown calls, stored, ...): read-only-ness not provable.
  std::set<const clang::ValueDecl *> EscapedBases;
  bool AllPointersRestrict = false;

  const LoopInfo *loopOf(const clang::Stmt *S) const;
};

class AnalysisResults {
public:
  std::vector<KernelAnalysis> Kernels;
  /// Analyses every kernel defined in user code (for templates: every
  /// instantiation) of the translation unit.
  static std::unique_ptr<AnalysisResults>
  analyze(clang::ASTContext &Ctx, const ProjectModel &Model,
          const std::function<bool(const std::string &)> &IsUserFile);
  /// Human-readable dump (tests, --dump-accesses).
  void print(llvm::raw_ostream &OS) const;
  /// Is \p E the same in every iteration of \p L? Values loaded from memory
  /// count as varying when \p MemoryMayChange.
  bool isInvariant(const AffineExpr &E, const LoopInfo &L,
                   bool MemoryMayChange) const;
  /// Opaque uniform symbols -> the symbols they depend on ("mem": a load).
  std::map<std::string, std::set<std::string>> OpaqueDeps;
};

/// Block shape of \p K from the launch sites of \p Model, when every site
/// that launches it has the same constant block.
BlockShape blockShapeFromLaunches(const ProjectModel &Model,
                                  const std::string &QualifiedName,
                                  const std::string &Key,
                                  std::string &Source,
                                  SourceLoc *Loc = nullptr);

} // namespace cudal1

#endif
