//===- ServerImpl.h - the language server's state (private) -----*- C++ -*-===//
//
// Server.cpp: messages, documents, code actions (the reader thread).
// ServerWorker.cpp: analyses and GPU verifications (the worker thread).
// Everything below the mutex M is shared between them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_LSP_SERVERIMPL_H
#define CUDAL1_LIB_LSP_SERVERIMPL_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/LSP/Diagnostics.h"
#include "cudal1/LSP/Protocol.h"
#include "cudal1/LSP/Server.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace cudal1 {
namespace lsp {

using Clock = std::chrono::steady_clock;

/// An open document and what its last analysis found.
struct DocState {
  TextDocument Doc;
  int64_t AnalysedVersion = -1; ///< the version Findings belong to
  std::vector<Finding> Findings;
  /// As published, one per finding (then possibly one parse/config
  /// diagnostic, which has no finding).
  std::vector<llvm::json::Value> Diagnostics;
};

/// A code action request waiting for the analysis of its version.
struct ParkedAction {
  llvm::json::Value Id;
  std::string Path;
  int64_t Version;
  CodeActionParams Params;
};

/// A "verify on the GPU" command waiting for the worker.
struct VerifyJob {
  llvm::json::Value Id = nullptr;
  VerifyFixArgs Args;
};

class Server::Impl {
public:
  Impl(ServerOptions O, MessageWriter &Out);
  ~Impl();
  int run(MessageReader &In);

  // --- Server.cpp: the reader thread ---------------------------------------
  void handleBody(llvm::StringRef Body);
  void handleMessage(const llvm::json::Object &Msg);
  void handleRequest(llvm::StringRef Method, llvm::json::Value Id,
                     const llvm::json::Value &Params);
  void handleNotification(llvm::StringRef Method,
                          const llvm::json::Value &Params);
  void onInitialize(llvm::json::Value Id, const llvm::json::Value &Params);
  void onCodeAction(llvm::json::Value Id, const llvm::json::Value &Params);
  void onExecuteCommand(llvm::json::Value Id, const llvm::json::Value &Params);
  void onDidOpen(const llvm::json::Value &Params);
  void onDidChange(const llvm::json::Value &Params);
  void onDidSave(const llvm::json::Value &Params);
  void onDidClose(const llvm::json::Value &Params);
  void onCancel(const llvm::json::Value &Params);

  /// The canonical path of a file: URI ("" and \p Error when it is not one).
  std::string pathOf(llvm::StringRef Uri, std::string &Error) const;
  /// Logs on stderr and tells the client (window/logMessage).
  void logError(const std::string &Msg);
  void logInfo(const std::string &Msg);
  void send(const llvm::json::Value &V) { Out.send(V); }

  // --- with M held -----------------------------------------------------------
  void schedule(const std::string &Path, unsigned DelayMs);
  /// The code actions for \p P on the analysed document \p D.
  llvm::json::Value actionsFor(const DocState &D, const CodeActionParams &P);
  /// Answers the parked code actions of \p Path: those for \p Version (or
  /// all when it is -1) with their actions, older ones ContentModified.
  void answerParked(const std::string &Path, int64_t AnalysedVersion);
  ActionContext actionContext(const DocState &D);
  std::optional<std::string> textOf(const std::string &Path);

  // --- ServerWorker.cpp: the worker thread -----------------------------------
  void workerLoop();
  void analyze(const std::string &Path);
  void verify(const VerifyJob &Job);
  /// The options of one analysis of \p Path with \p Overlay.
  Options optionsFor(const std::string &Path,
                     std::map<std::string, std::string> Overlay);
  std::string buildPathFor(const std::string &Path);
  /// Stores and publishes the results of an analysis of \p Snapshot, unless
  /// the document changed or closed meanwhile (M held).
  void publish(const TextDocument &Snapshot, std::vector<Finding> Findings,
               std::optional<llvm::json::Value> Extra);

  ServerOptions O;
  MessageWriter &Out;
  enum class Phase { Uninitialized, Running, ShuttingDown };
  Phase State = Phase::Uninitialized; ///< reader thread only
  bool ExitReceived = false;
  InitializeParams Client;

  std::mutex M;
  std::condition_variable CV;
  std::map<std::string, DocState> Docs; ///< by canonical path
  std::vector<ParkedAction> Parked;
  std::deque<VerifyJob> Jobs;
  std::map<std::string, Clock::time_point> Due, FirstDue;
  bool Stop = false;
  int NextOutgoingId = 1;
  std::thread Worker;
};

} // namespace lsp
} // namespace cudal1

#endif
