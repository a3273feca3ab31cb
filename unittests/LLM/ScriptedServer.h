//===- ScriptedServer.h - test/LLM/Inputs/scripted_server.py from a test --===//
//
// Starts the scripted OpenAI-compatible server (Python standard library
// only) on 127.0.0.1 with a free port, with a script written by the test,
// and stops it when destroyed. The log of the requests it received is read
// back as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_UNITTESTS_LLM_SCRIPTEDSERVER_H
#define CUDAL1_UNITTESTS_LLM_SCRIPTEDSERVER_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace cudal1 {
namespace test {

class ScriptedServer {
public:
  /// \p Script: the script's JSON text. \p KeyEnv: the variable holding the
  /// key the server expects ("" = none).
  explicit ScriptedServer(const std::string &Script,
                          const std::string &KeyEnv = "") {
    // Requests to 127.0.0.1 never go through a proxy of the environment.
    ::setenv("no_proxy", "127.0.0.1,localhost", 1);
    ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    llvm::sys::fs::createUniqueDirectory("cudal1-llm-server", Dir);
    std::string ScriptPath = path("script.json");
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(ScriptPath, EC);
      OS << Script;
    }
    auto Py = llvm::sys::findProgramByName("python3");
    if (!Py) {
      Error = "python3 not found";
      return;
    }
    std::string Server =
        std::string(CUDAL1_SOURCE_DIR) + "/test/LLM/Inputs/scripted_server.py";
    std::vector<std::string> Args = {*Py,           Server,
                                     "serve",       "--script",
                                     ScriptPath,    "--port-file",
                                     path("port"),  "--log",
                                     path("log.jsonl")};
    if (!KeyEnv.empty()) {
      Args.push_back("--expect-key-env");
      Args.push_back(KeyEnv);
    }
    std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
    PI = llvm::sys::ExecuteNoWait(*Py, Refs, std::nullopt, {}, 0, &Error);
    for (int I = 0; I < 200 && Port.empty(); ++I) {
      if (auto B = llvm::MemoryBuffer::getFile(path("port")))
        Port = (*B)->getBuffer().trim().str();
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (Port.empty() && Error.empty())
      Error = "the scripted server did not start";
  }
  ~ScriptedServer() {
    if (PI.Pid > 0) {
      ::kill(PI.Pid, SIGTERM);
      llvm::sys::Wait(PI, std::nullopt);
    }
    llvm::sys::fs::remove_directories(Dir);
  }
  bool ok() const { return !Port.empty(); }
  std::string endpoint() const { return "http://127.0.0.1:" + Port + "/v1"; }
  std::string path(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  /// The requests logged so far.
  std::vector<llvm::json::Value> requests() const {
    std::vector<llvm::json::Value> Out;
    auto B = llvm::MemoryBuffer::getFile(path("log.jsonl"));
    if (!B)
      return Out;
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    (*B)->getBuffer().split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines)
      if (auto V = llvm::json::parse(L))
        Out.push_back(std::move(*V));
      else
        llvm::consumeError(V.takeError());
    return Out;
  }

  std::string Error;

private:
  llvm::SmallString<256> Dir;
  std::string Port;
  llvm::sys::ProcessInfo PI;
};

} // namespace test
} // namespace cudal1

#endif
