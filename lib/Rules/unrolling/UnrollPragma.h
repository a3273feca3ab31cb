//===- UnrollPragma.h - innermost counted loops and #pragma unroll -*- C++
//-*-===//
//
// Private to the unrolling rules: which loops they consider (innermost
// counted for loops of device code without a loop hint) and the fix they
// share (a #pragma line before the loop).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_UNROLLING_UNROLLPRAGMA_H
#define CUDAL1_LIB_RULES_UNROLLING_UNROLLPRAGMA_H

#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Analysis/Finding.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class ForStmt;
class Stmt;
} // namespace clang

namespace cudal1 {

/// \p For is an innermost counted loop of device code (not a template
/// instantiation) without a loop hint: its shape, and its function in
/// \p FD; std::nullopt otherwise.
std::optional<LoopShape> unrollCandidate(clang::ASTContext &Ctx,
                                         const clang::ForStmt *For,
                                         const clang::FunctionDecl *&FD);

/// Roughly the code the compiler sees in \p S: its expression and
/// statement nodes (implicit casts and parentheses make no code), with the
/// bodies of the user's functions it calls (inlined on the device), up to
/// three calls deep; a call into code the tool cannot see (libdevice's
/// powf, sinf, ...) counts as \p OpaqueCallSize nodes, libdevice's float
/// exponentials and logarithms (expf, logf, ...) as \p ExpLogCallSize, and
/// its one-instruction functions (sqrt, fabs, fmin, fma, floor, ..., and
/// the approximate intrinsics __sinf, __expf, ...) as 1.
/// What nvcc unrolls by itself is measured against it.
unsigned codeSize(const clang::Stmt *S, unsigned Depth = 0,
                  unsigned OpaqueCallSize = 100, unsigned ExpLogCallSize = 100);

/// The fix inserting the line \p Pragma before \p For, or false with \p Why
/// when the loop does not start its own line in a { } block.
bool pragmaFix(clang::ASTContext &Ctx, const clang::ForStmt *For,
               llvm::StringRef Pragma, FixIt &X, std::string &Why);

struct CheckContext;

/// Whether `#pragma <Pragma>` before \p Loop (in function \p FD, held by
/// \p Kernel: FD or a kernel that calls it) changes the machine code NVRTC
/// makes of the kernel (editsChangeCode). The pragma goes in as
/// `_Pragma("...")` before the loop, so no line moves. std::nullopt when
/// that cannot be told.
std::optional<bool> pragmaChangesCode(clang::ASTContext &Ctx,
                                      const CheckContext &CC,
                                      const clang::FunctionDecl *Kernel,
                                      const clang::FunctionDecl *FD,
                                      const clang::Stmt *Loop,
                                      llvm::StringRef Pragma);

/// NVRTC's code bytes of the kernel holding \p Loop (a loop of \p Trip
/// iterations in \p FD; \p Kernel: FD or a kernel that calls it) as it is,
/// with `#pragma unroll 1` and with `#pragma unroll` before the loop.
struct UnrollCodeSizes {
  int64_t Trip = 0;
  double AsIs = 0, Once = 0, Full = 0;
  /// The bytes one more copy of the body adds (a full unroll adds Trip - 1
  /// copies to the code of one); std::nullopt when full unrolling makes no
  /// more code than one copy (it lets the compiler fold what the copies
  /// compute).
  std::optional<double> copyBytes() const;
  /// About how many copies of the body the code holds as it is: 1 when the
  /// compiler does not unroll the loop, Trip when it unrolls it fully, 4 or
  /// 16 for nvcc's partial unrolling. Trip also when the code as it is has
  /// no more bytes than the fully unrolled one (the compiler unrolled it,
  /// in a different order); std::nullopt when it cannot be told.
  std::optional<double> copies() const;
};

/// std::nullopt when the sizes cannot be had (NVRTC missing, the kernel
/// not compilable, the loop not in FD's own text).
std::optional<UnrollCodeSizes>
unrollCodeSizes(clang::ASTContext &Ctx, const CheckContext &CC,
                const clang::FunctionDecl *Kernel, const clang::FunctionDecl *FD,
                const clang::Stmt *Loop, int64_t Trip);

} // namespace cudal1

#endif
