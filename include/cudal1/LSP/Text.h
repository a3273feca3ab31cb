//===- Text.h - LSP positions over UTF-8 text, document edits ---*- C++ -*-===//
//
// LSP positions count lines from 0 and characters in UTF-16 code units (the
// protocol's default and only mandatory encoding); the tool's findings use
// byte offsets and 1-based byte columns. These functions convert between the
// two over the document's UTF-8 text, and apply the edits of
// textDocument/didChange (full or incremental). Lines end at "\n"; a "\r"
// before it belongs to the line end. Positions past the end of a line or of
// the text are clamped, as the protocol asks.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LSP_TEXT_H
#define CUDAL1_LSP_TEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace cudal1 {
namespace lsp {

struct Position {
  int Line = 0;      ///< 0-based
  int Character = 0; ///< UTF-16 code units from the line's start
  bool operator==(const Position &O) const {
    return Line == O.Line && Character == O.Character;
  }
  bool operator<(const Position &O) const {
    return Line < O.Line || (Line == O.Line && Character < O.Character);
  }
  bool operator<=(const Position &O) const { return !(O < *this); }
};
struct Range {
  Position Start, End;
};

llvm::json::Value toJSON(const Position &P);
llvm::json::Value toJSON(const Range &R);
bool fromJSON(const llvm::json::Value &V, Position &P, llvm::json::Path Path);
bool fromJSON(const llvm::json::Value &V, Range &R, llvm::json::Path Path);

/// The byte offset of \p P in \p Text (clamped to the line's end and to the
/// text's end; a position inside a UTF-16 surrogate pair goes to the start
/// of its character).
size_t offsetAt(llvm::StringRef Text, Position P);
/// The position of byte \p Offset of \p Text (clamped to the text's end; an
/// offset inside a UTF-8 sequence counts as its character's start).
Position positionAt(llvm::StringRef Text, size_t Offset);
/// The byte offset of 1-based \p Line and byte \p Column (as in findings).
size_t offsetOfLineColumn(llvm::StringRef Text, unsigned Line, unsigned Column);
/// The number of bytes of the UTF-8 character starting at \p Offset (1 for
/// an invalid byte, 0 at the end).
size_t charLength(llvm::StringRef Text, size_t Offset);

/// An open document: the editor's text and version.
struct TextDocument {
  std::string Uri;
  std::string Path; ///< absolute file path of Uri
  std::string Text;
  int64_t Version = 0;

  /// Applies one change of textDocument/didChange: the whole text when
  /// \p R is absent, else the range's replacement. False (text unchanged,
  /// \p Error set) when the range ends before it starts.
  bool applyChange(const std::optional<Range> &R, llvm::StringRef NewText,
                   std::string &Error);
};

} // namespace lsp
} // namespace cudal1

#endif
