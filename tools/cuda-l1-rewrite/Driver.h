//===- Driver.h - shared state of the cuda-l1-rewrite modes ----*- C++ -*-===//
//
// main.cpp parses the options every mode shares and builds the frontend;
// each mode (list kernels, extract, verify, advise/fix, ...) lives in its own
// file with its own options and a run function called from main.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_REWRITE_DRIVER_H
#define CUDAL1_TOOLS_REWRITE_DRIVER_H

#include "cudal1/Frontend/Frontend.h"
#include "llvm/Support/CommandLine.h"
#include <string>
#include <vector>

namespace cudal1 {

extern llvm::cl::OptionCategory ToolCategory;

enum class OutputFormat { Text, Json, Sarif };
extern llvm::cl::opt<OutputFormat> Format;
extern llvm::cl::opt<std::string> OutputDir; ///< -o <dir>
extern llvm::cl::opt<bool> Quiet;
extern llvm::cl::opt<unsigned> Jobs;

/// --verify=none|compile|run (DESIGN.md): how far candidates are checked.
enum class VerifyLevel { None, Compile, Run };
extern llvm::cl::opt<VerifyLevel> VerifyMode;

struct DriverContext {
  Frontend &FE;
  FrontendConfig Config;
  std::vector<std::string> Files;
  /// Exit status so far (2 once any input error was reported).
  int Exit = 0;
};

// Modes. Each returns the process exit status.
/// The default mode (Advise.cpp): findings as diagnostics / JSON / SARIF,
/// and fixes with --fix, -o, --diff, --export-fixes.
int runAdvise(DriverContext &DC);
/// --list-rules and --dump-config need no input file.
bool adviseWithoutFiles();
int runListKernels(DriverContext &DC);
bool listKernelsRequested();
/// --extract=<kernel|all> -o <dir> (Extract.cpp): kernels with context.
int runExtract(DriverContext &DC);
bool extractRequested();
/// --verify=run --kernel=<name> --candidate=<file.cu> <original.cu>
/// (Verify.cpp): is a hand-written variant correct, and how much faster?
int runVerifyCandidates(DriverContext &DC);
struct VerifyOptions; // cudal1/Verify/Runner.h
/// lib/Verify's options from the --verify-* flags (samples, timeout, minimum
/// speedup, tolerances), NVRTC as the compiler, progress on stderr unless
/// --quiet (Verify.cpp; used by --candidate and --fix --verify=run).
VerifyOptions verifyOptionsFromFlags(const std::string &CudaPath);
struct VerifyReport; // cudal1/Verify/Verdict.h
/// Probes the GPU (in a child process) and starts \p Report with it, the date,
/// the tool version and the minimum speedup; prints "cuda-l1: GPU ...; <What>"
/// unless --quiet. False (the error reported) when there is no driver/GPU.
bool startVerifyReport(const VerifyOptions &Opts, const std::string &What,
                       VerifyReport &Report);
bool verifyCandidatesRequested();

} // namespace cudal1

#endif
