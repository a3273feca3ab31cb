//===- Pipeline.h - the whole pipeline as a library --------------*- C++ -*-===//
//
// Options in; kernel models, findings, fixes, verdicts and written files out.
// Every tool calls this (the CLI maps its flags to Options and prints what
// comes back; an editor server or a model loop can do the same on its own
// inputs). The stages (docs/architecture.md):
//
//   Frontend -> Model -> Analysis + Rules -> findings      analyze()
//            -> Verify (each fix as a kernel candidate)    verifyFixes()
//            -> Emit (--fix / -o / --diff / export)        applyFixes()
//   Frontend -> Extract -> Verify (hand-written variants)  verifyCandidates()
//
// Errors about the user's input are printed as "cuda-l1-rewrite: error:
// <file>: <problem>" (cudal1/Frontend/Frontend.h) and turn the exit status to
// 2; results are returned as data.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_DRIVER_PIPELINE_H
#define CUDAL1_DRIVER_PIPELINE_H

#include "cudal1/Analysis/Config.h"
#include "cudal1/Analysis/Finding.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Capture/CaptureManifest.h"
#include "cudal1/Driver/Options.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/LLM/Settings.h"
#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Verify/Harness.h"
#include "cudal1/Rules/ApplyFixes.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudal1 {

struct VerifyOptions;
struct VerifyReport;

/// The configuration (.cuda-l1.yaml) of each file, found and parsed once per
/// folder and per file: the one configuration cache of the tool (rules,
/// check options, warnings-as-errors and harness specs all come from it).
class ConfigStore {
public:
  /// \p Override: --config-file ("" = the nearest .cuda-l1.yaml above each
  /// file).
  explicit ConfigStore(std::string Override = "");

  struct Entry {
    bool Ok = true;
    AnalysisConfig Config; ///< defaults when there is no file
    std::string Path;      ///< "" when there is no file
    /// When !Ok: "<path>:<line>:<col>: error: <problem>" (a parse error) or
    /// "<path>: cannot read the configuration: <why>" (Unreadable).
    std::string Error;
    bool Unreadable = false;
    /// Prints the error: clang style for parse errors, the tool's error line
    /// for an unreadable file.
    void printError() const;
    /// The error without its severity: "<path>:<l>:<c>: <problem>".
    std::string message() const;
  };
  /// The configuration applying to \p File (a source file).
  const Entry &forFile(llvm::StringRef File);

private:
  std::string Override;
  std::map<std::string, std::string> DirToPath;
  std::map<std::string, Entry> Parsed;
  Entry Defaults;
};

/// A kernel the fixes are in: extracted from a translation unit, and its
/// launch sites in every file parsed.
struct KernelSources {
  ExtractedKernel K;
  std::vector<LaunchSite> Launches;
  std::vector<BufferUse> Uses; ///< from the access analysis
  /// The kernel's mangled names (one per instantiation of a template), to
  /// find its launches in a capture.
  std::vector<std::string> MangledNames;
};

/// The captured launches of a kernel with mangled names \p Mangled in
/// Options::CaptureDir (at most Options::CaptureLaunches); false (error
/// reported) when the capture directory is unreadable or invalid.
bool capturedLaunchesOf(const Options &O,
                        const std::vector<std::string> &Mangled,
                        std::vector<ReplayLaunch> &Out);
/// The mangled names of kernel \p Qualified in \p M.
std::vector<std::string> mangledNamesOf(const ProjectModel &M,
                                        const std::string &Qualified);

/// What analyze() found.
struct AnalysisRun {
  /// Sorted, deduplicated, NOLINT suppressions applied, severities raised by
  /// warnings-as-errors.
  std::vector<Finding> Findings;
  FrontendStatus Status;
  bool RuleCrashed = false;
  /// With CollectKernels: the kernels that have fixes, extracted with their
  /// context, and their launch sites (for verifying the fixes on a GPU).
  std::map<std::string, KernelSources> Kernels;
  /// With CollectKernels, per device function holding a fix (qualified
  /// name): every kernel of the model that calls it, directly or not, and
  /// whether host code may call it too (`__host__ __device__`).
  /// --verify=run verifies such a fix only through a sole kernel caller.
  struct Callers {
    std::set<std::string> Kernels;
    bool Host = false;
  };
  std::map<std::string, Callers> DeviceFunctionCallers;
  unsigned errors() const;
  unsigned warnings() const;
};

