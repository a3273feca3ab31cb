//===- Flags.cpp - the command line of cuda-l1-rewrite -> Options ---------===//
//
// Every flag of the tool, in one place (docs/usage.md documents each; names
// are fixed by DESIGN.md). Nothing else reads LLVM's option registry.
//
//===----------------------------------------------------------------------===//
#include "Tool.h"
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Config.h"
#include "cudal1/Driver/ProgramArgs.h"
#include "cudal1/LLM/Prompt.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

/// cmake/GitCommit.cmake: the commit the binary is built from.
extern const char *const CudaL1GitCommit;

namespace cudal1 {

namespace {
cl::OptionCategory Cat("cuda-l1-rewrite options");

// --- inputs and output -------------------------------------------------------
cl::list<std::string> Files(cl::Positional, cl::desc("<files...>"), cl::cat(Cat));
cl::opt<std::string> BuildPath("p", cl::desc("Build folder holding compile_commands.json"),
                               cl::value_desc("dir"), cl::cat(Cat));
cl::opt<std::string> CudaPathOpt(
    "cuda-path",
    cl::desc("CUDA toolkit root (default: $CUDA_PATH, then /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(Cat));
cl::opt<std::string> GpuArch(
    "cuda-gpu-arch",
    cl::desc("GPU architecture to parse and compile for (default: the "
             "compilation database's, else sm_90)"),
    cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(Cat));
cl::opt<bool> ShowWarnings(
    "show-compiler-warnings",
    cl::desc("Show clang's own warnings while parsing (default: errors only)"),
    cl::cat(Cat));
cl::opt<bool> CudaOnly(
    "cuda-only",
    cl::desc("Skip files not parsed as CUDA (neither .cu/.cuh nor compiled "
             "with -x cu by the compilation database), for hooks that pass "
             "every C++ file"),
    cl::cat(Cat));
cl::opt<bool> PrintCommands(
    "print-commands",
    cl::desc("Print the clang command line used for each file, and exit"),
    cl::cat(Cat));
cl::opt<OutputFormat> Format(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "readable text"),
               clEnumValN(OutputFormat::Json, "json", "JSON document"),
               clEnumValN(OutputFormat::Sarif, "sarif", "SARIF 2.1.0 (findings)")),
    cl::init(OutputFormat::Text), cl::cat(Cat));
cl::opt<std::string> OutputDir("o", cl::desc("Write output files under <dir>"),
                               cl::value_desc("dir"), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("Print only results and errors"), cl::cat(Cat));
cl::opt<unsigned> Jobs("j", cl::desc("Parse this many files at once"),
                       cl::value_desc("n"), cl::init(1), cl::cat(Cat));

// --- modes -------------------------------------------------------------------
cl::opt<bool> ListKernels(
    "list-kernels",
    cl::desc("List every kernel (parameters, template instantiations, "
             "device-call closure, variables) and every launch site"),
    cl::cat(Cat));
cl::opt<std::string> ExtractSelector(
    "extract",
    cl::desc("Write each selected kernel with the context it needs as a "
             "self-contained .cu file plus a .json manifest under -o <dir>"),
    cl::value_desc("kernel|all"), cl::cat(Cat));
cl::opt<bool> PrintHarnessOpt(
    "print-harness",
    cl::desc("Print the harness spec inferred for every kernel from its "
             "launch sites (YAML, valid --harness input; \"?\" marks what "
             "could not be inferred), or JSON with --format=json"),
    cl::cat(Cat));
cl::opt<bool> ListRules("list-rules", cl::desc("List the enabled rules and exit"),
                        cl::cat(Cat));
cl::opt<bool> DumpConfig("dump-config",
                         cl::desc("Print the effective configuration and exit"),
                         cl::cat(Cat));

// --- rules and configuration ----------------------------------------------------
cl::opt<std::string> RulesOpt(
    "rules",
    cl::desc("Rules to run, clang-tidy globs: 'coalescing-*,-memory-*' "
             "(added to the configuration's Rules)"),
    cl::value_desc("globs"), cl::cat(Cat));
cl::list<std::string> RuleFiles("rule-file",
                                cl::desc("Load a YAML rule file (repeatable)"),
                                cl::value_desc("yaml"), cl::cat(Cat));
cl::opt<std::string> ConfigFile(
    "config-file",
    cl::desc("Configuration file (default: the nearest .cuda-l1.yaml above "
             "each input file)"),
    cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Findings of these rules (globs) are errors: exit status 1"),
    cl::value_desc("globs"), cl::cat(Cat));
cl::opt<std::string> FailOn(
    "fail-on",
    cl::desc("Exit with status 1 when a finding at or above this severity "
             "is reported: error (default), warning, note, never"),
    cl::value_desc("severity"), cl::init("error"), cl::cat(Cat));
cl::opt<std::string> Baseline(
    "baseline",
    cl::desc("Leave out the findings present in this earlier --format=json "
             "output (report only new ones)"),
    cl::value_desc("json"), cl::cat(Cat));
cl::opt<std::string> RuleDocsUrl(
    "rule-docs-url",
    cl::desc("Base URL of the rule pages (docs/rules/) that SARIF links to "
             "(default: the installed or source copy, as file://)"),
    cl::value_desc("url"), cl::cat(Cat));
cl::list<std::string> ExtraArgs(
    "extra-arg",
    cl::desc("An argument appended to every compile command, like those "
             "after `--` (repeatable)"),
    cl::value_desc("arg"), cl::cat(Cat));
cl::opt<bool> DumpAccesses(
    "dump-accesses",
    cl::desc("Print the symbolic index analysis (loops, every global and "
             "shared access with its address and classification)"),
    cl::cat(Cat));

// --- fixes -------------------------------------------------------------------
cl::opt<bool> FixOpt("fix", cl::desc("Apply eligible fixes in place"), cl::cat(Cat));
cl::opt<bool> DiffOpt("diff", cl::desc("Print the fixes as a unified diff"),
                      cl::cat(Cat));
cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Write the fixes to a YAML file (clang-apply-replacements format)"),
    cl::value_desc("yaml"), cl::cat(Cat));
cl::opt<bool> AllowUnverified(
    "allow-unverified",
    cl::desc("Apply fixes whose exactness is not bitwise without GPU "
             "verification"),
    cl::cat(Cat));
cl::opt<unsigned> ComposeRounds(
    "compose-rounds",
    cl::desc("Rounds of fixes composed in one run: after a round the "
             "rewritten files are analysed again and what matches now is "
             "applied (1: one round, as before; default 4)"),
    cl::init(4), cl::value_desc("n"), cl::cat(Cat));
cl::opt<std::string> AppTest(
    "app-test",
    cl::desc("The project's own build-and-test command: run in a scratch copy "
             "of the working folder with the fixes applied; fixes that make "
             "it fail are found by bisection and not applied"),
    cl::value_desc("command"), cl::cat(Cat));
cl::opt<unsigned> AppTestTimeout(
    "app-test-timeout",
    cl::desc("Seconds one run of the --app-test command may take (default "
             "1800)"),
    cl::init(1800), cl::cat(Cat));
cl::opt<bool> AllowFastMath(
    "allow-fast-math",
    cl::desc("Allow fast-math candidates (compared within tolerance)"),
    cl::cat(Cat));

// --- verification ----------------------------------------------------------------
cl::opt<VerifyLevel> VerifyMode(
    "verify", cl::desc("How far candidates are checked"),
    cl::values(clEnumValN(VerifyLevel::None, "none", "not at all"),
               clEnumValN(VerifyLevel::Compile, "compile",
                          "they compile (NVRTC, and the project's compile "
                          "command)"),
               clEnumValN(VerifyLevel::Run, "run",
                          "run on the GPU against the original: correctness "
                          "on 3+ input sets, CUPTI timing")),
    cl::init(VerifyLevel::None), cl::cat(Cat));
cl::opt<std::string> KernelName("kernel",
                                cl::desc("Kernel to verify (name or qualified name)"),
                                cl::value_desc("name"), cl::cat(Cat));
cl::list<std::string> CandidateFiles(
    "candidate",
    cl::desc("A .cu file with a hand-written alternative of the kernel (same "
             "name and signature); may be given several times"),
    cl::value_desc("file.cu"), cl::cat(Cat));
cl::opt<std::string> HarnessFile(
    "harness",
    cl::desc("Harness spec (YAML): sizes, grid, block, buffers, scalars "
             "(docs/harness.md)"),
    cl::value_desc("yaml"), cl::cat(Cat));
cl::list<std::string> Defines(
    "define",
    cl::desc("NAME=VALUE for harness sizes and launch-site values "
             "(<param>.count=N: a buffer's size)"),
    cl::value_desc("NAME=VALUE"), cl::cat(Cat));
cl::opt<std::string> ProgramArgs(
    "program-args",
    cl::desc("The arguments the program runs with, as on a shell's command "
             "line (quotes group words): argc and argv[k], and the numbers "
             "read from them with atoi/strtol/std::stoi/atof..., become known "
             "to harness inference"),
    cl::value_desc("args"), cl::cat(Cat));
cl::opt<double> MinSpeedup(
    "min-speedup",
    cl::desc("Accept a candidate only above this speedup, with the 95% CI's "
             "lower bound above 1 (default 1.05)"),
    cl::init(1.05), cl::cat(Cat));
cl::opt<std::string> VerifyExactness(
    "verify-exactness",
    cl::desc("How exactly hand-written candidates must match: bitwise, ulp, "
             "reassociating (tolerance; default), fast-math"),
    cl::init("reassociating"), cl::cat(Cat));
cl::opt<unsigned> VerifySamples(
    "verify-samples", cl::desc("Timed samples per kernel (>= 30; default 50)"),
    cl::init(50), cl::cat(Cat));
cl::opt<unsigned> VerifyTimeout(
    "verify-timeout",
    cl::desc("Seconds a verification job may run before it is killed "
             "(default 120)"),
    cl::init(120), cl::cat(Cat));
cl::opt<double> VerifyBudget(
    "verify-budget",
    cl::desc("Seconds the verification of all candidates of this run may "
             "take; candidates left when it is spent are not verified, "
             "with a note (default 0: no limit)"),
    cl::init(0), cl::cat(Cat));
cl::opt<double> VerifyCandidateTime(
    "verify-candidate-time",
    cl::desc("Seconds the timing of one candidate may take: a long kernel "
             "gets fewer samples (at least 10; default 30, 0: only "
             "--verify-timeout limits it)"),
    cl::init(30), cl::cat(Cat));
cl::opt<double> RtolOpt("verify-rtol", cl::desc("fp32 relative tolerance (1e-4)"),
                        cl::init(1e-4), cl::cat(Cat));
cl::opt<double> AtolOpt("verify-atol", cl::desc("fp32 absolute tolerance (1e-5)"),
                        cl::init(1e-5), cl::cat(Cat));
cl::opt<double> ScaleRtolOpt(
    "verify-scale-rtol",
    cl::desc("Also accept an error up to this fraction of the output buffer's "
             "largest |value|, for sums that can cancel (0)"),
    cl::init(0), cl::cat(Cat));
cl::opt<unsigned> UlpOpt("verify-ulp", cl::desc("Also accept within N ulps (0)"),
                         cl::init(0), cl::cat(Cat));
cl::opt<std::string> CaptureDir(
    "capture",
    cl::desc("Replay the launches recorded by cuda-l1-capture in <dir> as input "
             "sets (docs/capture.md)"),
    cl::value_desc("dir"), cl::cat(Cat));
cl::opt<unsigned> CaptureLaunches(
    "capture-launches",
    cl::desc("With --capture: at most this many captured launches per kernel "
             "(default 3)"),
    cl::init(3), cl::cat(Cat));

// --- model proposals (docs/llm.md) ------------------------------------------
cl::opt<std::string> LlmEndpoint(
    "llm-endpoint",
    cl::desc("OpenAI-compatible API (e.g. http://localhost:8000/v1): model "
             "proposals, verified like any candidate (with --verify=compile "
             "or --verify=run)"),
    cl::value_desc("url"), cl::cat(Cat));
cl::opt<std::string> LlmModel("llm-model",
                              cl::desc("The model's name as the server knows it"),
                              cl::value_desc("name"), cl::cat(Cat));
cl::opt<std::string> LlmApiKeyEnv(
    "llm-api-key-env",
    cl::desc("Environment variable holding the API key (default "
             "OPENAI_API_KEY; none needed for local servers)"),
    cl::value_desc("NAME"), cl::cat(Cat));
cl::opt<unsigned> LlmRounds("llm-rounds",
                            cl::desc("Rounds of proposals per kernel (default 3)"),
                            cl::value_desc("n"), cl::cat(Cat));
cl::opt<unsigned> LlmCandidates(
    "llm-candidates", cl::desc("Proposals asked for per round (default 4)"),
    cl::value_desc("n"), cl::cat(Cat));
cl::opt<double> LlmTemperature("llm-temperature",
                               cl::desc("Sampling temperature (default 0.7)"),
                               cl::cat(Cat));
cl::opt<unsigned> LlmMaxTokens("llm-max-tokens",
                               cl::desc("Tokens per reply (default 8192)"),
                               cl::value_desc("n"), cl::cat(Cat));
cl::opt<unsigned> LlmTimeout(
    "llm-timeout", cl::desc("Seconds a request may take (default 300)"),
    cl::value_desc("s"), cl::cat(Cat));
cl::opt<unsigned> LlmRetries(
    "llm-retries",
    cl::desc("Retries on 429, 5xx and connection errors (default 4)"),
    cl::value_desc("n"), cl::cat(Cat));
cl::opt<unsigned> LlmConcurrency(
    "llm-concurrency", cl::desc("Requests in flight at once (default 4)"),
    cl::value_desc("n"), cl::cat(Cat));
cl::opt<uint64_t> LlmTokenBudget(
    "llm-token-budget",
    cl::desc("Stop asking after this many tokens in all (0: no limit)"),
    cl::value_desc("n"), cl::cat(Cat));
cl::opt<unsigned> LlmTimeBudget(
    "llm-time-budget",
    cl::desc("Stop asking after this many seconds in all (0: no limit)"),
    cl::value_desc("s"), cl::cat(Cat));
cl::opt<std::string> LlmPrompts(
    "llm-prompts",
    cl::desc("Folder of prompt templates (default: those shipped)"),
    cl::value_desc("dir"), cl::cat(Cat));
cl::opt<std::string> LlmStore(
    "llm-store",
    cl::desc("The variant store (default: .cuda-l1 beside the configuration, "
             "else in the working folder)"),
    cl::value_desc("dir"), cl::cat(Cat));
} // namespace

