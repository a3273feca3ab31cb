//===- Protocol.h - the LSP messages cuda-l1-lsp reads and writes -*- C++
//-*-===//
//
// JSON-RPC 2.0 error codes and responses, and the parameters of the
// requests and notifications the server handles, decoded with
// llvm::json::ObjectMapper (a message that does not decode is answered with
// InvalidParams naming the path of the bad field, e.g.
// "expected integer at params.contentChanges[0].range.start.line").
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LSP_PROTOCOL_H
#define CUDAL1_LSP_PROTOCOL_H

#include "cudal1/LSP/Text.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {
namespace lsp {

/// JSON-RPC and LSP error codes.
enum class ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

/// \p Text as a JSON string: unchanged when it is UTF-8, else with every
/// invalid byte replaced by U+FFFD. For messages that quote what the client
/// or a file on disk sent (a header, a source line in another encoding):
/// JSON strings must be UTF-8, and LLVM's JSON library aborts on anything
/// else in builds with assertions.
std::string jsonText(llvm::StringRef Text);

/// {"jsonrpc": "2.0", "id": Id, "result": Result}
llvm::json::Value response(llvm::json::Value Id, llvm::json::Value Result);
/// {"jsonrpc": "2.0", "id": Id, "error": {"code": C, "message": M}}
llvm::json::Value errorResponse(llvm::json::Value Id, ErrorCode C,
                                llvm::StringRef Message);
/// {"jsonrpc": "2.0", "method": M, "params": P}
llvm::json::Value notification(llvm::StringRef Method,
                               llvm::json::Value Params);
/// {"jsonrpc": "2.0", "id": Id, "method": M, "params": P}
llvm::json::Value request(llvm::json::Value Id, llvm::StringRef Method,
                          llvm::json::Value Params);

/// Decodes \p V into \p Out; false with \p Error naming the bad field.
template <typename T>
bool decode(const llvm::json::Value &V, T &Out, std::string &Error) {
  llvm::json::Path::Root Root("params");
  if (fromJSON(V, Out, Root))
    return true;
  Error = llvm::toString(Root.getError());
  return false;
}

struct InitializeParams {
  bool DocumentChanges = false; ///< workspace.workspaceEdit.documentChanges
  bool DisabledSupport = false; ///< textDocument.codeAction.disabledSupport
  /// initializationOptions (clangd's names): compilationDatabasePath,
  /// fallbackFlags.
  std::string CompilationDatabasePath;
  std::vector<std::string> FallbackFlags;
};
bool fromJSON(const llvm::json::Value &V, InitializeParams &P,
              llvm::json::Path Path);

struct TextDocumentItem {
  std::string Uri, LanguageId, Text;
  int64_t Version = 0;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentItem &P,
              llvm::json::Path Path);

struct DidOpenParams {
  TextDocumentItem TextDocument;
};
bool fromJSON(const llvm::json::Value &V, DidOpenParams &P,
              llvm::json::Path Path);

struct ContentChange {
  std::optional<Range> R; ///< absent: the whole text
  std::string Text;
};
struct DidChangeParams {
  std::string Uri;
  int64_t Version = 0;
  std::vector<ContentChange> Changes;
};
bool fromJSON(const llvm::json::Value &V, DidChangeParams &P,
              llvm::json::Path Path);

/// didSave, didClose: only the document.
struct DocumentParams {
  std::string Uri;
};
bool fromJSON(const llvm::json::Value &V, DocumentParams &P,
              llvm::json::Path Path);

struct CodeActionParams {
  std::string Uri;
  Range R;
  std::vector<llvm::json::Value> Diagnostics;   ///< context.diagnostics
  std::optional<std::vector<std::string>> Only; ///< context.only
};
bool fromJSON(const llvm::json::Value &V, CodeActionParams &P,
              llvm::json::Path Path);

struct ExecuteCommandParams {
  std::string Command;
  std::vector<llvm::json::Value> Arguments;
};
bool fromJSON(const llvm::json::Value &V, ExecuteCommandParams &P,
              llvm::json::Path Path);

/// The argument of cuda-l1.verifyFix.
struct VerifyFixArgs {
  std::string Uri, Rule;
  int64_t Version = 0;
  unsigned Offset = 0;
};
bool fromJSON(const llvm::json::Value &V, VerifyFixArgs &P,
              llvm::json::Path Path);

struct CancelParams {
  llvm::json::Value Id = nullptr;
};
bool fromJSON(const llvm::json::Value &V, CancelParams &P,
              llvm::json::Path Path);

} // namespace lsp
} // namespace cudal1

#endif
