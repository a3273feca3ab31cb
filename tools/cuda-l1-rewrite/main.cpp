//===- cuda-l1-rewrite - make CUDA code faster, and prove it --------------===//
//
// The command-line driver: shared options, the frontend, and dispatch to the
// mode asked for. See docs/usage.md for every option.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "cudal1/Config.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {
cl::OptionCategory ToolCategory("cuda-l1-rewrite options");

cl::opt<OutputFormat> Format(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "readable text"),
               clEnumValN(OutputFormat::Json, "json", "JSON document"),
               clEnumValN(OutputFormat::Sarif, "sarif", "SARIF 2.1.0 (findings)")),
    cl::init(OutputFormat::Text), cl::cat(ToolCategory));
cl::opt<std::string> OutputDir("o", cl::desc("Write output files under <dir>"),
                               cl::value_desc("dir"), cl::cat(ToolCategory));
cl::opt<bool> Quiet("quiet", cl::desc("Print only results and errors"),
                    cl::cat(ToolCategory));
cl::opt<unsigned> Jobs("j", cl::desc("Parse this many files at once"),
                       cl::value_desc("n"), cl::init(1), cl::cat(ToolCategory));
cl::opt<VerifyLevel> VerifyMode(
    "verify", cl::desc("How far candidates are checked"),
    cl::values(clEnumValN(VerifyLevel::None, "none", "not at all"),
               clEnumValN(VerifyLevel::Compile, "compile",
                          "they compile (NVRTC, and the project's compile "
                          "command)"),
               clEnumValN(VerifyLevel::Run, "run",
                          "run on the GPU against the original: correctness "
                          "on 3+ input sets, CUPTI timing")),
    cl::init(VerifyLevel::None), cl::cat(ToolCategory));
} // namespace cudal1

using namespace cudal1;

static cl::opt<std::string> BuildPath(
    "p", cl::desc("Build folder holding compile_commands.json"),
    cl::value_desc("dir"), cl::cat(ToolCategory));
static cl::opt<std::string>
    CudaPathOpt("cuda-path",
                cl::desc("CUDA toolkit root (default: $CUDA_PATH, then "
                         "/usr/local/cuda)"),
                cl::value_desc("dir"), cl::cat(ToolCategory));
static cl::opt<std::string>
    GpuArch("cuda-gpu-arch",
            cl::desc("GPU architecture to parse and compile for (default: the "
                     "compilation database's, else sm_90)"),
            cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(ToolCategory));
static cl::opt<bool> ShowWarnings(
    "show-compiler-warnings",
    cl::desc("Show clang's own warnings while parsing (default: errors only)"),
    cl::cat(ToolCategory));
static cl::opt<bool> PrintCommands(
    "print-commands",
    cl::desc("Print the clang command line used for each file, and exit"),
    cl::cat(ToolCategory));
static cl::list<std::string> Files(cl::Positional, cl::desc("<files...>"),
                                   cl::cat(ToolCategory));

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Everything after "--" goes to the compiler, as with clang-tidy.
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

  cl::HideUnrelatedOptions(ToolCategory);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "cuda-l1-rewrite " CUDAL1_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
  });
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          OurArgs.size(), OurArgs.data(),
          "cuda-l1-rewrite: find, rewrite, verify and benchmark CUDA kernels\n",
          &ErrOS)) {
    ErrOS.flush();
    errs() << ParseErrors << "Run 'cuda-l1-rewrite --help' for the options.\n";
    return 2;
  }
  if (Files.empty() && !adviseWithoutFiles()) {
    reportError("no input files; usage: cuda-l1-rewrite [options] <files...> "
                "[-- <compiler args>]");
    return 2;
  }

  FrontendConfig Config;
  Config.BuildPath = BuildPath;
  Config.Quiet = Quiet;
  Config.Parse.CudaPath = findCudaPath(CudaPathOpt);
  Config.Parse.GpuArch = GpuArch;
  Config.Parse.GpuArchExplicit = GpuArch.getNumOccurrences() > 0;
  Config.Parse.ResourceDir = findResourceDir(argv[0], (void *)&main);
  Config.Parse.ExtraArgs = CompilerArgs;
  Config.Parse.ShowWarnings = ShowWarnings;

  std::string DbError;
  std::unique_ptr<Frontend> FE = Frontend::create(Config, DbError);
  DriverContext DC{*FE, Config, std::vector<std::string>(Files.begin(), Files.end())};
  if (!DbError.empty()) {
    reportError(DbError);
    DC.Exit = 2;
  }

  if (PrintCommands) {
    for (const auto &F : DC.Files) {
      outs() << F << ":";
      for (const auto &A : FE->commandFor(F))
        outs() << " " << A;
      outs() << "\n";
    }
    return DC.Exit;
  }

  // Mode dispatch: the first mode asked for runs.
  if (listKernelsRequested())
    return runListKernels(DC);
  if (extractRequested())
    return runExtract(DC);
  if (verifyCandidatesRequested())
    return runVerifyCandidates(DC);

  // The default mode: advise (findings; fixes on request).
  return runAdvise(DC);
}
