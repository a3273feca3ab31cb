//===- Server.h - cuda-l1-lsp: the language server ---------------*- C++
//-*-===//
//
// A Language Server over JSON-RPC (Transport.h) that analyses the editor's
// buffers with the pipeline (cudal1/Driver/Pipeline.h) and publishes the
// findings as diagnostics with quick fixes (Diagnostics.h). It never writes
// a file: fixes go to the editor as workspace edits.
//
// Threads: the caller's thread reads and dispatches messages; one worker
// thread runs the analyses (debounced after edits, at once after open and
// save) and GPU verifications. An analysis whose document changed or closed
// while it ran is dropped; code actions asked for a version not yet
// analysed wait for it and can be cancelled ($/cancelRequest), and are
// answered ContentModified when the document changes first.
//
// Order of messages: requests before `initialize` are answered
// ServerNotInitialized, a second `initialize` and requests after `shutdown`
// InvalidRequest; notifications before `initialize` are dropped, except
// `exit`. Malformed input (bad framing, oversized bodies, invalid JSON,
// non-objects, missing fields) is answered with the JSON-RPC error that
// fits, and the server keeps running.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LSP_SERVER_H
#define CUDAL1_LSP_SERVER_H

#include "cudal1/Driver/Options.h"
#include "cudal1/LSP/Transport.h"

#include <memory>

namespace cudal1 {
namespace lsp {

struct ServerOptions {
  /// What every analysis uses (rules, configuration, CUDA, compiler
  /// arguments); Files and Overlay are filled per analysis. An empty
  /// BuildPath: the nearest compile_commands.json above each file (or in a
  /// build/ folder beside one of its parents), as clangd looks for it.
  Options Base;
  unsigned DebounceMs = 300;
  size_t MaxMessageBytes = 64u << 20;
  /// Base URL of the rule pages (codeDescription.href); "" = none.
  std::string DocsBase;
  /// A GPU is available: the "verify on GPU" code actions run
  /// --verify=run and apply the fix when it is accepted.
  bool VerifyOnGpu = false;
  /// Log every message's method on stderr.
  bool Verbose = false;
};

class Server {
public:
  Server(ServerOptions O, MessageWriter &Out);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /// Reads and handles messages until `exit` or the end of the input;
  /// returns the exit status (0 after shutdown + exit, else 1).
  int run(MessageReader &In);

private:
  class Impl;
  std::unique_ptr<Impl> I;
};

} // namespace lsp
} // namespace cudal1

#endif
