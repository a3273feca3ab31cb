//===- IndexRanges.h - values of buffers used as indices --------*- C++ -*-===//
//
// A kernel that indexes a buffer with values it loads from another (a
// membership array indexing cluster sums, CSR column indices, scanned
// positions of a scatter) writes out of bounds when the harness fills the
// index buffer with arbitrary integers. Given where those values flow
// (BufferUse::IndexUses, from the access analysis) and the harness's sizes
// and scalars, this chooses for each such buffer the widest range of values
// that keeps every index inside its buffer, and how to fill it (int, sorted
// for loop bounds, distinct for scatter stores), or says why it cannot.
// Plain data: no Clang, no CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_INDEXRANGES_H
#define CUDAL1_VERIFY_INDEXRANGES_H

#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Verify/Harness.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cudal1 {

/// Inclusive [Lo, Hi]. A loop that runs zero times may give Lo > Hi.
struct IndexInterval {
  int64_t Lo = 0, Hi = 0;
};

/// What an index expression is evaluated with.
struct IndexRangeEnv {
  std::map<std::string, int64_t> Params; ///< integer scalar parameters
  std::array<uint64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  /// The range of the values of each integer buffer (by parameter index).
  std::map<unsigned, IndexInterval> Loads;
};

/// The interval of the values \p E takes; false with \p Why (a parameter
/// without a value, an Opaque node, a division by a range holding 0,
/// overflow).
bool indexInterval(const IndexExpr &E, const IndexRangeEnv &Env,
                   IndexInterval &Out, std::string &Why);

/// The choice for one buffer whose values are indices.
struct IndexRangeChoice {
  /// A range was derived from at least one use (else the default stays).
  bool Derived = false;
  /// The default range already keeps every use in bounds (nothing to do).
  bool DefaultSafe = false;
  int64_t Lo = 0, Hi = 0;
  Distribution::Kind Kind = Distribution::IntRange;
  /// Why no range could be derived ("" when Derived or DefaultSafe).
  std::string Why;
  /// Extra facts for the notes (stores that may collide, ...).
  std::string Note;
  /// The uses that constrained it: "sums[c * dim + f] (kmeans.cu:53:17)".
  std::vector<std::string> Uses;
};

/// The widest range [Lo, Hi] of values of buffer \p Source (\p SourceCount
/// elements, element type range \p TypeRange, default range \p Default)
/// that keeps the index of every use in \p Uses inside its buffer
/// (\p Counts: element counts by parameter index; a use of a buffer without
/// a count fails). \p Env gives the scalars, the launch shape and the value
/// ranges of the other index buffers. Each use's index must be affine in
/// \p Source's values (checked by evaluating it at several ranges), its
/// smallest value depending on one end of the range and its largest on one
/// end; a use that is not affine only passes when the default range keeps
/// it in bounds. Values used as loop bounds are filled sorted; values that
/// only index plain stores, distinct (when the range has enough values).
IndexRangeChoice chooseIndexRange(unsigned Source, uint64_t SourceCount,
                                  const std::vector<IndexUse> &Uses,
                                  const std::map<unsigned, uint64_t> &Counts,
                                  const std::vector<std::string> &Names,
                                  IndexRangeEnv Env, IndexInterval TypeRange,
                                  IndexInterval Default);

/// The values an integer element type can hold (64-bit types: +-2^62, so
/// that index arithmetic cannot overflow); false for non-integers.
bool integerTypeRange(ElemKind K, IndexInterval &Out);

} // namespace cudal1

#endif
