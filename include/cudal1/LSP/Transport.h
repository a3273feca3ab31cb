//===- Transport.h - JSON-RPC messages framed by Content-Length -*- C++ -*-===//
//
// The base protocol of the Language Server Protocol: each message is a
// header part ("Content-Length: <n>\r\n", optionally other headers, then an
// empty line) and a body of exactly n bytes of JSON. The reader never trusts
// the input: a header part without a usable Content-Length, a body larger
// than the limit, junk between messages and a stream that ends in the middle
// of a message are each reported as such (the server answers them with an
// error and goes on reading); the body is returned as text for llvm::json.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LSP_TRANSPORT_H
#define CUDAL1_LSP_TRANSPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace cudal1 {
namespace lsp {

/// What one MessageReader::read() found.
struct ReadResult {
  enum Kind {
    Message,   ///< Body holds one message's JSON text
    End,       ///< the input ended between messages
    BadHeader, ///< a header part without a usable Content-Length, or junk
    TooLarge,  ///< a body over the limit; it was read and dropped
    Truncated, ///< the input ended inside a message
  };
  Kind K = End;
  std::string Body;
  std::string Error; ///< for everything but Message and End: what was wrong
};

class MessageReader {
public:
  /// Reads from \p In (not owned). Bodies over \p MaxBodyBytes are skipped
  /// without being kept in memory.
  MessageReader(std::FILE *In, size_t MaxBodyBytes);
  ReadResult read();

  /// Longest header line accepted; longer ones are junk.
  static constexpr size_t MaxHeaderLine = 8192;

private:
  /// One line without its "\n" (and "\r"); false at the end of the input
  /// before any byte. \p TooLong: the line was cut at MaxHeaderLine.
  bool readLine(std::string &Line, bool &TooLong);
  std::FILE *In;
  size_t MaxBodyBytes;
  /// The rest of a line in which junk preceded a "Content-Length:" header:
  /// read first by the next call.
  std::string Pending;
  bool HasPending = false;
  /// The header part being read (kept across calls that report junk).
  bool InHeader = false;
  std::optional<size_t> Length;
  std::string LengthError;
};

/// Writes messages with their header; safe to call from several threads.
class MessageWriter {
public:
  explicit MessageWriter(llvm::raw_ostream &Out) : Out(Out) {}
  void send(const llvm::json::Value &Message);

private:
  llvm::raw_ostream &Out;
  std::mutex M;
};

/// "Content-Length: <n>\r\n\r\n<body>".
std::string frame(llvm::StringRef Body);

} // namespace lsp
} // namespace cudal1

#endif