/// What to do with one fix after verification.
struct FixDecision {
  bool Apply = false;
  std::string Why; ///< when not applied: the verdict or the reason
  /// The annotation above the kernel: set on one applied fix per kernel.
  std::optional<TextEdit> Annotation;
  /// The speedup measured for the fix alone (when it was timed).
  std::optional<double> Speedup;
  /// Rejected [not-faster]: its results were right, its time no better.
  /// Such a fix may still open the way to another rule (docs/fixes.md,
  /// "Composition": enabling fixes).
  bool NotFaster = false;
  /// Accepted alone, but left out of the applied set: its edits overlap
  /// those of a faster accepted fix (or both change the launch). The
  /// composition tries it in place of that fix when the analysis of its
  /// result gives another rule a fix (docs/fixes.md, "Alternatives").
  bool LeftOut = false;
  /// A fix in a device function: the kernel it was verified through (its
  /// only caller); the finding is that kernel's from then on (composition,
  /// annotation, JSON).
  std::string Kernel;
};

/// verifyFixes()' result.
struct FixVerifyResult {
  /// Per finding index of AnalysisRun::Findings that was a candidate.
  std::map<size_t, FixDecision> Decisions;
  std::optional<llvm::json::Value> Json; ///< results JSON (when anything ran)
  std::string Summary;                   ///< the summary table
  /// 0; 2: no GPU / bad input (nothing may be written); 3: the original
  /// failed with a kernel's harness (accepted fixes still apply, exit 2).
  int Status = 0;
};

/// What applyFixes() composed (docs/fixes.md, "Composition"): the kernels
/// whose result combines fixes of several rounds.
struct Composition {
  struct Part {
    std::string Kernel;
    /// (round, rule id) of each fix the kernel's result combines.
    std::vector<std::pair<unsigned, std::string>> Fixes;
    /// "applied"; with --verify=run "verified" or why the composed kernel
    /// was not kept (its first round is applied alone then).
    std::string Outcome;
  };
  std::vector<Part> Parts;
  /// Alternatives (docs/fixes.md): a kernel composed again with a fix that
  /// round 1 left out for a faster, overlapping one; the outcome says
  /// whether it was written instead.
  std::vector<Part> AltParts;
  unsigned Rounds = 0; ///< rounds that applied something
  /// With --verify=run: the composed kernels' verification.
  std::optional<llvm::json::Value> VerifyJson;
  std::string VerifySummary;
  llvm::json::Value toJson() const;
  /// One line per part: "kernel 'k': a (round 1) + b (round 2): applied".
  std::string summary() const;
};

/// verifyCandidates()' result.
struct CandidatesResult {
  int Exit = 0; ///< 0 a candidate accepted, 1 none, 2 bad input / no GPU
  std::optional<llvm::json::Value> Json;
  std::string Summary;
};

/// proposeWithModel()'s result (LlmSearch.cpp, docs/llm.md).
struct ProposalResult {
  /// 0; 2: bad input or usage (settings, templates, store, a harness), the
  /// model could not be asked, or --verify=run without a GPU (nothing
  /// measured, nothing written).
  int Status = 0;
  /// The accepted variants to write back (with --fix, -o, --diff,
  /// --export-fixes): one finding per kernel, rule id "llm-proposal", whose
  /// fix replaces the kernel's definition (and its launch sites when the
  /// variant changes the launch) and writes the annotation.
  std::vector<Finding> Findings;
  /// Kernel -> why its rule fixes are set aside (a faster variant replaces
  /// the kernel).
  std::map<std::string, std::string> Replaces;
  std::optional<llvm::json::Value> Json; ///< "model_proposals" results
  std::string Summary;                   ///< the summary table
};

/// extract()'s result: one item per kernel found.
struct ExtractResult {
  struct Item {
    std::string Kernel;
    SourceLoc Definition;
    std::vector<std::string> Problems; ///< why it cannot be extracted
    std::string SourcePath, ManifestPath; ///< written files ("" = none)
    std::vector<std::string> NameExprs;
    size_t Pieces = 0;
    std::optional<bool> Compiles; ///< with --verify=compile (NVRTC)
  };
  std::vector<Item> Items;
  unsigned Written = 0, Compiled = 0, CompileFailed = 0;
  int Exit = 0;
};

