//===- Pipeline.cpp - frontend, configuration, rules, GPU options ---------===//
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Config.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Verify/Budget.h"
#include "cudal1/Verify/Runner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

using namespace llvm;

namespace cudal1 {

// ---- configuration ---------------------------------------------------------

ConfigStore::ConfigStore(std::string Override) : Override(std::move(Override)) {}

const ConfigStore::Entry &ConfigStore::forFile(StringRef File) {
  std::string Path = Override;
  if (Path.empty()) {
    SmallString<256> Dir(File);
    sys::fs::make_absolute(Dir);
    sys::path::remove_filename(Dir);
    auto It = DirToPath.find(std::string(Dir));
    if (It != DirToPath.end())
      Path = It->second;
    else
      Path = DirToPath[std::string(Dir)] = findConfigFile(Dir);
  }
  if (Path.empty())
    return Defaults;
  auto It = Parsed.find(Path);
  if (It != Parsed.end())
    return It->second;
  Entry &E = Parsed[Path];
  E.Path = Path;
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    E.Ok = false;
    E.Unreadable = true;
    E.Error = Path + ": cannot read the configuration: " +
              Buf.getError().message();
    return E;
  }
  E.Ok = parseConfig((*Buf)->getBuffer(), Path, E.Config, E.Error);
  return E;
}

void ConfigStore::Entry::printError() const {
  if (Ok)
    return;
  if (Unreadable)
    reportError(Error);
  else
    errs() << Error << "\n";
}

std::string ConfigStore::Entry::message() const {
  std::string M = Error;
  size_t At = M.find(": error: ");
  if (At != std::string::npos)
    M.erase(At, 7);
  return M;
}

// ---- the pipeline ------------------------------------------------------------

unsigned AnalysisRun::errors() const {
  return std::count_if(Findings.begin(), Findings.end(),
                       [](const Finding &F) { return F.Severity == "error"; });
}
unsigned AnalysisRun::warnings() const {
  return Findings.size() - errors();
}

Pipeline::Pipeline(Options O) : Opts(std::move(O)), Configs(Opts.ConfigFile) {
  FrontendConfig FC;
  FC.BuildPath = Opts.BuildPath;
  FC.Quiet = Opts.Quiet;
  FC.Parse.CudaPath = Opts.CudaPath;
  FC.Parse.GpuArch = Opts.GpuArch;
  FC.Parse.GpuArchExplicit = Opts.GpuArchExplicit;
  FC.Parse.ResourceDir = Opts.ResourceDir;
  FC.Parse.ExtraArgs = Opts.CompilerArgs;
  FC.Parse.ShowWarnings = Opts.ShowCompilerWarnings;
  FC.Overlay = Opts.Overlay;
  std::string DbError;
  FE = Frontend::create(FC, DbError);
  if (!DbError.empty()) {
    reportError(DbError);
    InputStatus = 2;
  }
}

Pipeline::~Pipeline() = default;

void Pipeline::loadRules() {
  if (RulesLoaded)
    return;
  RulesLoaded = true;
  RuleLoadOptions LO;
  LO.RuleFiles = Opts.RuleFiles;
  if (CheckRegistry::runLoaders(LO))
    InputStatus = 2;
}

std::vector<RuleInfo> Pipeline::rules() {
  loadRules();
  return CheckRegistry::rules();
}

std::string Pipeline::effectiveRules(const AnalysisConfig &C) const {
  std::string R = C.Rules.value_or(defaultRuleGlobs());
  if (!Opts.Rules.empty())
    R += "," + Opts.Rules;
  // The rules off by default (the '-' entries of the default) run only when
  // named by their own id: a '*' or 'memory-*' in a configuration or on the
  // command line does not turn them on.
  llvm::SmallVector<llvm::StringRef, 8> Default, Given;
  llvm::StringRef(defaultRuleGlobs()).split(Default, ',');
  const std::string Globs = R; // R grows below
  llvm::StringRef(Globs).split(Given, ',');
  for (llvm::StringRef D : Default) {
    if (!D.consume_front("-"))
      continue;
    bool Named = llvm::any_of(Given, [&](llvm::StringRef G) {
      G = G.trim();
      G.consume_front("+");
      return G == D;
    });
    // Already off, with no glob after that could turn it on: appending
    // '-D' again would only repeat it in --dump-config.
    bool Off = false;
    for (llvm::StringRef G : Given) {
      G = G.trim();
      if (G == ("-" + D).str())
        Off = true;
      else if (G.contains('*') && !G.starts_with("-"))
        Off = false;
    }
    if (!Named && !Off)
      R += ",-" + D.str();
  }
  return R;
}

