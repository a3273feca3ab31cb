//===- Advise.cpp - the default mode: diagnostics, and fixes on request ---===//
//
// cuda-l1-rewrite [--rules=<globs>] [--format=text|json|sarif] <files...>
// Parses each file, runs the symbolic index analysis and every enabled rule
// of the registry (built-in checks, C++ transformations, YAML rules), and
// prints the findings clang-style through Clang's diagnostic machinery (or
// as JSON / SARIF 2.1.0). With --fix, -o, --diff or --export-fixes the fixes
// are handed to the rewrite engine (cudal1/Rules/ApplyFixes.h).
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "FixVerify.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/Config.h"
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Config.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Model/KernelModel.h"

// CUDAL1_HAVE_APPLY_FIXES: set by CMake when the rewrite engine (lib/Rules,
// issue 6) is part of the build.
#ifdef CUDAL1_HAVE_APPLY_FIXES
#include "cudal1/Rules/ApplyFixes.h"
#endif

#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <set>

using namespace llvm;

namespace cudal1 {

static cl::opt<std::string> RulesOpt(
    "rules",
    cl::desc("Rules to run, clang-tidy globs: 'coalescing-*,-memory-*' "
             "(added to the configuration's Rules)"),
    cl::value_desc("globs"), cl::cat(ToolCategory));
static cl::opt<bool> ListRules("list-rules",
                               cl::desc("List the enabled rules and exit"),
                               cl::cat(ToolCategory));
static cl::list<std::string>
    RuleFiles("rule-file", cl::desc("Load a YAML rule file (repeatable)"),
              cl::value_desc("yaml"), cl::cat(ToolCategory));
static cl::opt<std::string> ConfigFile(
    "config-file",
    cl::desc("Configuration file (default: the nearest .cuda-l1.yaml above "
             "each input file)"),
    cl::value_desc("file"), cl::cat(ToolCategory));
static cl::opt<bool>
    DumpConfig("dump-config",
               cl::desc("Print the effective configuration and exit"),
               cl::cat(ToolCategory));
static cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Findings of these rules (globs) are errors: exit status 1"),
    cl::value_desc("globs"), cl::cat(ToolCategory));
static cl::opt<bool> DumpAccesses(
    "dump-accesses",
    cl::desc("Print the symbolic index analysis (loops, every global and "
             "shared access with its address and classification)"),
    cl::cat(ToolCategory));
// Fix application (issue 6's engine, cudal1/Rules/ApplyFixes.h).
static cl::opt<bool> FixOpt("fix", cl::desc("Apply eligible fixes in place"),
                            cl::cat(ToolCategory));
static cl::opt<bool> DiffOpt("diff",
                             cl::desc("Print the fixes as a unified diff"),
                             cl::cat(ToolCategory));
static cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Write the fixes to a YAML file (clang-apply-replacements "
             "format)"),
    cl::value_desc("yaml"), cl::cat(ToolCategory));
static cl::opt<bool> AllowUnverified(
    "allow-unverified",
    cl::desc("Apply fixes whose exactness is not bitwise without GPU "
             "verification"),
    cl::cat(ToolCategory));

bool adviseWithoutFiles() { return ListRules || DumpConfig; }

