//===- LaunchText.h - reading launch expressions as written -------*- C++ -*-===//
//
// Helpers for evaluating a launch's texts (grid, block, arguments) with the
// harness evaluator (Expr.h), shared by the candidate-launch derivation and
// the fix verifier.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_LAUNCHTEXT_H
#define CUDAL1_VERIFY_LAUNCHTEXT_H

#include <cstddef>
#include <optional>
#include <string>

namespace cudal1 {

struct LaunchSite;
struct Harness;

/// \p S (spaces removed) without C-style casts to integer types (`(int)`,
/// `(size_t)`, `(longlong)`, ...) and integer literal suffixes (`32u`,
/// `1ll`), which launch expressions often carry and the harness evaluator
/// does not know.
std::string dropLaunchCasts(std::string S);

/// The index of the kernel argument at \p Offset of \p Text, for the chevron
/// launch whose `>>>` is at \p Close: top-level commas counted from the `(`
/// after it; std::nullopt when \p Offset is not inside that argument list.
std::optional<size_t> launchArgIndexAt(const std::string &Text, size_t Close,
                                       size_t Offset);

/// A rewrite's edit of scalar argument \p Index of launch \p LS (sync-warp-
/// atomic-reduction's grid-stride form passes `min(n, grid.x * block.x)`
/// for n) keeps its value where the harness \p H launches: the replacement,
/// with the harness's grid, block and scalar arguments in place of the
/// launch's own texts, evaluates to the harness's value of that argument.
/// The candidate run with the harness's arguments is then the rewritten
/// program at the harness's values. False with \p Why otherwise (a buffer
/// argument, a value that cannot be evaluated, another value).
bool launchArgEditKeepsValue(const LaunchSite &LS, const Harness &H,
                             size_t Index, const std::string &Replacement,
                             std::string &Why);

} // namespace cudal1

#endif
