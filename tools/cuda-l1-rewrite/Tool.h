//===- Tool.h - the modes of cuda-l1-rewrite ---------------------*- C++ -*-===//
//
// main.cpp turns the command line into Options (Flags.cpp) and builds the
// Pipeline (cudal1/Driver/Pipeline.h); each mode calls the pipeline and
// prints what it returns. Each returns the process exit status.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_TOOLS_REWRITE_TOOL_H
#define CUDAL1_TOOLS_REWRITE_TOOL_H

#include "cudal1/Driver/Pipeline.h"

#include "llvm/Support/JSON.h"

namespace cudal1 {

/// What the command line asks for, besides Options.
struct ModeFlags {
  bool ListKernels = false;
  bool ListRules = false;
  bool DumpConfig = false;
  bool PrintCommands = false;
  bool PrintHarness = false; ///< --print-harness
  std::optional<std::string> Extract; ///< --extract=<kernel|all>
  /// Modes that need no input file.
  bool withoutFiles() const { return ListRules || DumpConfig; }
};

/// Parses the command line (everything before `--`); false (error printed)
/// on bad usage.
bool parseFlags(int Argc, const char **Argv,
                const std::vector<std::string> &CompilerArgs, void *MainAddr,
                Options &O, ModeFlags &M);

int runAdvise(Pipeline &P, const ModeFlags &M); ///< the default mode
int runListKernels(Pipeline &P);
int runExtract(Pipeline &P, const std::string &Selector);
int runVerifyCandidates(Pipeline &P);
int runPrintHarness(Pipeline &P);

/// Prints \p V as indented JSON and a newline.
void printJson(const llvm::json::Value &V, llvm::raw_ostream &OS);

} // namespace cudal1

#endif
