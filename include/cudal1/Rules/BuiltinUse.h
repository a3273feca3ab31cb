//===- BuiltinUse.h - which CUDA built-ins a kernel reads -------*- C++ -*-===//
//
// Which components of threadIdx, blockIdx, blockDim and gridDim a kernel
// reads, through the functions it calls: what launch-redundant-threads and
// the rules that need a one-dimensional block ask.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_BUILTINUSE_H
#define CUDAL1_RULES_BUILTINUSE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace cudal1 {

/// The CUDA built-ins a kernel reads (threadIdx, blockIdx, blockDim and
/// gridDim, per component) in its body and in every function it calls,
/// followed through the call graph (device functions, lambdas, constructors,
/// template instantiations); a built-in used whole (`uint3 t = threadIdx`)
/// counts as reading its three components. Calls into CUDA's own headers are
/// index-free, except the libraries that read the thread index themselves
/// (cooperative_groups, cub, thrust, libcu++): those, inline assembly, calls
/// through pointers and functions without a visible body make the use
/// unknown (Unknown says why).
struct BuiltinUse {
  /// "threadIdx.y" -> its first read (in the kernel or a callee).
  std::map<std::string, const clang::Expr *> Reads;
  std::string Unknown; ///< why some use cannot be seen ("" when none)
  const clang::CallExpr *Atomic = nullptr;       ///< atomic*() call
  const clang::CallExpr *WarpOp = nullptr;       ///< __shfl*, __ballot*, ...
  const clang::CallExpr *BarrierCount = nullptr; ///< __syncthreads_count/and/or
  bool reads(llvm::StringRef Name) const { return Reads.count(Name.str()); }
};
/// BuiltinUse of the definition of \p Kernel (a plain kernel or a template
/// instantiation).
BuiltinUse builtinUse(const clang::ASTContext &Ctx,
                      const clang::FunctionDecl *Kernel);

/// For rules that need a one-dimensional block: when \p Block has an
/// extent > 1 along y or z and \p Kernel provably never reads those
/// threadIdx components (builtinUse), why the rule refuses, pointing to
/// launch-redundant-threads ("the block is 32x8 but ..."); "" otherwise.
std::string redundantBlockDimsWhy(const clang::ASTContext &Ctx,
                                  const clang::FunctionDecl *Kernel,
                                  const std::array<uint64_t, 3> &Block);

} // namespace cudal1

#endif
