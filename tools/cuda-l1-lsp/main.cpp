//===- cuda-l1-lsp - the language server of cuda-l1 -----------------------===//
//
// cuda-l1-lsp [options] [-- <compiler args>]
// Speaks the Language Server Protocol on stdin/stdout (docs/editors.md):
// diagnostics for the findings of the editor's CUDA buffers, quick fixes,
// suppressions. Only LSP messages go to stdout; everything else (clang's
// errors, the verifier's progress, the log) goes to stderr.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Config.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/LSP/Server.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace llvm;
using namespace cudal1;

namespace {
cl::OptionCategory Cat("cuda-l1-lsp options");
cl::opt<std::string> BuildPath(
    "p",
    cl::desc("Folder with compile_commands.json (default: the nearest one "
             "above each file, or in a build/ folder beside a parent)"),
    cl::value_desc("dir"), cl::cat(Cat));
cl::alias BuildPathAlias("compile-commands-dir", cl::aliasopt(BuildPath),
                         cl::desc("Alias for -p (clangd's name)"));
cl::opt<std::string> CudaPathOpt("cuda-path",
                                 cl::desc("CUDA toolkit root (default: "
                                          "$CUDA_PATH, then /usr/local/cuda)"),
                                 cl::value_desc("dir"), cl::cat(Cat));
cl::opt<std::string>
    GpuArch("cuda-gpu-arch",
            cl::desc("GPU architecture to parse for (default: the compilation "
                     "database's, else sm_90)"),
            cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(Cat));
cl::opt<std::string> RulesOpt("rules",
                              cl::desc("Rules to run, clang-tidy globs "
                                       "(added to the configuration's)"),
                              cl::value_desc("globs"), cl::cat(Cat));
cl::list<std::string> RuleFiles("rule-file",
                                cl::desc("Load a YAML rule file (repeatable)"),
                                cl::value_desc("yaml"), cl::cat(Cat));
cl::opt<std::string> ConfigFile(
    "config-file",
    cl::desc("Configuration file (default: the nearest .cuda-l1.yaml)"),
    cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Findings of these rules (globs) are shown as errors"),
    cl::value_desc("globs"), cl::cat(Cat));
cl::opt<std::string> RuleDocsUrl(
    "rule-docs-url",
    cl::desc("Base URL of the rule pages (docs/rules/) that diagnostics "
             "link to (default: the installed or source copy, as file://)"),
    cl::value_desc("url"), cl::cat(Cat));
cl::opt<unsigned> DebounceMs(
    "debounce-ms",
    cl::desc("Wait this long after an edit before analysing (default 300)"),
    cl::init(300), cl::cat(Cat));
cl::opt<unsigned> MaxMessageKiB(
    "max-message-kib",
    cl::desc("Largest message accepted, in KiB (default 65536); larger ones "
             "are skipped with an error"),
    cl::init(65536), cl::cat(Cat));
cl::opt<bool> VerifyOnGpu(
    "verify-on-gpu",
    cl::desc("A GPU is available: the 'verify on the GPU' code actions run "
             "--verify=run and apply the fix when it is accepted"),
    cl::cat(Cat));
cl::opt<bool> Verbose("verbose", cl::desc("Log every message on stderr"),
                      cl::cat(Cat));
} // namespace

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  std::vector<const char *> OurArgs;
  std::vector<std::string> CompilerArgs;
  bool SeenDashDash = false;
  for (int I = 0; I < argc; ++I) {
    if (!SeenDashDash && I > 0 && StringRef(argv[I]) == "--") {
      SeenDashDash = true;
      continue;
    }
    if (SeenDashDash)
      CompilerArgs.push_back(argv[I]);
    else
      OurArgs.push_back(argv[I]);
  }
  cl::HideUnrelatedOptions(Cat);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "cuda-l1-lsp " CUDAL1_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
  });
  if (!cl::ParseCommandLineOptions(
          OurArgs.size(), OurArgs.data(),
          "cuda-l1-lsp: the cuda-l1 language server (stdin/stdout)\n"))
    return 2;

  lsp::ServerOptions SO;
  Options &O = SO.Base;
  O.BuildPath = BuildPath;
  O.CudaPath = findCudaPath(CudaPathOpt);
  O.GpuArch = GpuArch;
  O.GpuArchExplicit = GpuArch.getNumOccurrences() > 0;
  O.ResourceDir = findResourceDir(argv[0], (void *)&main);
  O.CompilerArgs = CompilerArgs;
  O.Rules = RulesOpt;
  O.RuleFiles.assign(RuleFiles.begin(), RuleFiles.end());
  O.ConfigFile = ConfigFile;
  if (WarningsAsErrors.getNumOccurrences())
    O.WarningsAsErrors = WarningsAsErrors;
  SO.DebounceMs = DebounceMs;
  SO.MaxMessageBytes = size_t(MaxMessageKiB) * 1024;
  SO.DocsBase = RuleDocsUrl.getNumOccurrences()
                    ? std::string(RuleDocsUrl)
                    : defaultRuleDocsBase(argv[0], (void *)&main);
  SO.VerifyOnGpu = VerifyOnGpu;
  SO.Verbose = Verbose;

  // stdout carries the protocol alone: keep it for the transport and send
  // whatever else would be printed there to stderr.
  std::fflush(stdout);
  int ProtocolFd = dup(STDOUT_FILENO);
  if (ProtocolFd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    errs() << "cuda-l1-lsp: error: cannot set up stdout for the protocol\n";
    return 2;
  }
  raw_fd_ostream ProtocolOut(ProtocolFd, /*shouldClose=*/true);
  lsp::MessageWriter Writer(ProtocolOut);
  lsp::MessageReader Reader(stdin, SO.MaxMessageBytes);
  int RC;
  {
    lsp::Server S(std::move(SO), Writer);
    RC = S.run(Reader);
    ProtocolOut.flush();
    errs().flush();
    // An analysis may still be running: the process ends without waiting
    // for it (nothing is written to disk by the server).
    std::_Exit(RC);
  }
}