/// inferHarnesses()' result (--print-harness): per kernel of the input
/// files, the harness inferred from its launch sites.
struct HarnessListing {
  struct Item {
    std::string Kernel;    ///< qualified name
    std::string EntryName; ///< its key under `kernels:` in the printed spec
    SourceLoc Definition;
    unsigned LaunchSites = 0;
    /// "complete" (a harness that runs), "incomplete" (Inferred.Missing says
    /// what is not known) or "no-launch" (no launch site, or none evaluated:
    /// Why).
    std::string Status;
    std::string Origin; ///< "inferred from the launch at main.cu:40:3 ..."
    std::string Template; ///< template arguments of the launch chosen
    InferredHarness Inferred;
    std::vector<std::string> OtherLaunches; ///< launchSummary of the others
    std::string Why;
  };
  std::vector<Item> Items;
  FrontendStatus Status;
  int Exit = 0; ///< 2 on bad input (parse errors, a bad --define)
};

class RunBudget;
struct VerifyJob;
struct CandidateVerdict;
struct KernelReport;
struct GpuInfo;

class Pipeline {
public:
  /// Builds the frontend from \p Opts (a bad compilation database is
  /// reported and makes inputStatus() 2, as does a bad rule file).
  explicit Pipeline(Options Opts);
  ~Pipeline();

  const Options &options() const { return Opts; }
  Frontend &frontend() { return *FE; }
  ConfigStore &configs() { return Configs; }
  /// 2 when something given was unusable before any file was parsed
  /// (compilation database, rule files); else 0.
  int inputStatus() const { return InputStatus; }

  /// Every rule known (built-in and loaded from YAML), sorted by id.
  std::vector<RuleInfo> rules();
  /// The rules enabled for files under \p C: its Rules plus --rules.
  std::string effectiveRules(const AnalysisConfig &C) const;
  std::string effectiveWarningsAsErrors(const AnalysisConfig &C) const;
  /// Warns (once per origin and its globs) about rule globs of \p C's Rules and
  /// WarningsAsErrors and of --rules / --warnings-as-errors that match no
  /// rule, with the closest rule id when one is near.
  void warnUnmatchedGlobs(const AnalysisConfig &C);
  /// Reads the configuration of every input file (and of the working folder
  /// when there are none); false (errors printed) when one is bad.
  bool checkConfigs(AnalysisConfig *First = nullptr);