namespace {

/// Reads a boolean option another mode defines (e.g. --allow-fast-math),
/// without defining it twice.
bool registeredBool(StringRef Name) {
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find(Name);
  if (It == Opts.end())
    return false;
  if (auto *B = static_cast<cl::opt<bool> *>(It->second))
    return B->getNumOccurrences() > 0 && *B;
  return false;
}

class ConfigCache {
public:
  /// The configuration for \p File; false (and an error printed) when it
  /// cannot be read.
  bool get(StringRef File, AnalysisConfig &Out) {
    std::string Path = ConfigFile;
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
    if (Path.empty()) {
      Out = AnalysisConfig();
      return true;
    }
    auto It = Parsed.find(Path);
    if (It != Parsed.end()) {
      Out = It->second;
      return Ok[Path];
    }
    AnalysisConfig C;
    auto Buf = MemoryBuffer::getFile(Path);
    bool Good = true;
    if (!Buf) {
      reportError(Path + ": cannot read the configuration: " +
                  Buf.getError().message());
      Good = false;
    } else {
      std::string Err;
      if (!parseConfig((*Buf)->getBuffer(), Path, C, Err)) {
        errs() << Err << "\n";
        Good = false;
      }
    }
    Parsed[Path] = C;
    Ok[Path] = Good;
    Out = C;
    return Good;
  }

private:
  std::map<std::string, std::string> DirToPath;
  std::map<std::string, AnalysisConfig> Parsed;
  std::map<std::string, bool> Ok;
};

std::string effectiveRules(const AnalysisConfig &C) {
  std::string R = C.Rules.value_or(defaultRuleGlobs());
  if (!RulesOpt.empty())
    R += "," + RulesOpt;
  return R;
}

std::string effectiveWAE(const AnalysisConfig &C) {
  std::string R = C.WarningsAsErrors.value_or("");
  if (WarningsAsErrors.getNumOccurrences())
    R += "," + WarningsAsErrors;
  return R;
}

class AdviseHandler : public TUHandler {
public:
  AdviseHandler(ConfigCache &Configs, const FrontendConfig &FC)
      : Configs(Configs) {
    for (StringRef P : {StringRef(FC.Parse.CudaPath),
                        StringRef(FC.Parse.ResourceDir)}) {
      if (P.empty())
        continue;
      SmallString<256> Abs(P);
      sys::fs::make_absolute(Abs);
      sys::path::remove_dots(Abs, true);
      SmallString<256> Real;
      if (!sys::fs::real_path(Abs, Real))
        SystemDirs.push_back(std::string(Real));
      SystemDirs.push_back(std::string(Abs));
    }
    SystemDirs.push_back("/usr/include/");
    SystemDirs.push_back("/usr/lib/");
    SystemDirs.push_back("/usr/local/include/");
  }

  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    AnalysisConfig C;
    Configs.get(MainFile, C);
    auto IsUser = [this](const std::string &Path) {
      for (const std::string &D : SystemDirs)
        if (StringRef(Path).starts_with(D))
          return false;
      return true;
    };
    ProjectModel Model = collectKernelModel(Ctx, IsUser);
    std::unique_ptr<AnalysisResults> Analysis =
        AnalysisResults::analyze(Ctx, Model, IsUser);
    if (DumpAccesses)
      Analysis->print(outs());
    CheckContext CC;
    CC.Model = &Model;
    CC.Options = &C.Options;
    CC.Analysis = Analysis.get();
    CC.CI = &CI;
    CC.IsUserFile = IsUser;
    GlobList Enabled(effectiveRules(C));
    GlobList WAE(effectiveWAE(C));
    std::vector<Finding> Out;
    for (auto &Chk : CheckRegistry::create(Enabled)) {
      // A rule that crashes loses its findings for this file, not the run.
      std::vector<Finding> Part;
      llvm::CrashRecoveryContext CRC;
      if (!CRC.RunSafely([&] { Chk->run(Ctx, CC, Part); })) {
        reportError(MainFile.str() + ": rule '" + Chk->info().Id +
                    "' crashed; its findings for this file are skipped");
        Crashed = true;
        continue;
      }
      for (Finding &F : Part)
        Out.push_back(std::move(F));
    }
    if (CollectKernels) {
      // --fix --verify=run: the kernels with fixes, extracted with their
      // context, and every launch site (harness inference).
      Launches.insert(Launches.end(), Model.LaunchSites.begin(),
                      Model.LaunchSites.end());
      std::set<std::string> Names;
      for (const Finding &F : Out)
        if (F.Fix && !F.Kernel.empty() && !Kernels.count(F.Kernel))
          Names.insert(F.Kernel);
      for (const std::string &N : Names)
        for (ExtractedKernel &K :
             extractKernels(Ctx, CI.getPreprocessor(), N))
          if (K.Kernel == N && !Kernels.count(N))
            Kernels[N].K = std::move(K);
    }
    for (Finding &F : Out) {
      if (WAE.contains(F.RuleId) && F.Severity == "warning")
        F.Severity = "error";
      Findings.push_back(std::move(F));
    }
  }

  std::vector<Finding> Findings;
  bool Crashed = false;
  bool CollectKernels = false;
  std::map<std::string, KernelSources> Kernels;
  std::vector<LaunchSite> Launches;

private:
  ConfigCache &Configs;
  std::vector<std::string> SystemDirs;
};

