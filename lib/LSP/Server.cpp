//===- Server.cpp - cuda-l1-lsp: messages, documents, code actions --------===//
#include "ServerImpl.h"
#include "cudal1/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace cudal1 {
namespace lsp {

Server::Server(ServerOptions O, MessageWriter &Out)
    : I(std::make_unique<Impl>(std::move(O), Out)) {}
Server::~Server() = default;
int Server::run(MessageReader &In) { return I->run(In); }

Server::Impl::Impl(ServerOptions Opts, MessageWriter &Out)
    : O(std::move(Opts)), Out(Out) {
  Worker = std::thread([this] { workerLoop(); });
}

Server::Impl::~Impl() {
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  CV.notify_all();
  Worker.join();
}

int Server::Impl::run(MessageReader &In) {
  while (!ExitReceived) {
    ReadResult R = In.read();
    switch (R.K) {
    case ReadResult::Message:
      handleBody(R.Body);
      break;
    case ReadResult::End:
      logError("the input ended without an exit notification");
      return 1;
    case ReadResult::Truncated:
      logError(R.Error);
      return 1;
    case ReadResult::BadHeader:
      send(errorResponse(nullptr, ErrorCode::ParseError,
                         "invalid message header: " + R.Error));
      break;
    case ReadResult::TooLarge:
      send(errorResponse(nullptr, ErrorCode::InvalidRequest, R.Error));
      break;
    }
  }
  return State == Phase::ShuttingDown ? 0 : 1;
}

void Server::Impl::logError(const std::string &Msg) {
  errs() << "cuda-l1-lsp: error: " << Msg << "\n";
  send(notification("window/logMessage",
                    json::Object{{"type", 1}, {"message", jsonText(Msg)}}));
}

void Server::Impl::logInfo(const std::string &Msg) {
  if (O.Verbose)
    errs() << "cuda-l1-lsp: " << Msg << "\n";
}

void Server::Impl::handleBody(StringRef Body) {
  Expected<json::Value> V = json::parse(Body);
  if (!V) {
    send(errorResponse(nullptr, ErrorCode::ParseError,
                       "invalid JSON: " + toString(V.takeError())));
    return;
  }
  const json::Object *Obj = V->getAsObject();
  if (!Obj) {
    send(errorResponse(nullptr, ErrorCode::InvalidRequest,
                       V->kind() == json::Value::Array
                           ? "a batch (JSON array) is not accepted: send one "
                             "message at a time"
                           : "a message must be a JSON object"));
    return;
  }
  handleMessage(*Obj);
}

void Server::Impl::handleMessage(const json::Object &Msg) {
  const json::Value *IdP = Msg.get("id");
  bool HasId = IdP && (IdP->kind() == json::Value::Number ||
                       IdP->kind() == json::Value::String);
  json::Value Id = HasId ? *IdP : json::Value(nullptr);
  if (IdP && !HasId) {
    send(errorResponse(nullptr, ErrorCode::InvalidRequest,
                       "\"id\" must be a number or a string"));
    return;
  }
  if (Msg.getString("jsonrpc") != StringRef("2.0")) {
    send(errorResponse(Id, ErrorCode::InvalidRequest,
                       "\"jsonrpc\" must be \"2.0\""));
    return;
  }
  std::optional<StringRef> Method = Msg.getString("method");
  if (!Method) {
    if (HasId && (Msg.get("result") || Msg.get("error"))) {
      logInfo("response to our request " + llvm::formatv("{0}", Id).str());
      return; // workspace/applyEdit's answer: nothing waits for it
    }
    send(errorResponse(Id, ErrorCode::InvalidRequest,
                       "a message without \"method\" that is no response"));
    return;
  }
  const json::Value *Params = Msg.get("params");
  json::Value P = Params ? *Params : json::Value(nullptr);
  if (Params && !Params->getAsObject() && !Params->getAsArray()) {
    if (HasId)
      send(errorResponse(Id, ErrorCode::InvalidRequest,
                         "\"params\" must be an object or an array"));
    else
      logError(Method->str() + ": \"params\" must be an object or an array");
    return;
  }
  logInfo("<-- " + Method->str());
  if (HasId)
    handleRequest(*Method, std::move(Id), P);
  else
    handleNotification(*Method, P);
}

void Server::Impl::handleRequest(StringRef Method, json::Value Id,
                                 const json::Value &Params) {
  if (Method == "initialize") {
    if (State != Phase::Uninitialized)
      return send(errorResponse(Id, ErrorCode::InvalidRequest,
                                "initialize was already received"));
    return onInitialize(std::move(Id), Params);
  }
  if (State == Phase::Uninitialized)
    return send(errorResponse(Id, ErrorCode::ServerNotInitialized,
                              "the server is not initialized: send "
                              "initialize first (got " +
                                  Method.str() + ")"));
  if (State == Phase::ShuttingDown)
    return send(errorResponse(Id, ErrorCode::InvalidRequest,
                              "the server is shutting down: only exit is "
                              "accepted (got " +
                                  Method.str() + ")"));
  if (Method == "shutdown") {
    State = Phase::ShuttingDown;
    std::lock_guard<std::mutex> L(M);
    for (ParkedAction &PA : Parked)
      send(errorResponse(PA.Id, ErrorCode::RequestCancelled,
                         "the server is shutting down"));
    Parked.clear();
    for (VerifyJob &J : Jobs)
      send(errorResponse(J.Id, ErrorCode::RequestCancelled,
                         "the server is shutting down"));
    Jobs.clear();
    Due.clear();
    return send(response(Id, nullptr));
  }
  if (Method == "textDocument/codeAction")
    return onCodeAction(std::move(Id), Params);
  if (Method == "workspace/executeCommand")
    return onExecuteCommand(std::move(Id), Params);
  send(errorResponse(Id, ErrorCode::MethodNotFound,
                     "method not found: " + Method.str()));
}

void Server::Impl::handleNotification(StringRef Method,
                                      const json::Value &Params) {
  if (Method == "exit") {
    ExitReceived = true;
    return;
  }
  if (State != Phase::Running) {
    logInfo("dropped " + Method.str() +
            (State == Phase::Uninitialized ? ": not initialized"
                                           : ": shutting down"));
    return;
  }
  if (Method == "textDocument/didOpen")
    return onDidOpen(Params);
  if (Method == "textDocument/didChange")
    return onDidChange(Params);
  if (Method == "textDocument/didSave")
    return onDidSave(Params);
  if (Method == "textDocument/didClose")
    return onDidClose(Params);
  if (Method == "$/cancelRequest")
    return onCancel(Params);
  // initialized, $/setTrace, workspace/didChangeConfiguration, ...: nothing
  // to do.
  logInfo("ignored " + Method.str());
}

void Server::Impl::onInitialize(json::Value Id, const json::Value &Params) {
  std::string Error;
  if (!decode(Params, Client, Error))
    return send(
        errorResponse(Id, ErrorCode::InvalidParams, "initialize: " + Error));
  State = Phase::Running;
  json::Object Caps{
      {"positionEncoding", "utf-16"},
      {"textDocumentSync",
       json::Object{{"openClose", true},
                    {"change", 2}, // incremental (full changes work too)
                    {"save", json::Object{{"includeText", false}}}}},
      {"codeActionProvider",
       json::Object{{"codeActionKinds", json::Array{"quickfix"}}}},
      {"executeCommandProvider",
       json::Object{{"commands", json::Array{verifyFixCommand()}}}}};
  send(response(Id, json::Object{{"capabilities", std::move(Caps)},
                                 {"serverInfo",
                                  json::Object{{"name", "cuda-l1-lsp"},
                                               {"version", CUDAL1_VERSION}}}}));
}

std::string Server::Impl::pathOf(StringRef Uri, std::string &Error) const {
  Expected<llvm::lsp::URIForFile> U = llvm::lsp::URIForFile::fromURI(Uri);
  if (!U) {
    Error = "'" + Uri.str() + "' is not a file URI: " + toString(U.takeError());
    return "";
  }
  SmallString<256> Path(U->file());
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real))
    return std::string(Real);
  return std::string(Path);
}