  /// --list-kernels: the kernels and launch sites of the input files.
  ProjectModel kernelModel(FrontendStatus &St);
  /// --print-harness: the harness of every kernel of the input files,
  /// inferred from its launch sites (and --define), as PrintHarness.cpp.
  HarnessListing inferHarnesses();
  /// Parses the input files and runs every enabled rule. With
  /// \p CollectKernels the kernels with fixes are extracted; with
  /// \p AllKernels also every kernel with a finding and the kernels --kernel
  /// names (the kernels model proposals are asked for).
  AnalysisRun analyze(bool CollectKernels, bool AllKernels = false);
  /// --verify=run with fixes: each fix of \p Run verified on the GPU as a
  /// kernel candidate (FixVerify.cpp).
  FixVerifyResult verifyFixes(const AnalysisRun &Run);
  /// --fix / -o / --diff / --export-fixes: applies the fixes of \p Run (only
  /// those \p Verified accepts, when given; with --app-test only a set the
  /// project's own test command passes with), and the accepted variants of
  /// \p Proposed (whose kernels' rule fixes are then set aside). Returns the
  /// exit status part.
  /// Fixes are composed to a fixed point: after a round, the rewritten
  /// buffers are analysed again (in memory, same flags) and what matches
  /// now is applied, up to MaxComposeRounds rounds (docs/fixes.md).
  int applyFixes(const AnalysisRun &Run, const FixVerifyResult *Verified,
                 const ProposalResult *Proposed = nullptr);
  /// What the last applyFixes() composed.
  const Composition &composition() const { return Composed; }
  static constexpr unsigned MaxComposeRounds = 4;
  /// Trials of enabling fixes alone (docs/fixes.md, "Composition"):
  /// analyses of the code with one more not-faster fix per kernel, after
  /// the one with all of them.
  static constexpr unsigned MaxEnablerTrials = 6;
  /// The model-proposal settings: the defaults, the LLM: of the first input
  /// file's configuration, the command line (docs/llm.md).
  LlmSettings llmSettings();
  /// Model proposals are on: an endpoint is given and a mode that verifies
  /// (--verify=compile|run).
  bool modelProposalsWanted();
  /// Asks the model for variants of the selected kernels (--kernel, else
  /// every kernel with a finding), rounds x candidates each, verifies every
  /// one (on every GPU with --verify=run; compiled only without one), keeps
  /// them in the variant store (LlmSearch.cpp). \p RuleFixes: the rule fixes
  /// verified already (shown to the model with their speedups).
  ProposalResult proposeWithModel(const AnalysisRun &Run,
                                  const FixVerifyResult *RuleFixes);
  /// --app-test (AppTest.cpp): applies the fixes that would be applied to a
  /// scratch copy of the working folder and runs the command there; when it
  /// fails, finds the guilty fixes by bisection. \p Dropped gets their
  /// finding indices. Returns 0, or 2 (error reported) when the command
  /// fails on the unmodified tree or cannot run.
  int appTest(const AnalysisRun &Run, const FixVerifyResult *Verified,
              std::set<size_t> &Dropped);
  /// --verify=run --kernel --candidate: hand-written variants of one kernel.
  CandidatesResult verifyCandidates();
  /// --extract=<kernel|all> -o <dir>: writes each selected kernel with the
  /// context it needs as a self-contained .cu file plus a .json manifest
  /// (docs/extract.md); with --verify=compile, compiles each with NVRTC.
  ExtractResult extract(const std::string &Selector);

  /// The verifier's options from Options (samples, timeout, tolerances,
  /// NVRTC as the compiler, progress on stderr unless quiet).
  VerifyOptions verifyOptions() const;
  /// Probes the GPU (in a child process) and starts \p Report with it;
  /// prints "cuda-l1: GPU ...; <What>" unless quiet. False (the error
  /// reported) when there is no driver/GPU.
  bool startVerifyReport(const VerifyOptions &VO, const std::string &What,
                         VerifyReport &Report) const;
  /// runVerifyJob within the run's verification budget (--verify-budget,
  /// cudal1/Verify/Budget.h): once it is spent, the job is not run and its
  /// verdict is rejected with RejectKind "budget" and the reason ("not
  /// verified: the run's verification budget of N s was spent ..."); the
  /// timing of a job that runs is limited to half of what is left. Safe to
  /// call from several threads (one per GPU).
  CandidateVerdict verifyWithinBudget(const VerifyJob &Job,
                                      const VerifyOptions &VO,
                                      const GpuInfo &Gpu,
                                      KernelReport *Kernel);

private:
  std::shared_ptr<RunBudget> Budget;
  std::shared_ptr<std::mutex> BudgetMutex = std::make_shared<std::mutex>();
  /// applyFixes() without a test command or model variants: rounds of
  /// fixes to a fixed point, then one write.
  int applyComposed(const AnalysisRun &Run, const FixVerifyResult *Verified);
  Composition Composed;
  Options Opts;
  std::unique_ptr<Frontend> FE;
  ConfigStore Configs;
  int InputStatus = 0;
  bool RulesLoaded = false;
  void loadRules();
  std::set<std::string> CheckedGlobs; ///< origin and globs warned about
  /// Given files that do not parse alone, parsed as part of a file on disk
  /// that includes them (FrontendStatus::ParsedFor), by absolute path: that
  /// file, which checks that their fixes compile.
  std::map<std::string, std::string> ParsedThrough;

public:
  /// The rewrite engine's options for \p Findings (a copy of the run's
  /// findings: the verification callback maps their addresses to indices).
  ApplyOptions applyOptions(const std::vector<Finding> &Findings,
                            const FixVerifyResult *Verified) const;
  /// The run's findings with the annotations of verified kernels added and
  /// the fixes of \p Without removed.
  std::vector<Finding> findingsToApply(const AnalysisRun &Run,
                                       const FixVerifyResult *Verified,
                                       const std::set<size_t> &Without) const;
};

} // namespace cudal1

#endif
