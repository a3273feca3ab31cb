//===- Transport.cpp - JSON-RPC messages framed by Content-Length ---------===//
#include "cudal1/LSP/Transport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {
namespace lsp {

MessageReader::MessageReader(std::FILE *In, size_t MaxBodyBytes)
    : In(In), MaxBodyBytes(MaxBodyBytes) {}

bool MessageReader::readLine(std::string &Line, bool &TooLong) {
  Line.clear();
  TooLong = false;
  if (HasPending) {
    Line = std::move(Pending);
    HasPending = false;
    return true;
  }
  bool Any = false;
  int C;
  while ((C = std::fgetc(In)) != EOF) {
    Any = true;
    if (C == '\n')
      break;
    if (Line.size() < MaxHeaderLine)
      Line.push_back(char(C));
    else
      TooLong = true;
  }
  if (!Line.empty() && Line.back() == '\r')
    Line.pop_back();
  return Any;
}

namespace {
/// Skips \p N bytes of input; false when it ends first.
bool skipBytes(std::FILE *In, size_t N) {
  char Buf[65536];
  while (N) {
    size_t Got = std::fread(Buf, 1, std::min(N, sizeof(Buf)), In);
    if (Got == 0)
      return false;
    N -= Got;
  }
  return true;
}
} // namespace

ReadResult MessageReader::read() {
  ReadResult R;
  std::string Line;
  bool TooLong = false;
  auto Junk = [&](std::string Why) {
    R.K = ReadResult::BadHeader;
    R.Error = std::move(Why);
    return R;
  };
  // Header lines up to an empty line. Junk lines are reported one per call
  // without losing a header already read (InHeader, Length persist).
  while (true) {
    if (!readLine(Line, TooLong)) {
      if (!InHeader)
        return R; // End
      InHeader = false;
      Length.reset();
      R.K = ReadResult::Truncated;
      R.Error = "the input ended inside a message's header";
      return R;
    }
    if (Line.empty() && !TooLong) {
      if (!InHeader)
        continue; // blank lines between messages
      break;
    }
    StringRef L(Line);
    // Junk (e.g. the rest of a body longer than its Content-Length) before
    // a header on the same line: report it, resume at the header.
    size_t At = L.find_insensitive("content-length:");
    if (At != StringRef::npos && At > 0) {
      Pending = L.substr(At).str();
      HasPending = true;
      return Junk("skipped " + std::to_string(At) +
                  " bytes of junk before a Content-Length header");
    }
    if (TooLong)
      return Junk("skipped a header line longer than " +
                  std::to_string(MaxHeaderLine) + " bytes");
    auto [Name, Value] = L.split(':');
    Name = Name.trim();
    if (Name.size() == L.size() || Name.empty() || Name.contains(' ') ||
        Name.contains('{') || Name.contains('"'))
      return Junk("skipped a malformed header line '" + L.take_front(60).str() +
                  "'");
    InHeader = true;
    if (Name.equals_insensitive("content-length")) {
      size_t N;
      if (Value.trim().getAsInteger(10, N)) {
        LengthError = "Content-Length '" + Value.trim().take_front(40).str() +
                      "' is not a number";
        Length.reset();
      } else {
        Length = N;
        LengthError.clear();
      }
    }
    // Content-Type and unknown headers are accepted and ignored.
  }
  std::optional<size_t> N = Length;
  std::string LengthWhy = std::move(LengthError);
  InHeader = false;
  Length.reset();
  LengthError.clear();
  if (!N)
    return Junk(LengthWhy.empty() ? "a header part without Content-Length"
                                  : LengthWhy);
  if (*N > MaxBodyBytes) {
    R.K = skipBytes(In, *N) ? ReadResult::TooLarge : ReadResult::Truncated;
    R.Error = "a message of " + std::to_string(*N) +
              " bytes exceeds the limit of " + std::to_string(MaxBodyBytes) +
              " bytes; it was skipped";
    return R;
  }
  R.Body.resize(*N);
  size_t Got = *N ? std::fread(&R.Body[0], 1, *N, In) : 0;
  if (Got != *N) {
    R.Body.clear();
    R.K = ReadResult::Truncated;
    R.Error = "the input ended after " + std::to_string(Got) + " of " +
              std::to_string(*N) + " bytes of a message";
    return R;
  }
  R.K = ReadResult::Message;
  return R;
}

std::string frame(StringRef Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" +
         Body.str();
}

void MessageWriter::send(const json::Value &Message) {
  std::string Body;
  raw_string_ostream OS(Body);
  OS << Message;
  OS.flush();
  std::lock_guard<std::mutex> Lock(M);
  Out << frame(Body);
  Out.flush();
}

} // namespace lsp
} // namespace cudal1
