//===- Text.cpp - LSP positions over UTF-8 text, document edits -----------===//
#include "cudal1/LSP/Text.h"
#include "cudal1/Support/Utf8.h"

using namespace llvm;

namespace cudal1 {
namespace lsp {

json::Value toJSON(const Position &P) {
  return json::Object{{"line", P.Line}, {"character", P.Character}};
}
json::Value toJSON(const Range &R) {
  return json::Object{{"start", toJSON(R.Start)}, {"end", toJSON(R.End)}};
}
bool fromJSON(const json::Value &V, Position &P, json::Path Path) {
  json::ObjectMapper O(V, Path);
  if (!(O && O.map("line", P.Line) && O.map("character", P.Character)))
    return false;
  if (P.Line < 0 || P.Character < 0) {
    Path.report("a position must not be negative");
    return false;
  }
  return true;
}
bool fromJSON(const json::Value &V, Range &R, json::Path Path) {
  json::ObjectMapper O(V, Path);
  return O && O.map("start", R.Start) && O.map("end", R.End);
}

size_t charLength(StringRef Text, size_t Offset) {
  return utf8CharLength(Text, Offset);
}

static int units16(size_t Bytes) { return utf16UnitsOfChar(Bytes); }

/// The offsets of the start of line \p Line and of its end (before "\r\n"
/// or "\n"); false when the text has fewer lines.
static bool lineBounds(StringRef Text, int Line, size_t &Begin, size_t &End) {
  Begin = 0;
  for (int L = 0; L < Line; ++L) {
    size_t NL = Text.find('\n', Begin);
    if (NL == StringRef::npos)
      return false;
    Begin = NL + 1;
  }
  End = Text.find('\n', Begin);
  if (End == StringRef::npos)
    End = Text.size();
  if (End > Begin && Text[End - 1] == '\r')
    --End;
  return true;
}

size_t offsetAt(StringRef Text, Position P) {
  size_t Begin, End;
  if (!lineBounds(Text, P.Line, Begin, End))
    return Text.size();
  size_t Off = Begin;
  int Units = 0;
  while (Off < End) {
    size_t N = charLength(Text, Off);
    if (Units + units16(N) > P.Character)
      break;
    Units += units16(N);
    Off += N;
  }
  return Off;
}

Position positionAt(StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  Position P;
  size_t LineStart = 0;
  for (size_t NL; (NL = Text.find('\n', LineStart)) < Offset;
       LineStart = NL + 1)
    ++P.Line;
  for (size_t Off = LineStart; Off < Offset;) {
    size_t N = charLength(Text, Off);
    if (Off + N > Offset)
      break;
    P.Character += units16(N);
    Off += N;
  }
  return P;
}

size_t offsetOfLineColumn(StringRef Text, unsigned Line, unsigned Column) {
  size_t Begin, End;
  if (Line == 0 || !lineBounds(Text, int(Line) - 1, Begin, End))
    return Text.size();
  size_t LineEnd = Text.find('\n', Begin);
  if (LineEnd == StringRef::npos)
    LineEnd = Text.size();
  return std::min(Begin + (Column ? Column - 1 : 0), LineEnd);
}

bool TextDocument::applyChange(const std::optional<Range> &R, StringRef NewText,
                               std::string &Error) {
  if (!R) {
    Text = NewText.str();
    return true;
  }
  if (R->End < R->Start) {
    Error = "the range's end (" + std::to_string(R->End.Line) + ":" +
            std::to_string(R->End.Character) + ") is before its start (" +
            std::to_string(R->Start.Line) + ":" +
            std::to_string(R->Start.Character) + ")";
    return false;
  }
  size_t B = offsetAt(Text, R->Start), E = offsetAt(Text, R->End);
  Text.replace(B, E - B, NewText.str());
  return true;
}

} // namespace lsp
} // namespace cudal1
