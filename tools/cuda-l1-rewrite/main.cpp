//===- cuda-l1-rewrite - make CUDA code faster, and prove it --------------===//
//
// The command-line driver: option parsing and wiring of the stages. See
// docs/usage.md for every option.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Config.h"
#include "cudal1/Emit/KernelListing.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace cudal1;

static cl::OptionCategory Cat("cuda-l1-rewrite options");

static cl::opt<std::string> BuildPath(
    "p", cl::desc("Build folder holding compile_commands.json"),
    cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<std::string>
    CudaPathOpt("cuda-path",
                cl::desc("CUDA toolkit root (default: $CUDA_PATH, "
                         "/usr/local/cuda)"),
                cl::value_desc("dir"), cl::cat(Cat));
static cl::opt<std::string>
    GpuArch("cuda-gpu-arch",
            cl::desc("GPU architecture to parse and compile for "
                     "(default: the database's, else sm_90)"),
            cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(Cat));
static cl::opt<bool> ListKernels(
    "list-kernels",
    cl::desc("List every kernel (with its parameters, template "
             "instantiations, device-call closure and variables) and every "
             "launch site"),
    cl::cat(Cat));
enum class OutputFormat { Text, Json, Sarif };
static cl::opt<OutputFormat> Format(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "readable text"),
               clEnumValN(OutputFormat::Json, "json", "JSON document"),
               clEnumValN(OutputFormat::Sarif, "sarif", "SARIF 2.1.0")),
    cl::init(OutputFormat::Text), cl::cat(Cat));
static cl::opt<unsigned> Jobs("j", cl::desc("Parse this many files at once"),
                              cl::value_desc("n"), cl::init(1), cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Print only findings and errors"),
                           cl::cat(Cat));
static cl::opt<bool> ShowWarnings(
    "show-compiler-warnings",
    cl::desc("Show clang's own warnings while parsing (default: errors only)"),
    cl::cat(Cat));
static cl::opt<bool> PrintCommands(
    "print-commands",
    cl::desc("Print the clang command line used for each file and exit"),
    cl::cat(Cat));
static cl::list<std::string> Files(cl::Positional, cl::desc("<files...>"),
                                   cl::cat(Cat));

namespace {
class ModelHandler : public TUHandler {
public:
  void handleTranslationUnit(clang::ASTContext &Ctx, clang::CompilerInstance &,
                             StringRef) override {
    Model.merge(collectKernelModel(Ctx));
  }
  ProjectModel Model;
};
} // namespace

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Everything after "--" goes to the compiler.
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
    OS << "cuda-l1-rewrite " CUDAL1_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
  });
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          OurArgs.size(), OurArgs.data(),
          "cuda-l1-rewrite: find, rewrite, verify and benchmark CUDA kernels\n",
          &ErrOS)) {
    ErrOS.flush();
    errs() << ParseErrors;
    errs() << "Run 'cuda-l1-rewrite --help' for the options.\n";
    return 2;
  }
  if (Files.empty()) {
    reportError("no input files; usage: cuda-l1-rewrite [options] <files...> "
                "[-- <compiler args>]");
    return 2;
  }
  if (Format == OutputFormat::Sarif && ListKernels) {
    reportError("--format=sarif is for findings; --list-kernels supports "
                "text and json");
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

  int Exit = 0;
  std::string DbError;
  std::unique_ptr<Frontend> FE = Frontend::create(Config, DbError);
  if (!DbError.empty()) {
    reportError(DbError);
    Exit = 2;
  }

  if (PrintCommands) {
    for (const auto &F : Files) {
      auto Cmd = FE->commandFor(F);
      outs() << F << ":";
      for (const auto &A : Cmd)
        outs() << " " << A;
      outs() << "\n";
    }
    return Exit;
  }

  ModelHandler Handler;
  FrontendStatus St = FE->run(Files, Handler, Jobs);
  if (St.Failed)
    Exit = 2;
  Handler.Model.sort();

  if (ListKernels) {
    if (Format == OutputFormat::Json)
      outs() << formatv("{0:2}", kernelListJson(Handler.Model)) << "\n";
    else
      printKernelListText(Handler.Model, outs());
  } else if (!Quiet) {
    errs() << "cuda-l1-rewrite: parsed " << St.Parsed << " file"
           << (St.Parsed == 1 ? "" : "s") << ", "
           << Handler.Model.Kernels.size() << " kernel"
           << (Handler.Model.Kernels.size() == 1 ? "" : "s")
           << "; no analysis selected (try --list-kernels)\n";
  }
  return Exit;
}