std::string Pipeline::effectiveWarningsAsErrors(const AnalysisConfig &C) const {
  std::string R = C.WarningsAsErrors.value_or("");
  if (Opts.WarningsAsErrors)
    R += "," + *Opts.WarningsAsErrors;
  return R;
}

void Pipeline::warnUnmatchedGlobs(const AnalysisConfig &C) {
  // Called for every file: each origin's globs are checked once, and the
  // rule ids gathered only when there is something new to check.
  std::vector<std::string> Ids, Categories;
  auto Gather = [&] {
    for (const RuleInfo &R : rules()) {
      Ids.push_back(R.Id);
      std::string Cat = StringRef(R.Id).split('-').first.str();
      if (!llvm::is_contained(Categories, Cat))
        Categories.push_back(Cat);
    }
  };
  auto Check = [&](const std::string &Origin,
                   const std::optional<std::string> &Globs) {
    if (!Globs || !CheckedGlobs.insert(Origin + "\n" + *Globs).second)
      return;
    if (Ids.empty())
      Gather();
    for (const std::string &G : GlobList(*Globs).unmatched(Ids)) {
      std::string Hint;
      if (StringRef(G).contains('*')) {
        Hint = " (the categories are " + llvm::join(Categories, ", ") + ")";
      } else {
        unsigned Best = ~0u;
        for (const std::string &Id : Ids)
          if (unsigned D = StringRef(Id).edit_distance(G); D < Best) {
            Best = D;
            Hint = " (did you mean '" + Id + "'?)";
          }
        if (Best > std::max<size_t>(2, G.size() / 4))
          Hint = " (--list-rules lists them)";
      }
      reportWarning(Origin + ": '" + G + "' matches no rule" + Hint);
    }
  };
  if (!C.Source.empty()) {
    Check(C.Source + ": Rules", C.Rules);
    Check(C.Source + ": WarningsAsErrors", C.WarningsAsErrors);
  }
  Check("--rules", Opts.Rules.empty() ? std::nullopt
                                      : std::optional<std::string>(Opts.Rules));
  Check("--warnings-as-errors", Opts.WarningsAsErrors);
}

bool Pipeline::checkConfigs(AnalysisConfig *First) {
  std::vector<std::string> Files = Opts.Files;
  if (Files.empty())
    Files.push_back("./x.cu"); // the working folder's configuration
  bool Ok = true;
  std::set<std::string> Reported;
  for (size_t I = 0; I < Files.size(); ++I) {
    const ConfigStore::Entry &E = Configs.forFile(Files[I]);
    if (!E.Ok && Reported.insert(E.Path).second)
      E.printError();
    Ok &= E.Ok;
    if (I == 0 && First)
      *First = E.Config;
  }
  return Ok;
}

ProjectModel Pipeline::kernelModel(FrontendStatus &St) {
  struct ModelHandler : TUHandler {
    void handleTranslationUnit(clang::ASTContext &Ctx, clang::CompilerInstance &,
                               StringRef) override {
      Model.merge(collectKernelModel(Ctx));
    }
    ProjectModel Model;
  } Handler;
  St = FE->run(Opts.Files, Handler, Opts.Jobs);
  Handler.Model.sort();
  return std::move(Handler.Model);
}

// ---- the verifier's options ---------------------------------------------------

