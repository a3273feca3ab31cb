//===- Utf8.h - UTF-8 characters and their UTF-16 length --------*- C++ -*-===//
//
// Findings carry byte offsets and byte columns; the Language Server Protocol
// and SARIF (columnKind utf16CodeUnits) count UTF-16 code units. Invalid
// UTF-8 counts one unit per byte.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_SUPPORT_UTF8_H
#define CUDAL1_SUPPORT_UTF8_H

#include "llvm/ADT/StringRef.h"

namespace cudal1 {

/// The number of bytes of the UTF-8 character starting at \p Offset (1 for
/// an invalid or truncated sequence, 0 at the end).
size_t utf8CharLength(llvm::StringRef Text, size_t Offset);

/// UTF-16 code units of a character of \p Bytes UTF-8 bytes.
inline unsigned utf16UnitsOfChar(size_t Bytes) { return Bytes == 4 ? 2 : 1; }

/// UTF-16 code units of \p Text.
size_t utf16Length(llvm::StringRef Text);

} // namespace cudal1

#endif
