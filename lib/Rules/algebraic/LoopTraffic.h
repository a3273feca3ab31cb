//===- LoopTraffic.h - global memory an iteration moves -------*- C++ -*-===//
//
// How much global memory one iteration of a loop reads and writes: the
// measure algebraic-reciprocal-hoist and algebraic-pow2-divmod weigh a
// loop's arithmetic against (a memory-bound loop hides a few instructions
// per byte it moves; utils/bench/divmod).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_ALGEBRAIC_LOOPTRAFFIC_H
#define CUDAL1_RULES_ALGEBRAIC_LOOPTRAFFIC_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <cstdint>

namespace cudal1 {

/// Bytes of global memory that one iteration of \p Loop touches: each
/// distinct access text once, a compound assignment twice (read and write).
/// Only accesses through pointers that reach global memory, and only loads
/// whose address changes in the loop (nvcc keeps an invariant load in a
/// register); calls are not followed.
uint64_t globalBytesPerIteration(const clang::ASTContext &Ctx,
                                 const clang::Stmt *Loop);

} // namespace cudal1

#endif
