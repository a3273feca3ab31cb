//===- cuda-l1-rewrite - make CUDA code faster, and prove it --------------===//
//
// The command-line driver: flags -> Options (Flags.cpp), the pipeline
// (cudal1/Driver/Pipeline.h), and the mode asked for. See docs/usage.md.
//
//===----------------------------------------------------------------------===//
#include "Tool.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace cudal1;

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
  Options O;
  ModeFlags M;
  if (!parseFlags(OurArgs.size(), OurArgs.data(), CompilerArgs, (void *)&main,
                  O, M))
    return 2;
  if (O.Files.empty() && !M.withoutFiles()) {
    reportError("no input files; usage: cuda-l1-rewrite [options] <files...> "
                "[-- <compiler args>]");
    return 2;
  }

  Pipeline P(O);
  if (M.PrintCommands) {
    for (const auto &F : O.Files) {
      outs() << F << ":";
      for (const auto &A : P.frontend().commandFor(F))
        outs() << " " << A;
      outs() << "\n";
    }
    return P.inputStatus();
  }
  // The first mode asked for runs; advise is the default.
  if (M.ListKernels)
    return runListKernels(P);
  if (M.PrintHarness)
    return runPrintHarness(P);
  if (M.Extract)
    return runExtract(P, *M.Extract);
  if (O.Verify == VerifyLevel::Run && !O.Candidates.empty())
    return runVerifyCandidates(P);
  return runAdvise(P, M);
}
