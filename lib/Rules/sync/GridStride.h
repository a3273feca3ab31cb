//===- GridStride.h - fewer blocks, each covering several -------*- C++ -*-===//
//
// The grid-stride form shared by sync-warp-atomic-reduction and
// sync-shared-histogram: a kernel whose per-block work ends in one merge
// (an atomic per block, per-block bins added to global memory) takes fewer
// blocks, each running the guarded per-element statement for several of
// the original blocks.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_SYNC_GRIDSTRIDE_H
#define CUDAL1_LIB_RULES_SYNC_GRIDSTRIDE_H

#include "../RuleCheck.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// How many blocks the grid-stride form keeps at most: 2048 blocks of 256
/// threads fill an H200 (132 SMs) and leave 2048 merges (atomics on one
/// address, or per-block bins added up).
constexpr unsigned GridStrideBlocks = 2048;

/// The grid-stride form of a guarded statement `if (... i < n ...) S` with
/// `i = blockIdx.x * blockDim.x + threadIdx.x` (or along y): every launch
/// takes at most GridStrideBlocks blocks, each running S for the original
/// blocks blockIdx.x, blockIdx.x + gridDim.x, ... (their threadIdx.x
/// lane), so that one merge per block covers many of the original blocks. The launch passes min(n, grid.x * block.x) for n: the
/// elements the original's grid reached, which the loop then covers.
struct GridStrideText {
  std::string Head;  ///< the loop, up to its `{`
  std::string Index; ///< `int i = cudal1_b * blockDim.x + threadIdx.x;`
  /// The original blocks each block covers: `blockIdx.x + k * gridDim.x`.
  std::string Axis;
  /// The launch edits, and the removal of the original index declaration.
  std::vector<TextEdit> LaunchEdits;
};

/// The grid-stride text for kernel \p K whose top-level statement \p Top
/// is `if (Guard) ...`: std::nullopt with \p Why when the kernel or a
/// launch does not allow it. Calls outside \p Top with an effect outside
/// the block are refused unless \p BlockEffectOk accepts them.
std::optional<GridStrideText>
gridStride(clang::ASTContext &Ctx, const CheckContext &CC,
           const clang::FunctionDecl *K, const FunctionFacts &F,
           const clang::Stmt *Top, const clang::Expr *Guard,
           const std::function<bool(const clang::CallExpr *)> &BlockEffectOk,
           std::string &Why);

} // namespace cudal1

#endif
