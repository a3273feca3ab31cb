//===- Rewrite.h - text edits and how exact a rewrite is -------*- C++ -*-===//
//
// The two concepts every stage that touches a rewrite shares (rules propose
// edits with an exactness, the verifier checks a candidate as exactly as its
// exactness says, the emitter applies edits): one definition each, here in
// the plain-data model. See docs/architecture.md, "Data between stages".
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_REWRITE_H
#define CUDAL1_MODEL_REWRITE_H

#include <optional>
#include <string>

namespace cudal1 {

/// How far a rewrite may change results; decides how it is verified
/// (DESIGN.md, "Core model").
enum class Exactness {
  None,          ///< no rewrite (finding only)
  Bitwise,       ///< same bits
  Ulp,           ///< within a number of units in the last place
  Reassociating, ///< float operations reordered: within a tolerance
  FastMath,      ///< only with --allow-fast-math
};

/// "none", "bitwise", "ulp", "reassociating", "fast-math".
const char *toString(Exactness E);
/// Parses the spellings of toString(); std::nullopt for anything else.
std::optional<Exactness> exactnessFromString(const std::string &S);
/// Orders rewrites from the most to the least exact (Bitwise = 0); None
/// ranks last.
int exactnessRank(Exactness E);

/// One replacement, in the terms of clang::tooling::Replacement: byte
/// \p Offset and \p Length in \p File (absolute path, as SourceLoc::File).
struct TextEdit {
  std::string File;
  unsigned Offset = 0, Length = 0;
  std::string Replacement;
  bool operator<(const TextEdit &O) const;
  bool operator==(const TextEdit &O) const;
};

} // namespace cudal1

#endif