// ---- documents
// ----------------------------------------------------------------

void Server::Impl::onDidOpen(const json::Value &Params) {
  DidOpenParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return logError("textDocument/didOpen: " + Error);
  std::string Path = pathOf(P.TextDocument.Uri, Error);
  if (Path.empty())
    return logError("textDocument/didOpen: " + Error);
  std::lock_guard<std::mutex> L(M);
  DocState &D = Docs[Path];
  D = DocState();
  D.Doc.Uri = P.TextDocument.Uri;
  D.Doc.Path = Path;
  D.Doc.Text = std::move(P.TextDocument.Text);
  D.Doc.Version = P.TextDocument.Version;
  schedule(Path, 0);
}

void Server::Impl::onDidChange(const json::Value &Params) {
  DidChangeParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return logError("textDocument/didChange: " + Error);
  std::string Path = pathOf(P.Uri, Error);
  std::lock_guard<std::mutex> L(M);
  auto It = Docs.find(Path);
  if (Path.empty() || It == Docs.end())
    return logError("textDocument/didChange: " + P.Uri + " is not open");
  DocState &D = It->second;
  for (size_t I = 0; I < P.Changes.size(); ++I)
    if (!D.Doc.applyChange(P.Changes[I].R, P.Changes[I].Text, Error)) {
      logError("textDocument/didChange: " + P.Uri + ": change " +
               std::to_string(I) + " not applied: " + Error);
      break;
    }
  D.Doc.Version = P.Version;
  answerParked(Path, -1); // the ranges they asked about are gone
  schedule(Path, O.DebounceMs);
}