/// A finding of a finding-only rule (exactness "none") is dropped when a
/// rule of the same category offers a fix on the same line (e.g. a YAML
/// rewrite of the same powf call): one diagnostic per problem, the one that
/// can repair it. Findings of transformations are always kept.
void preferFixes(std::vector<Finding> &Findings,
                 const std::vector<RuleInfo> &Rules) {
  std::set<std::string> FindingOnly;
  for (const RuleInfo &R : Rules)
    if (R.Exactness == "none")
      FindingOnly.insert(R.Id);
  std::set<std::tuple<std::string, unsigned, std::string>> WithFix;
  for (const Finding &F : Findings)
    if (F.Fix)
      WithFix.insert({F.Loc.File, F.Loc.Line, F.category()});
  std::vector<Finding> Out;
  for (Finding &F : Findings)
    if (F.Fix || !FindingOnly.count(F.RuleId) ||
        !WithFix.count({F.Loc.File, F.Loc.Line, F.category()}))
      Out.push_back(std::move(F));
  Findings = std::move(Out);
}

void applySuppressions(std::vector<Finding> &Findings) {
  std::map<std::string, std::string> Texts;
  std::vector<Finding> Out;
  for (Finding &F : Findings) {
    auto It = Texts.find(F.Loc.File);
    if (It == Texts.end()) {
      std::string T;
      if (auto Buf = MemoryBuffer::getFile(F.Loc.File))
        T = (*Buf)->getBuffer().str();
      It = Texts.emplace(F.Loc.File, std::move(T)).first;
    }
    if (!isSuppressed(It->second, F.Loc.Line, F.RuleId))
      Out.push_back(std::move(F));
  }
  Findings = std::move(Out);
}

/// Prints findings as clang diagnostics (source line, caret, ranges, fix-it
/// hints, notes) over a source manager of the files on disk.
void printText(const std::vector<Finding> &Findings, raw_ostream &OS) {
  using namespace clang;
  DiagnosticOptions DO;
  DO.ShowColors = OS.has_colors();
  TextDiagnosticPrinter Printer(OS, DO);
  IntrusiveRefCntPtr<DiagnosticIDs> IDs(new DiagnosticIDs());
  DiagnosticsEngine Diags(IDs, DO, &Printer, /*ShouldOwnClient=*/false);
  FileManager FM{FileSystemOptions()};
  SourceManager SM(Diags, FM);
  Diags.setSourceManager(&SM);
  LangOptions LO;
  LO.CUDA = true;
  LO.CPlusPlus = true;
  Printer.BeginSourceFile(LO, nullptr);

  auto LocOf = [&](const SourceLoc &L) -> SourceLocation {
    if (L.File.empty() || !L.Line)
      return SourceLocation();
    auto FE = FM.getOptionalFileRef(L.File);
    if (!FE)
      return SourceLocation();
    FileID FID = SM.getOrCreateFileID(*FE, SrcMgr::C_User);
    return SM.translateLineCol(FID, L.Line, std::max(1u, L.Column));
  };
  auto OffsetLoc = [&](const std::string &File, unsigned Off) {
    auto FE = FM.getOptionalFileRef(File);
    if (!FE)
      return SourceLocation();
    FileID FID = SM.getOrCreateFileID(*FE, SrcMgr::C_User);
    return SM.getComposedLoc(FID, Off);
  };
  unsigned WarnID = Diags.getCustomDiagID(DiagnosticsEngine::Warning, "%0");
  unsigned ErrID = Diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  unsigned NoteID = Diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
  for (const Finding &F : Findings) {
    SourceLocation L = LocOf(F.Loc);
    {
      DiagnosticBuilder DB =
          Diags.Report(L, F.Severity == "error" ? ErrID : WarnID);
      DB << (F.Message + " [" + F.RuleId + "]");
      if (!F.RangeEnd.File.empty()) {
        SourceLocation E = LocOf(F.RangeEnd);
        if (L.isValid() && E.isValid())
          DB << CharSourceRange::getCharRange(L, E.getLocWithOffset(1));
      }
      if (F.Fix)
        for (const TextEdit &E : F.Fix->Edits) {
          if (E.File != F.Loc.File)
            continue;
          SourceLocation B = OffsetLoc(E.File, E.Offset);
          if (B.isInvalid())
            continue;
          DB << FixItHint::CreateReplacement(
              CharSourceRange::getCharRange(B, B.getLocWithOffset(E.Length)),
              E.Replacement);
        }
    }
    for (const FindingNote &N : F.Notes)
      Diags.Report(LocOf(N.Loc), NoteID) << N.Message;
    if (!F.WhyNoFix.empty())
      Diags.Report(SourceLocation(), NoteID) << ("no fix: " + F.WhyNoFix);
  }
  Printer.EndSourceFile();
}

