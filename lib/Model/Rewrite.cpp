//===- Rewrite.cpp - text edits and exactness -----------------------------===//
#include "cudal1/Model/Rewrite.h"

#include <tuple>

namespace cudal1 {

const char *toString(Exactness E) {
  switch (E) {
  case Exactness::None:
    return "none";
  case Exactness::Bitwise:
    return "bitwise";
  case Exactness::Ulp:
    return "ulp";
  case Exactness::Reassociating:
    return "reassociating";
  case Exactness::FastMath:
    return "fast-math";
  }
  return "none";
}

std::optional<Exactness> exactnessFromString(const std::string &S) {
  for (Exactness E : {Exactness::None, Exactness::Bitwise, Exactness::Ulp,
                      Exactness::Reassociating, Exactness::FastMath})
    if (S == toString(E))
      return E;
  return std::nullopt;
}

int exactnessRank(Exactness E) {
  switch (E) {
  case Exactness::Bitwise:
    return 0;
  case Exactness::Ulp:
    return 1;
  case Exactness::Reassociating:
    return 2;
  case Exactness::FastMath:
    return 3;
  case Exactness::None:
    return 4;
  }
  return 4;
}

bool TextEdit::operator<(const TextEdit &O) const {
  return std::tie(File, Offset, Length, Replacement) <
         std::tie(O.File, O.Offset, O.Length, O.Replacement);
}
bool TextEdit::operator==(const TextEdit &O) const {
  return File == O.File && Offset == O.Offset && Length == O.Length &&
         Replacement == O.Replacement;
}

} // namespace cudal1