void Server::Impl::onDidSave(const json::Value &Params) {
  DocumentParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return logError("textDocument/didSave: " + Error);
  std::string Path = pathOf(P.Uri, Error);
  std::lock_guard<std::mutex> L(M);
  if (!Docs.count(Path))
    return logError("textDocument/didSave: " + P.Uri + " is not open");
  schedule(Path, 0); // headers or the configuration may have changed
}

void Server::Impl::onDidClose(const json::Value &Params) {
  DocumentParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return logError("textDocument/didClose: " + Error);
  std::string Path = pathOf(P.Uri, Error);
  std::lock_guard<std::mutex> L(M);
  auto It = Docs.find(Path);
  if (It == Docs.end())
    return logError("textDocument/didClose: " + P.Uri + " is not open");
  std::string Uri = It->second.Doc.Uri;
  Docs.erase(It);
  Due.erase(Path);
  FirstDue.erase(Path);
  answerParked(Path, -1);
  send(
      notification("textDocument/publishDiagnostics",
                   json::Object{{"uri", Uri}, {"diagnostics", json::Array()}}));
}

void Server::Impl::schedule(const std::string &Path, unsigned DelayMs) {
  Clock::time_point Now = Clock::now();
  auto First = FirstDue.emplace(Path, Now).first->second;
  // Debounced: each edit moves the analysis later, but never more than a
  // few debounce periods after the first edit that asked for it.
  Clock::time_point When =
      std::min(Now + std::chrono::milliseconds(DelayMs),
               First + std::chrono::milliseconds(4 * O.DebounceMs));
  Due[Path] = When;
  CV.notify_all();
}

void Server::Impl::onCancel(const json::Value &Params) {
  CancelParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return logError("$/cancelRequest: " + Error);
  std::lock_guard<std::mutex> L(M);
  for (auto It = Parked.begin(); It != Parked.end(); ++It)
    if (It->Id == P.Id) {
      send(errorResponse(It->Id, ErrorCode::RequestCancelled,
                         "cancelled by the client"));
      Parked.erase(It);
      return;
    }
  for (auto It = Jobs.begin(); It != Jobs.end(); ++It)
    if (It->Id == P.Id) {
      send(errorResponse(It->Id, ErrorCode::RequestCancelled,
                         "cancelled by the client"));
      Jobs.erase(It);
      return;
    }
  // Answered already, running, or unknown: nothing to cancel.
}

// ---- code actions
// -------------------------------------------------------------