VerifyOptions Pipeline::verifyOptions() const {
  VerifyOptions VO;
  VO.CudaPath = Opts.CudaPath;
  VO.Samples = std::max(30u, Opts.VerifySamples);
  VO.TimeoutSeconds = Opts.VerifyTimeout;
  VO.TimingSeconds = Opts.VerifyCandidateTime;
  VO.MinSpeedup = Opts.MinSpeedup;
  VO.AllowFastMath = Opts.AllowFastMath;
  VO.Tol.F32Rtol = Opts.VerifyRtol;
  VO.Tol.F32Atol = Opts.VerifyAtol;
  VO.Tol.MaxUlp = Opts.VerifyUlp;
  VO.Tol.ScaleRtol = Opts.VerifyScaleRtol;
  // Original and candidate: NVRTC with the same options, for the GPU's arch.
  std::string CudaPath = Opts.CudaPath;
  VO.Compiler = [CudaPath](const KernelCode &K, const std::string &Arch,
                           const std::vector<std::string> &Extra) {
    NvrtcOptions NO;
    NO.CudaPath = CudaPath;
    NO.GpuArch = Arch;
    NO.ExtraOptions = Extra;
    NvrtcResult R = compileWithNvrtc(K.Source, K.FileName, {K.NameExpr}, NO);
    CompileOutput O;
    O.Ok = R.Ok;
    O.Log = R.Ok ? R.Log : R.Error + (R.Log.empty() ? "" : "\n" + R.Log);
    O.Cubin.assign(R.Cubin.begin(), R.Cubin.end());
    if (!R.LoweredNames.empty())
      O.LoweredName = R.LoweredNames.front().second;
    if (O.Ok && O.LoweredName.empty()) {
      O.Ok = false;
      O.Log += "\nno lowered name for '" + K.NameExpr + "'";
    }
    return O;
  };
  if (!Opts.Quiet)
    VO.Progress = [](const std::string &S) {
      errs() << "cuda-l1:   " << S << "\n";
    };
  return VO;
}

CandidateVerdict Pipeline::verifyWithinBudget(const VerifyJob &Job,
                                              const VerifyOptions &VO,
                                              const GpuInfo &Gpu,
                                              KernelReport *Kernel) {
  VerifyOptions O = VO;
  {
    std::lock_guard<std::mutex> L(*BudgetMutex);
    if (!Budget)
      Budget = std::make_shared<RunBudget>(Opts.VerifyBudget);
    std::string Why;
    if (!Budget->mayStart(Why)) {
      Budget->noteDeclined();
      CandidateVerdict V;
      V.Name = Job.Candidate.Label;
      V.Origin = Job.Origin;
      V.Exact = Job.Exact;
      V.Correct = false;
      V.Accepted = false;
      V.RejectKind = "budget";
      V.Reason = Why;
      return V;
    }
    if (Budget->limited()) {
      double Half = std::max(1.0, Budget->left() / 2);
      if (O.TimingSeconds <= 0 || O.TimingSeconds > Half)
        O.TimingSeconds = Half;
    }
  }
  auto T0 = std::chrono::steady_clock::now();
  CandidateVerdict V = runVerifyJob(Job, O, Gpu, Kernel);
  double S = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           T0)
                 .count();
  std::lock_guard<std::mutex> L(*BudgetMutex);
  Budget->record(S);
  return V;
}

static std::string nowUtc() {
  std::time_t T = std::time(nullptr);
  char Buf[64];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

bool Pipeline::startVerifyReport(const VerifyOptions &VO,
                                 const std::string &What,
                                 VerifyReport &Report) const {
  GpuInfo Gpu = probeGpu(VO);
  if (!Gpu.Ok) {
    reportError("--verify=run: " + Gpu.Error);
    return false;
  }
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: GPU {0} ({1}), driver {2}; {3}\n", Gpu.Name,
                      Gpu.Arch,
                      Gpu.DriverVersionText.empty()
                          ? std::to_string(Gpu.DriverVersion)
                          : Gpu.DriverVersionText,
                      What);
  Report.Gpu = Gpu;
  Report.Date = nowUtc();
  Report.ToolVersion = "cuda-l1-rewrite " CUDAL1_VERSION;
  Report.MinSpeedup = VO.MinSpeedup;
  return true;
}

} // namespace cudal1
