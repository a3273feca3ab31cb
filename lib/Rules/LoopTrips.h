//===- LoopTrips.h - constant trip counts of counted loops ------*- C++ -*-===//
#ifndef CUDAL1_RULES_LOOPTRIPS_H
#define CUDAL1_RULES_LOOPTRIPS_H

#include <cstdint>
#include <optional>

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace cudal1 {

/// The iterations of \p Loop when it is a counted for loop (analyzeFor)
/// whose start and bound are constants; std::nullopt otherwise.
std::optional<int64_t> constantTripCount(clang::ASTContext &Ctx,
                                         const clang::Stmt *Loop);

} // namespace cudal1

#endif
