//===- Options.h - everything a run of the pipeline is asked to do -*- C++ -*-===//
//
// Plain data: what the command line (tools/cuda-l1-rewrite/Flags.cpp), a
// language server or a test fills in before running the pipeline
// (cudal1/Driver/Pipeline.h). The flag names are DESIGN.md's "Command line";
// docs/usage.md documents each. No field is read back from LLVM's option
// registry: the pipeline sees only this struct.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_DRIVER_OPTIONS_H
#define CUDAL1_DRIVER_OPTIONS_H

#include "cudal1/LLM/Settings.h"
#include "cudal1/Model/KernelInfo.h" // ProgramCommandLine

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

enum class OutputFormat { Text, Json, Sarif };
/// --verify=none|compile|run: how far candidates are checked.
enum class VerifyLevel { None, Compile, Run };

struct Options {
  // --- inputs and parsing -----------------------------------------------
  std::vector<std::string> Files;        ///< positional
  std::string BuildPath;                 ///< -p (compile_commands.json)
  std::string CudaPath;                  ///< --cuda-path, resolved
  std::string GpuArch = "sm_90";         ///< --cuda-gpu-arch
  bool GpuArchExplicit = false;          ///< given on the command line
  std::string ResourceDir;               ///< clang's resource headers
  std::vector<std::string> CompilerArgs; ///< after `--`
  bool ShowCompilerWarnings = false;     ///< --show-compiler-warnings
  unsigned Jobs = 1;                     ///< -j
  bool Quiet = false;                    ///< --quiet
  OutputFormat Format = OutputFormat::Text;
  /// --cuda-only: files that are not parsed as CUDA (neither .cu/.cuh nor
  /// compiled with -x cu by the compilation database) are skipped quietly
  /// (hooks that hand over every C++ file).
  bool CudaOnly = false;
  /// Contents analysed instead of the files on disk, by absolute path (an
  /// editor's unsaved buffers; such files need not exist on disk). Findings'
  /// offsets and NOLINT comments refer to these contents.
  std::map<std::string, std::string> Overlay;

  // --- rules and configuration -----------------------------------------
  std::string Rules;                  ///< --rules (added to the config's)
  std::vector<std::string> RuleFiles; ///< --rule-file
  std::string ConfigFile;             ///< --config-file ("" = nearest)
  /// --warnings-as-errors (added to the configuration's); unset = not given.
  std::optional<std::string> WarningsAsErrors;
  bool DumpAccesses = false; ///< --dump-accesses

  // --- reporting -------------------------------------------------------------
  /// --fail-on: exit status 1 when a finding at or above this severity is
  /// reported: "error" (the default: what --warnings-as-errors makes
  /// errors), "warning", "note", or "never".
  std::string FailOn = "error";
  /// --baseline=<json>: findings present in this earlier --format=json
  /// output are left out (not reported, not fixed, not counted).
  std::string Baseline;
  /// --rule-docs-url: base URL of the rule pages that SARIF links to.
  std::string RuleDocsUrl;

  // --- fixes ---------------------------------------------------------------
  bool Fix = false;          ///< --fix (in place)
  bool Diff = false;         ///< --diff
  std::string OutputDir;     ///< -o <dir>
  std::string ExportFixes;   ///< --export-fixes=<yaml>
  bool AllowUnverified = false;
  bool AllowFastMath = false;
  /// --compose-rounds: rounds of fixes composed in one run (docs/fixes.md,
  /// "Composition"); 1 = one round.
  unsigned ComposeRounds = 4;
  /// --app-test=<command>: the project's own build-and-test command, run (by
  /// /bin/sh, in a scratch copy of the working folder) with the fixes
  /// applied; fixes that make it fail are found by bisection and dropped.
  std::string AppTest;
  unsigned AppTestTimeout = 1800; ///< seconds per run of the command

  // --- verification --------------------------------------------------------
  VerifyLevel Verify = VerifyLevel::None;
  std::string Kernel;                  ///< --kernel
  std::vector<std::string> Candidates; ///< --candidate (repeatable)
  std::string HarnessFile;             ///< --harness
  std::vector<std::string> Defines;    ///< --define NAME=VALUE
  /// --program-args: the arguments the program runs with (argv[1]...);
  /// HasProgramArgs also when the string is empty (argc = 1).
  ProgramCommandLine ProgramArgs;
  bool HasProgramArgs = false;
  const ProgramCommandLine *programArgs() const {
    return HasProgramArgs ? &ProgramArgs : nullptr;
  }
  double MinSpeedup = 1.05;            ///< --min-speedup
  std::string VerifyExactness = "reassociating"; ///< --verify-exactness
  unsigned VerifySamples = 50;         ///< --verify-samples (>= 30)
  unsigned VerifyTimeout = 120;        ///< --verify-timeout (seconds)
  double VerifyBudget = 0;             ///< --verify-budget (seconds; 0: none)
  double VerifyCandidateTime = 30;     ///< --verify-candidate-time (seconds)
  double VerifyRtol = 1e-4, VerifyAtol = 1e-5, VerifyScaleRtol = 0;
  unsigned VerifyUlp = 0;
  /// --capture=<dir>: launches recorded by cuda-l1-capture, replayed as input
  /// sets (and timed on when a kernel has no harness).
  std::string CaptureDir;
  unsigned CaptureLaunches = 3; ///< --capture-launches: at most, per kernel

  // --- model proposals (docs/llm.md) ------------------------------------------
  /// --llm-endpoint, --llm-model, --llm-api-key-env, --llm-rounds, ...: what
  /// the command line gives (over the configuration's LLM:).
  LlmOverrides Llm;
  /// The prompt templates shipped with the tool (found beside the binary).
  std::string LlmShippedPrompts;

  /// True when the fixes are wanted (--fix, --diff, -o, --export-fixes).
  bool wantsFixes() const {
    return Fix || Diff || !OutputDir.empty() || !ExportFixes.empty();
  }
};

} // namespace cudal1

#endif
