//===- ServerWorker.cpp - cuda-l1-lsp: analyses and GPU verifications -----===//
//
// The worker thread: one analysis at a time, the due ones in order of their
// time, each on a snapshot of the open documents (the overlay), published
// only if the document is still at the version analysed.
//
//===----------------------------------------------------------------------===//
#include "ServerImpl.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {
namespace lsp {

void Server::Impl::workerLoop() {
  std::unique_lock<std::mutex> L(M);
  while (!Stop) {
    if (!Jobs.empty()) {
      VerifyJob J = std::move(Jobs.front());
      Jobs.pop_front();
      L.unlock();
      verify(J);
      L.lock();
      continue;
    }
    if (Due.empty()) {
      CV.wait(L);
      continue;
    }
    auto Next = std::min_element(
        Due.begin(), Due.end(),
        [](const auto &A, const auto &B) { return A.second < B.second; });
    if (Next->second > Clock::now()) {
      CV.wait_until(L, Next->second);
      continue;
    }
    std::string Path = Next->first;
    Due.erase(Next);
    FirstDue.erase(Path);
    L.unlock();
    analyze(Path);
    L.lock();
  }
}

std::string Server::Impl::buildPathFor(const std::string &Path) {
  if (!O.Base.BuildPath.empty())
    return O.Base.BuildPath;
  if (!Client.CompilationDatabasePath.empty())
    return Client.CompilationDatabasePath;
  // Looked up for every analysis (a few stat calls): a database generated
  // while the editor is open is used from the next analysis on.
  for (StringRef D = sys::path::parent_path(Path); !D.empty();
       D = sys::path::parent_path(D))
    for (const char *Sub : {"", "build"}) {
      SmallString<256> P(D);
      sys::path::append(P, Sub, "compile_commands.json");
      if (sys::fs::exists(P))
        return sys::path::parent_path(P).str();
    }
  return "";
}

Options Server::Impl::optionsFor(const std::string &Path,
                                 std::map<std::string, std::string> Overlay) {
  Options Opt = O.Base;
  Opt.Files = {Path};
  Opt.Overlay = std::move(Overlay);
  Opt.Quiet = true;
  Opt.Jobs = 1;
  Opt.BuildPath = buildPathFor(Path);
  if (Opt.BuildPath.empty())
    Opt.CompilerArgs.insert(Opt.CompilerArgs.end(),
                            Client.FallbackFlags.begin(),
                            Client.FallbackFlags.end());
  return Opt;
}

void Server::Impl::analyze(const std::string &Path) {
  TextDocument Snapshot;
  std::map<std::string, std::string> Overlay;
  {
    std::lock_guard<std::mutex> L(M);
    auto It = Docs.find(Path);
    if (It == Docs.end())
      return;
    Snapshot = It->second.Doc;
    for (const auto &KV : Docs)
      Overlay[KV.first] = KV.second.Doc.Text;
  }
  logInfo(formatv("analysing {0} (version {1})", Path, Snapshot.Version));
  Pipeline P(optionsFor(Path, std::move(Overlay)));
  std::vector<Finding> Findings;
  std::optional<json::Value> Extra;
  const ConfigStore::Entry &Config = P.configs().forFile(Path);
  if (!Config.Ok) {
    // A bad .cuda-l1.yaml: nothing is analysed; say so at the top.
    Extra = json::Object{
        {"range", toJSON(Range())},
        {"severity", 1},
        {"code", "config-error"},
        {"source", "cuda-l1"},
        {"message",
         jsonText("not analysed by cuda-l1: bad configuration: " +
                  Config.message())}};
  } else {
    AnalysisRun Run = P.analyze(/*CollectKernels=*/false);
    for (Finding &F : Run.Findings)
      if (F.Loc.File == Path)
        Findings.push_back(std::move(F));
    std::vector<ParseProblem> Problems;
    for (const ParseProblem &PP : Run.Status.Problems)
      if (PP.MainFile == Path)
        Problems.push_back(PP);
    if (Run.Status.Failed) {
      std::lock_guard<std::mutex> L(M);
      Extra = parseFailureDiagnostic(
          Problems, Snapshot,
          [this](const std::string &F) { return textOf(F); });
    } else if (P.inputStatus()) {
      Extra = json::Object{
          {"range", toJSON(Range())},
          {"severity", 2},
          {"code", "input-error"},
          {"source", "cuda-l1"},
          {"message", "cuda-l1: the compilation database or a rule file is "
                      "unusable; the server's log (stderr) says why"}};
    }
  }
  std::lock_guard<std::mutex> L(M);
  publish(Snapshot, std::move(Findings), std::move(Extra));
}

void Server::Impl::publish(const TextDocument &Snapshot,
                           std::vector<Finding> Findings,
                           std::optional<json::Value> Extra) {
  auto It = Docs.find(Snapshot.Path);
  if (It == Docs.end() || It->second.Doc.Version != Snapshot.Version) {
    logInfo(formatv("dropped the analysis of {0} version {1}: changed or "
                    "closed meanwhile",
                    Snapshot.Path, Snapshot.Version));
    return;
  }
  DocState &D = It->second;
  D.Findings = std::move(Findings);
  D.AnalysedVersion = Snapshot.Version;
  D.Diagnostics.clear();
  TextLookup Lookup = [this](const std::string &F) { return textOf(F); };
  for (size_t I = 0; I < D.Findings.size(); ++I)
    D.Diagnostics.push_back(
        findingDiagnostic(D.Findings[I], I, D.Doc, Lookup, O.DocsBase));
  json::Array All;
  for (const json::Value &Diag : D.Diagnostics)
    All.push_back(Diag);
  if (Extra)
    All.push_back(std::move(*Extra));
  send(notification("textDocument/publishDiagnostics",
                    json::Object{{"uri", D.Doc.Uri},
                                 {"version", D.Doc.Version},
                                 {"diagnostics", std::move(All)}}));
  answerParked(Snapshot.Path, Snapshot.Version);
}

void Server::Impl::verify(const VerifyJob &Job) {
  auto Fail = [&](ErrorCode C, const std::string &Why) {
    send(errorResponse(Job.Id, C, Why));
  };
  std::string Error;
  std::string Path = pathOf(Job.Args.Uri, Error);
  std::map<std::string, std::string> Overlay;
  {
    std::lock_guard<std::mutex> L(M);
    auto It = Docs.find(Path);
    if (It == Docs.end() || It->second.Doc.Version != Job.Args.Version)
      return Fail(ErrorCode::ContentModified,
                  "the document changed or closed since the fix was offered");
    for (const auto &KV : Docs)
      Overlay[KV.first] = KV.second.Doc.Text;
  }
  Options Opt = optionsFor(Path, std::move(Overlay));
  Opt.Verify = VerifyLevel::Run;
  Opt.Quiet = false; // the verifier's progress goes to the log
  Pipeline P(Opt);
  AnalysisRun Run = P.analyze(/*CollectKernels=*/true);
  auto FIt = std::find_if(Run.Findings.begin(), Run.Findings.end(),
                          [&](const Finding &F) {
                            return F.RuleId == Job.Args.Rule &&
                                   F.Offset == Job.Args.Offset && F.Fix;
                          });
  if (FIt == Run.Findings.end())
    return Fail(ErrorCode::RequestFailed,
                "the finding is no longer there: re-analyse and try again");
  AnalysisRun One;
  One.Findings = {*FIt};
  One.Kernels = std::move(Run.Kernels);
  FixVerifyResult V = P.verifyFixes(One);
  auto D = V.Decisions.find(0);
  if (V.Status == 2 || D == V.Decisions.end())
    return Fail(ErrorCode::RequestFailed,
                "the fix could not be verified (no GPU, or bad input): the "
                "server's log (stderr) says why");
  const FixDecision &Dec = D->second;
  if (!Dec.Apply) {
    send(notification(
        "window/showMessage",
        json::Object{{"type", 2},
                     {"message", jsonText("cuda-l1: not applied: " + Dec.Why)}}));
    return send(response(
        Job.Id, json::Object{{"applied", false}, {"verdict", jsonText(Dec.Why)}}));
  }
  std::vector<TextEdit> Edits = FIt->Fix->Edits;
  if (Dec.Annotation)
    Edits.push_back(*Dec.Annotation);
  std::lock_guard<std::mutex> L(M);
  auto It = Docs.find(Path);
  if (It == Docs.end() || It->second.Doc.Version != Job.Args.Version)
    return Fail(ErrorCode::ContentModified,
                "the document changed while the fix was verified");
  std::optional<json::Value> Edit =
      workspaceEdit(Edits, actionContext(It->second), Error);
  if (!Edit)
    return Fail(ErrorCode::InternalError, Error);
  send(request("cuda-l1-" + std::to_string(NextOutgoingId++),
               "workspace/applyEdit",
               json::Object{{"label", jsonText("cuda-l1: " + FIt->Fix->Description)},
                            {"edit", std::move(*Edit)}}));
  send(response(Job.Id,
                json::Object{{"applied", true}, {"verdict", jsonText(Dec.Why)}}));
}

} // namespace lsp
} // namespace cudal1