std::optional<std::string> Server::Impl::textOf(const std::string &Path) {
  auto It = Docs.find(Path);
  if (It != Docs.end())
    return It->second.Doc.Text;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

ActionContext Server::Impl::actionContext(const DocState &D) {
  ActionContext C;
  C.Doc = &D.Doc;
  C.Lookup = [this](const std::string &Path) { return textOf(Path); };
  for (const auto &KV : Docs)
    C.OpenVersions[KV.first] = KV.second.Doc.Version;
  C.DocumentChanges = Client.DocumentChanges;
  C.DisabledSupport = Client.DisabledSupport;
  C.GpuConfigured = O.VerifyOnGpu;
  return C;
}

json::Value Server::Impl::actionsFor(const DocState &D,
                                     const CodeActionParams &P) {
  json::Array Actions;
  if (P.Only &&
      std::none_of(P.Only->begin(), P.Only->end(), [](const std::string &K) {
        return StringRef("quickfix").starts_with(K);
      }))
    return Actions;
  // The findings the client's diagnostics name (data), and every finding
  // whose range meets the range asked about.
  std::set<size_t> Wanted;
  for (const json::Value &Diag : P.Diagnostics) {
    const json::Object *Obj = Diag.getAsObject();
    const json::Object *Data = Obj ? Obj->getObject("data") : nullptr;
    if (!Data)
      continue;
    std::optional<int64_t> Index = Data->getInteger("index");
    std::optional<int64_t> Version = Data->getInteger("version");
    std::optional<StringRef> Rule = Data->getString("rule");
    if (Index && Version && Rule && *Version == D.AnalysedVersion &&
        *Index >= 0 && size_t(*Index) < D.Findings.size() &&
        D.Findings[*Index].RuleId == *Rule)
      Wanted.insert(*Index);
  }
  for (size_t I = 0; I < D.Findings.size(); ++I) {
    Range R = findingRange(D.Findings[I], D.Doc.Text);
    if (R.Start <= P.R.End && P.R.Start <= R.End)
      Wanted.insert(I);
  }
  ActionContext C = actionContext(D);
  for (size_t I : Wanted)
    for (json::Value &A : codeActions(D.Findings[I], D.Diagnostics[I], C))
      Actions.push_back(std::move(A));
  return Actions;
}

void Server::Impl::onCodeAction(json::Value Id, const json::Value &Params) {
  CodeActionParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return send(errorResponse(Id, ErrorCode::InvalidParams,
                              "textDocument/codeAction: " + Error));
  std::string Path = pathOf(P.Uri, Error);
  std::lock_guard<std::mutex> L(M);
  auto It = Docs.find(Path);
  if (Path.empty() || It == Docs.end())
    return send(
        errorResponse(Id, ErrorCode::InvalidParams,
                      "textDocument/codeAction: " + P.Uri + " is not open"));
  DocState &D = It->second;
  if (D.AnalysedVersion == D.Doc.Version)
    return send(response(Id, actionsFor(D, P)));
  // Not analysed yet: answered when the analysis of this version is done.
  // Someone waits: analyse now rather than after the debounce.
  Parked.push_back({std::move(Id), Path, D.Doc.Version, std::move(P)});
  schedule(Path, 0);
}

void Server::Impl::answerParked(const std::string &Path,
                                int64_t AnalysedVersion) {
  auto DIt = Docs.find(Path);
  for (auto It = Parked.begin(); It != Parked.end();) {
    if (It->Path != Path) {
      ++It;
      continue;
    }
    if (DIt != Docs.end() && AnalysedVersion != -1 &&
        It->Version == AnalysedVersion)
      send(response(It->Id, actionsFor(DIt->second, It->Params)));
    else if (DIt != Docs.end() && DIt->second.Doc.Version == It->Version) {
      ++It; // still waiting for its version
      continue;
    } else
      send(errorResponse(It->Id, ErrorCode::ContentModified,
                         "the document changed or closed before it was "
                         "analysed"));
    It = Parked.erase(It);
  }
}

void Server::Impl::onExecuteCommand(json::Value Id, const json::Value &Params) {
  ExecuteCommandParams P;
  std::string Error;
  if (!decode(Params, P, Error))
    return send(errorResponse(Id, ErrorCode::InvalidParams,
                              "workspace/executeCommand: " + Error));
  if (P.Command != verifyFixCommand())
    return send(errorResponse(Id, ErrorCode::InvalidParams,
                              "unknown command '" + P.Command + "'"));
  VerifyJob J;
  if (P.Arguments.size() != 1 || !decode(P.Arguments[0], J.Args, Error))
    return send(errorResponse(Id, ErrorCode::InvalidParams,
                              std::string(verifyFixCommand()) +
                                  " takes one argument {uri, "
                                  "version, rule, offset}" +
                                  (Error.empty() ? "" : ": " + Error)));
  if (!O.VerifyOnGpu)
    return send(errorResponse(
        Id, ErrorCode::RequestFailed,
        "GPU verification is not configured: start cuda-l1-lsp with "
        "--verify-on-gpu on a machine with an NVIDIA GPU, or run "
        "cuda-l1-rewrite --verify=run --fix on the file"));
  J.Id = std::move(Id);
  std::lock_guard<std::mutex> L(M);
  Jobs.push_back(std::move(J));
  CV.notify_all();
}

} // namespace lsp
} // namespace cudal1