void listRules(const std::vector<RuleInfo> &Rules, const GlobList &Enabled) {
  if (Format == OutputFormat::Json) {
    json::Array A;
    for (const RuleInfo &R : Rules) {
      json::Object O{{"id", R.Id},
                     {"category", R.Category},
                     {"exactness", R.Exactness},
                     {"origin", R.Origin},
                     {"summary", R.Summary},
                     {"enabled", Enabled.contains(R.Id)}};
      json::Object Opts;
      for (auto &KV : R.DefaultOptions)
        Opts[KV.first] = KV.second;
      O["options"] = std::move(Opts);
      A.push_back(std::move(O));
    }
    outs() << formatv("{0:2}", json::Value(json::Object{{"rules", std::move(A)}}))
           << "\n";
    return;
  }
  size_t W = 0;
  for (const RuleInfo &R : Rules)
    W = std::max(W, R.Id.size());
  outs() << "Enabled rules:\n";
  for (const RuleInfo &R : Rules) {
    if (!Enabled.contains(R.Id))
      continue;
    outs() << "    " << R.Id << std::string(W + 2 - R.Id.size(), ' ')
           << R.Category << "  " << R.Exactness << "  " << R.Summary;
    if (R.Origin != "builtin")
      outs() << " (" << R.Origin << ")";
    outs() << "\n";
  }
}

} // namespace