/// The --llm-* flags given (only those: the configuration fills the rest).
static LlmOverrides llmFlags() {
  LlmOverrides L;
  auto Take = [](auto &To, const auto &Opt) {
    if (Opt.getNumOccurrences())
      To = Opt.getValue();
  };
  Take(L.Endpoint, LlmEndpoint);
  Take(L.Model, LlmModel);
  Take(L.ApiKeyEnv, LlmApiKeyEnv);
  Take(L.Rounds, LlmRounds);
  Take(L.Candidates, LlmCandidates);
  Take(L.Temperature, LlmTemperature);
  Take(L.MaxTokens, LlmMaxTokens);
  Take(L.TimeoutSeconds, LlmTimeout);
  Take(L.Retries, LlmRetries);
  Take(L.Concurrency, LlmConcurrency);
  Take(L.TokenBudget, LlmTokenBudget);
  Take(L.TimeBudgetSeconds, LlmTimeBudget);
  Take(L.PromptDir, LlmPrompts);
  Take(L.StoreDir, LlmStore);
  return L;
}

bool parseFlags(int Argc, const char **Argv,
                const std::vector<std::string> &CompilerArgs, void *MainAddr,
                Options &O, ModeFlags &M) {
  cl::HideUnrelatedOptions(Cat);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "cuda-l1-rewrite " CUDAL1_VERSION " (git " << CudaL1GitCommit
       << ", LLVM " LLVM_VERSION_STRING ")\n";
  });
  std::string ParseErrors;
  raw_string_ostream ErrOS(ParseErrors);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "cuda-l1-rewrite: find, rewrite, verify and benchmark CUDA kernels\n",
          &ErrOS)) {
    ErrOS.flush();
    errs() << ParseErrors << "Run 'cuda-l1-rewrite --help' for the options.\n";
    return false;
  }
  O.Files.assign(Files.begin(), Files.end());
  O.BuildPath = BuildPath;
  O.CudaPath = findCudaPath(CudaPathOpt);
  O.GpuArch = GpuArch;
  O.GpuArchExplicit = GpuArch.getNumOccurrences() > 0;
  O.ResourceDir = findResourceDir(Argv[0], MainAddr);
  O.CompilerArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  O.CompilerArgs.insert(O.CompilerArgs.end(), CompilerArgs.begin(),
                        CompilerArgs.end());
  O.ShowCompilerWarnings = ShowWarnings;
  O.CudaOnly = CudaOnly;
  O.Jobs = Jobs;
  O.Quiet = Quiet;
  O.Format = Format;
  O.Rules = RulesOpt;
  O.RuleFiles.assign(RuleFiles.begin(), RuleFiles.end());
  O.ConfigFile = ConfigFile;
  if (WarningsAsErrors.getNumOccurrences())
    O.WarningsAsErrors = WarningsAsErrors;
  O.DumpAccesses = DumpAccesses;
  if (!StringRef(FailOn).equals_insensitive("error") &&
      !StringRef(FailOn).equals_insensitive("warning") &&
      !StringRef(FailOn).equals_insensitive("note") &&
      !StringRef(FailOn).equals_insensitive("never")) {
    reportError("--fail-on=" + FailOn +
                ": expected error, warning, note or never");
    return false;
  }
  O.FailOn = StringRef(FailOn).lower();
  O.Baseline = Baseline;
  O.RuleDocsUrl = RuleDocsUrl.getNumOccurrences()
                      ? std::string(RuleDocsUrl)
                      : defaultRuleDocsBase(Argv[0], MainAddr);
  O.Fix = FixOpt;
  O.Diff = DiffOpt;
  O.OutputDir = OutputDir;
  O.ExportFixes = ExportFixes;
  O.AllowUnverified = AllowUnverified;
  O.ComposeRounds = ComposeRounds;
  O.AllowFastMath = AllowFastMath;
  O.AppTest = AppTest;
  O.AppTestTimeout = AppTestTimeout;
  O.Verify = VerifyMode;
  O.Kernel = KernelName;
  O.Candidates.assign(CandidateFiles.begin(), CandidateFiles.end());
  O.HarnessFile = HarnessFile;
  O.Defines.assign(Defines.begin(), Defines.end());
  if (ProgramArgs.getNumOccurrences()) {
    if (!splitShellWords(ProgramArgs, O.ProgramArgs.Args)) {
      reportError("--program-args='" + ProgramArgs +
                  "': a quote is not closed");
      return false;
    }
    O.HasProgramArgs = true;
  }
  O.MinSpeedup = MinSpeedup;
  O.VerifyExactness = VerifyExactness;
  O.VerifySamples = VerifySamples;
  O.VerifyTimeout = VerifyTimeout;
  if (VerifyBudget < 0 || VerifyCandidateTime < 0) {
    reportError(std::string(VerifyBudget < 0 ? "--verify-budget"
                                             : "--verify-candidate-time") +
                ": expected a number of seconds >= 0");
    return false;
  }
  O.VerifyBudget = VerifyBudget;
  O.VerifyCandidateTime = VerifyCandidateTime;
  O.VerifyRtol = RtolOpt;
  O.VerifyAtol = AtolOpt;
  O.VerifyScaleRtol = ScaleRtolOpt;
  O.VerifyUlp = UlpOpt;
  O.CaptureDir = CaptureDir;
  O.CaptureLaunches = std::max(1u, unsigned(CaptureLaunches));
  O.Llm = llmFlags();
  O.LlmShippedPrompts = findPromptDir(Argv[0], MainAddr);
  M.ListKernels = ListKernels;
  M.ListRules = ListRules;
  M.DumpConfig = DumpConfig;
  M.PrintCommands = PrintCommands;
  M.PrintHarness = PrintHarnessOpt;
  if (ExtractSelector.getNumOccurrences())
    M.Extract = ExtractSelector;
  // No --program-args where a harness is inferred: the command line of the
  // `run` target of the Makefile beside the sources, as `make run` runs it.
  if (!O.HasProgramArgs && (M.PrintHarness || O.Verify == VerifyLevel::Run)) {
    std::string Why;
    if (auto Found = programArgsFromMakefile(O.Files, Why)) {
      O.ProgramArgs.Args = std::move(Found->Args);
      O.ProgramArgs.Origin = Found->Origin;
      O.HasProgramArgs = true;
      if (!O.Quiet) {
        std::string Shown;
        for (const std::string &A : O.ProgramArgs.Args)
          Shown += (Shown.empty() ? "" : " ") + A;
        reportNote("program arguments '" + Shown + "' from " +
                   O.ProgramArgs.Origin + " (--program-args overrides)");
      }
    } else if (!Why.empty() && !O.Quiet) {
      reportNote("no program arguments from " + Why +
                 " (give them with --program-args)");
    }
  }
  return true;
}

void printJson(const json::Value &V, raw_ostream &OS) {
  OS << formatv("{0:2}", V) << "\n";
}

} // namespace cudal1
