//===- Utf8.cpp - UTF-8 characters and their UTF-16 length ----------------===//
#include "cudal1/Support/Utf8.h"

using namespace llvm;

namespace cudal1 {

size_t utf8CharLength(StringRef Text, size_t Offset) {
  if (Offset >= Text.size())
    return 0;
  unsigned char C = Text[Offset];
  size_t N = C < 0x80           ? 1
             : (C >> 5) == 6    ? 2
             : (C >> 4) == 14   ? 3
             : (C >> 3) == 30   ? 4
                                : 1;
  if (Offset + N > Text.size())
    return 1;
  for (size_t I = 1; I < N; ++I)
    if ((static_cast<unsigned char>(Text[Offset + I]) & 0xC0) != 0x80)
      return 1;
  return N;
}

size_t utf16Length(StringRef Text) {
  size_t Units = 0;
  for (size_t Off = 0; Off < Text.size();) {
    size_t N = utf8CharLength(Text, Off);
    Units += utf16UnitsOfChar(N);
    Off += N;
  }
  return Units;
}

} // namespace cudal1