int runAdvise(DriverContext &DC) {
  RuleLoadOptions LO;
  LO.RuleFiles.assign(RuleFiles.begin(), RuleFiles.end());
  unsigned LoadFailures = CheckRegistry::runLoaders(LO);
  std::vector<RuleInfo> Rules = CheckRegistry::rules();

  ConfigCache Configs;
  // Configuration of every input (bad configuration: exit 2 before parsing).
  bool ConfigOk = true;
  std::string First = DC.Files.empty() ? std::string(".") + "/x.cu"
                                       : DC.Files.front();
  AnalysisConfig FirstConfig;
  ConfigOk &= Configs.get(First, FirstConfig);
  for (const std::string &F : DC.Files) {
    AnalysisConfig C;
    ConfigOk &= Configs.get(F, C);
  }
  if (!ConfigOk)
    return 2;

  if (ListRules) {
    listRules(Rules, GlobList(effectiveRules(FirstConfig)));
    return LoadFailures ? 2 : DC.Exit;
  }
  if (DumpConfig) {
    AnalysisConfig C = FirstConfig;
    C.Rules = effectiveRules(FirstConfig);
    if (WarningsAsErrors.getNumOccurrences() || C.WarningsAsErrors)
      C.WarningsAsErrors = effectiveWAE(FirstConfig);
    outs() << dumpConfig(C, Rules);
    return LoadFailures ? 2 : DC.Exit;
  }

  bool WantFixes = FixOpt || DiffOpt || !ExportFixes.empty() ||
                   OutputDir.getNumOccurrences();
  // --fix / -o / --diff / --export-fixes with --verify=run: every fix is
  // verified on the GPU first (FixVerify.cpp).
  bool VerifyFixes = WantFixes && VerifyMode == VerifyLevel::Run;

  llvm::CrashRecoveryContext::Enable();
  AdviseHandler Handler(Configs, DC.Config);
  Handler.CollectKernels = VerifyFixes;
  FrontendStatus St = DC.FE.run(DC.Files, Handler, Jobs);
  std::vector<Finding> Findings = std::move(Handler.Findings);
  preferFixes(Findings, Rules);
  sortAndDedup(Findings);
  applySuppressions(Findings);

  FixVerifyResult Verified;
  std::map<size_t, size_t> RequestOf; // finding -> request
  int VerifyExit = 0;
  if (VerifyFixes) {
    bool FastMathOk = registeredBool("allow-fast-math");
    std::vector<FixRequest> Requests;
    for (size_t I = 0; I < Findings.size(); ++I) {
      const Finding &F = Findings[I];
      // The fixes applyFixes would consider (the others it reports itself).
      if (!F.Fix || F.Fix->Edits.empty() || F.Fix->Exact == Exactness::None ||
          !F.Fix->Proven ||
          (F.Fix->Exact == Exactness::FastMath && !FastMathOk))
        continue;
      FixRequest R;
      R.RuleId = F.RuleId;
      R.Kernel = F.Kernel;
      R.Loc = F.Loc;
      R.Exact = F.Fix->Exact;
      R.Ulp = F.Fix->Ulp;
      R.Rtol = F.Fix->Rtol;
      R.Atol = F.Fix->Atol;
      R.ScaleRtol = F.Fix->ScaleRtol;
      R.Edits = F.Fix->Edits;
      RequestOf[I] = Requests.size();
      Requests.push_back(std::move(R));
    }
    for (auto &KV : Handler.Kernels) {
      std::set<std::string> Seen;
      for (const LaunchSite &LS : Handler.Launches)
        if (LS.Kernel == KV.first && Seen.insert(LS.key()).second)
          KV.second.Launches.push_back(LS);
    }
    VerifyExit = verifyFixes(DC, Requests, Handler.Kernels, Verified);
  }

  raw_ostream &DiagOS = DiffOpt ? errs() : outs();
  if (Format == OutputFormat::Json) {
    json::Value Doc = findingsJson(Findings);
    if (Verified.Json)
      if (json::Object *O = Doc.getAsObject())
        (*O)["verification"] = *Verified.Json;
    DiagOS << formatv("{0:2}", Doc) << "\n";
  } else if (Format == OutputFormat::Sarif)
    DiagOS << formatv("{0:2}", findingsSarif(Findings, Rules, CUDAL1_VERSION))
           << "\n";
  else
    printText(Findings, DiagOS);
  unsigned Errors = 0, Warnings = 0;
  for (const Finding &F : Findings)
    (F.Severity == "error" ? Errors : Warnings)++;
  if (!Quiet && Format == OutputFormat::Text && (Errors || Warnings))
    errs() << Warnings << " warning" << (Warnings == 1 ? "" : "s") << " and "
           << Errors << " error" << (Errors == 1 ? "" : "s")
           << " from cuda-l1 rules.\n";

  int Exit = DC.Exit;
  if (VerifyExit == 2)
    return 2; // no GPU, or bad input: nothing is written
  if (VerifyExit)
    Exit = 2;
  if (WantFixes) {
#ifdef CUDAL1_HAVE_APPLY_FIXES
    // HOOK (issue 6): the rewrite engine applies the fixes.
    ApplyOptions AO;
    AO.InPlace = FixOpt;
    AO.OutputDir = OutputDir;
    AO.Diff = DiffOpt;
    AO.ExportFixes = ExportFixes;
    AO.AllowUnverified = AllowUnverified;
    AO.AllowFastMath = registeredBool("allow-fast-math");
    Frontend *FE = &DC.FE;
    AO.CommandFor = [FE](const std::string &F) { return FE->commandFor(F); };
    AO.MainFiles = DC.Files;
    AO.CudaPath = DC.Config.Parse.CudaPath;
    AO.GpuArch = DC.Config.Parse.GpuArch;
    AO.BuildDirectory = DC.Config.BuildPath;
    AO.Quiet = Quiet;
    std::vector<Finding> ToApply = Findings;
    if (VerifyFixes) {
      // Only what was verified correct and faster; the annotation goes with
      // one applied fix per kernel, in the same write.
      for (auto &KV : RequestOf) {
        const FixDecision &D = Verified.Decisions[KV.second];
        if (D.Apply && D.Annotation)
          ToApply[KV.first].Fix->Edits.push_back(*D.Annotation);
      }
      const Finding *Base = ToApply.data();
      AO.VerifyBitwise = true;
      AO.Verify = [Base, &RequestOf, &Verified](const Finding &F,
                                                std::string &Why) {
        auto It = RequestOf.find(&F - Base);
        if (It == RequestOf.end()) {
          Why = "not verified";
          return false;
        }
        const FixDecision &D = Verified.Decisions[It->second];
        Why = D.Why;
        return D.Apply;
      };
    }
    int R = applyFixes(ToApply, AO);
    if (R)
      Exit = std::max(Exit, R);
    if (VerifyFixes && Verified.Json) {
      if (!OutputDir.empty()) {
        SmallString<256> P(OutputDir);
        sys::path::append(P, "verify-results.json");
        std::string Text = formatv("{0:2}", *Verified.Json).str() + "\n";
        std::error_code EC = sys::fs::create_directories(OutputDir);
        raw_fd_ostream OS(P, EC);
        if (EC) {
          reportError(P.str().str() + ": " + EC.message());
          Exit = 2;
        } else {
          OS << Text;
          if (!Quiet)
            errs() << "cuda-l1: results written to " << P << "\n";
        }
      }
      if (Format == OutputFormat::Text)
        (DiffOpt ? errs() : outs()) << Verified.Summary;
    }
#else
    reportError("--fix, -o, --diff and --export-fixes need the rewrite "
                "engine (cudal1/Rules/ApplyFixes.h), not built in");
    return 2;
#endif
  }
  if (St.Failed || LoadFailures || Handler.Crashed)
    return 2;
  if (Exit)
    return Exit;
  return Errors ? 1 : 0;
}

} // namespace cudal1
