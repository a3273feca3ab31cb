//===- Verify.cpp - --verify=run --kernel=K --candidate=F original.cu -----===//
//
// "Is my optimized version correct, and how much faster is it?" Extracts the
// kernel from the original file and from each candidate file (same name and
// signature), builds the harness (--harness spec, or a launch site with
// constant values / --define), and runs lib/Verify: correctness on 3+ input
// sets, CUPTI timing, acceptance. Prints progress, a summary table, and
// writes results JSON (-o <dir>/verify-results.json, or --format=json).
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "HarnessResolve.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Config.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Verify/Runner.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <ctime>

using namespace llvm;

namespace cudal1 {

static cl::opt<std::string>
    KernelName("kernel", cl::desc("Kernel to verify (name or qualified name)"),
               cl::value_desc("name"), cl::cat(ToolCategory));
static cl::list<std::string>
    CandidateFiles("candidate",
                   cl::desc("A .cu file with a hand-written alternative of "
                            "the kernel (same name and signature); may be "
                            "given several times"),
                   cl::value_desc("file.cu"), cl::cat(ToolCategory));
static cl::opt<std::string>
    HarnessFile("harness", cl::desc("Harness spec (YAML): sizes, grid, block, "
                                    "buffers, scalars (docs/harness.md)"),
                cl::value_desc("yaml"), cl::cat(ToolCategory));
static cl::list<std::string>
    Defines("define", cl::desc("NAME=VALUE for harness sizes and launch-site "
                               "values (<param>.count=N: a buffer's size)"),
            cl::value_desc("NAME=VALUE"), cl::cat(ToolCategory));
static cl::opt<double>
    MinSpeedup("min-speedup",
               cl::desc("Accept a candidate only above this speedup, with "
                        "the 95% CI's lower bound above 1 (default 1.05)"),
               cl::init(1.05), cl::cat(ToolCategory));
static cl::opt<bool> AllowFastMath(
    "allow-fast-math",
    cl::desc("Allow fast-math candidates (compared within tolerance)"),
    cl::cat(ToolCategory));
static cl::opt<std::string> VerifyExactness(
    "verify-exactness",
    cl::desc("How exactly hand-written candidates must match: bitwise, ulp, "
             "reassociating (tolerance; default), fast-math"),
    cl::init("reassociating"), cl::cat(ToolCategory));
static cl::opt<unsigned>
    VerifySamples("verify-samples",
                  cl::desc("Timed samples per kernel (>= 30; default 50)"),
                  cl::init(50), cl::cat(ToolCategory));
static cl::opt<unsigned> VerifyTimeout(
    "verify-timeout",
    cl::desc("Seconds a verification job may run before it is killed "
             "(default 120)"),
    cl::init(120), cl::cat(ToolCategory));
static cl::opt<double> RtolOpt("verify-rtol",
                               cl::desc("fp32 relative tolerance (1e-4)"),
                               cl::init(1e-4), cl::cat(ToolCategory));
static cl::opt<double> AtolOpt("verify-atol",
                               cl::desc("fp32 absolute tolerance (1e-5)"),
                               cl::init(1e-5), cl::cat(ToolCategory));
static cl::opt<double> ScaleRtolOpt(
    "verify-scale-rtol",
    cl::desc("Also accept an error up to this fraction of the output "
             "buffer's largest |value|, for sums that can cancel (0)"),
    cl::init(0), cl::cat(ToolCategory));
static cl::opt<unsigned> UlpOpt("verify-ulp",
                                cl::desc("Also accept within N ulps (0)"),
                                cl::init(0), cl::cat(ToolCategory));

VerifyOptions verifyOptionsFromFlags(const std::string &CudaPath) {
  VerifyOptions Opts;
  Opts.CudaPath = CudaPath;
  Opts.Samples = std::max(30u, (unsigned)VerifySamples);
  Opts.TimeoutSeconds = VerifyTimeout;
  Opts.MinSpeedup = MinSpeedup;
  Opts.AllowFastMath = AllowFastMath;
  Opts.Tol.F32Rtol = RtolOpt;
  Opts.Tol.F32Atol = AtolOpt;
  Opts.Tol.MaxUlp = UlpOpt;
  Opts.Tol.ScaleRtol = ScaleRtolOpt;
  // Original and candidate: NVRTC with the same options, for the GPU's arch.
  Opts.Compiler = [CudaPath](const KernelCode &K, const std::string &Arch,
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
  if (!Quiet)
    Opts.Progress = [](const std::string &S) {
      errs() << "cuda-l1:   " << S << "\n";
    };
  return Opts;
}

bool verifyCandidatesRequested() {
  return VerifyMode == VerifyLevel::Run && !CandidateFiles.empty();
}

namespace {
struct FileFacts {
  bool Parsed = false;
  ProjectModel Model;
  std::vector<ExtractedKernel> Kernels;
};

class VerifyHandler : public TUHandler {
public:
  explicit VerifyHandler(std::string Selector) : Selector(std::move(Selector)) {}
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    FileFacts &F = Facts[MainFile.str()];
    F.Parsed = true;
    F.Model.merge(collectKernelModel(Ctx));
    auto K = extractKernels(Ctx, CI.getPreprocessor(), Selector);
    F.Kernels.insert(F.Kernels.end(), K.begin(), K.end());
  }
  std::string Selector;
  std::map<std::string, FileFacts> Facts;
};

std::string nowUtc() {
  std::time_t T = std::time(nullptr);
  char Buf[64];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}


bool sameSignature(const std::vector<ParamInfo> &A,
                   const std::vector<ParamInfo> &B, std::string &Why) {
  if (A.size() != B.size()) {
    Why = formatv("{0} parameters, the original has {1}", B.size(), A.size());
    return false;
  }
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].IsPointer != B[I].IsPointer ||
        A[I].ElementType != B[I].ElementType ||
        A[I].SizeBytes != B[I].SizeBytes) {
      Why = formatv("parameter {0} is '{1}', the original's is '{2}'", I + 1,
                    B[I].Type, A[I].Type);
      return false;
    }
  return true;
}

const ExtractedKernel *pick(const std::vector<ExtractedKernel> &Ks,
                            StringRef Name) {
  for (const auto &K : Ks)
    if (K.Kernel == Name || StringRef(K.Kernel).ends_with("::" + Name.str()))
      return &K;
  return Ks.size() == 1 && Name.empty() ? &Ks[0] : nullptr;
}
/// A rewrite that changes the thread mapping also rewrites the launch sites:
/// the candidate is then launched with the shape its own launch sites give
/// for the harness's (Harness::CandidateGrid/Block), unless the spec says it
/// (`candidate:`). False with the error when that cannot be told.
bool candidateLaunch(const ProjectModel &OM, const ProjectModel &CM,
                     const std::string &Kernel, Harness &H, std::string &Err) {
  if (H.CandidateGrid || H.CandidateBlock)
    return true; // from the spec
  std::vector<const LaunchSite *> OS, CS;
  for (const auto &LS : OM.LaunchSites)
    if (LS.Kernel == Kernel)
      OS.push_back(&LS);
  for (const auto &LS : CM.LaunchSites)
    if (LS.Kernel == Kernel)
      CS.push_back(&LS);
  auto Same = [](const LaunchSite *A, const LaunchSite *B) {
    return A->Grid.Text == B->Grid.Text && A->Block.Text == B->Block.Text;
  };
  bool AnyChanged = false;
  for (size_t I = 0; I < CS.size(); ++I)
    AnyChanged |= I >= OS.size() || !Same(OS[I], CS[I]);
  if (!AnyChanged)
    return true;
  const std::string Hint =
      "; give the candidate's launch shape in the harness spec, e.g. "
      "'candidate: {grid: [grid.y, grid.x], block: [block.y, block.x]}' "
      "(docs/harness.md)";
  if (OS.size() != CS.size()) {
    Err = formatv("{0}: the candidate launches '{1}' from {2} site(s), the "
                  "original from {3}: cannot pair them to tell how to launch "
                  "it{4}",
                  CS.empty() ? std::string("candidate") : CS[0]->Loc.File,
                  Kernel, CS.size(), OS.size(), Hint)
              .str();
    return false;
  }
  std::optional<std::array<uint64_t, 3>> G, B;
  for (size_t I = 0; I < CS.size(); ++I) {
    std::array<uint64_t, 3> Gi, Bi;
    std::string Why;
    if (!deriveCandidateDims(OS[I]->Grid.Text, CS[I]->Grid.Text, H.Grid, Gi,
                             Why) ||
        !deriveCandidateDims(OS[I]->Block.Text, CS[I]->Block.Text, H.Block, Bi,
                             Why)) {
      Err = CS[I]->Loc.str() + ": the candidate launches '" + Kernel +
            "' as <<<" + CS[I]->Grid.Text + ", " + CS[I]->Block.Text +
            ">>> where the original (" + OS[I]->Loc.str() + ") has <<<" +
            OS[I]->Grid.Text + ", " + OS[I]->Block.Text + ">>>: " + Why + Hint;
      return false;
    }
    if ((G && *G != Gi) || (B && *B != Bi)) {
      Err = CS[I]->Loc.str() + ": the candidate's launch sites of '" + Kernel +
            "' give different shapes" + Hint;
      return false;
    }
    G = Gi;
    B = Bi;
  }
  if (*G == H.Grid && *B == H.Block)
    return true;
  H.CandidateGrid = G;
  H.CandidateBlock = B;
  H.CandidateLaunchOrigin = "the candidate's launch site at " + CS[0]->Loc.str();
  return true;
}
} // namespace

bool startVerifyReport(const VerifyOptions &Opts, const std::string &What,
                       VerifyReport &Report) {
  GpuInfo Gpu = probeGpu(Opts);
  if (!Gpu.Ok) {
    reportError("--verify=run: " + Gpu.Error);
    return false;
  }
  if (!Quiet)
    errs() << formatv("cuda-l1: GPU {0} ({1}), driver {2}; {3}\n", Gpu.Name,
                      Gpu.Arch,
                      Gpu.DriverVersionText.empty()
                          ? std::to_string(Gpu.DriverVersion)
                          : Gpu.DriverVersionText,
                      What);
  Report.Gpu = Gpu;
  Report.Date = nowUtc();
  Report.ToolVersion = "cuda-l1-rewrite " CUDAL1_VERSION;
  Report.MinSpeedup = Opts.MinSpeedup;
  return true;
}

int runVerifyCandidates(DriverContext &DC) {
  if (KernelName.empty()) {
    reportError("--verify=run with --candidate needs --kernel=<name>");
    return 2;
  }
  if (DC.Files.size() != 1) {
    reportError("--candidate compares against one original file; got " +
                std::to_string(DC.Files.size()));
    return 2;
  }
  std::optional<Exactness> ParsedExact = exactnessFromString(
      VerifyExactness == "tolerance" ? std::string("reassociating")
                                     : VerifyExactness.getValue());
  if (!ParsedExact || *ParsedExact == Exactness::None) {
    reportError("--verify-exactness='" + VerifyExactness +
                "': use bitwise, ulp, reassociating or fast-math");
    return 2;
  }
  Exactness Exact = *ParsedExact;
  if (Exact == Exactness::FastMath && !AllowFastMath) {
    reportError("fast-math candidates need --allow-fast-math");
    return 2;
  }
  ExprEnv Env;
  for (const auto &D : Defines) {
    std::string E;
    if (!parseDefine(D, Env, E)) {
      reportError(E);
      return 2;
    }
  }
  std::string OriginalFile = DC.Files.front();
  for (const auto &C : CandidateFiles)
    if (!sys::fs::exists(C)) {
      reportError(C + ": candidate file not found");
      return 2;
    }

  // Parse the original and every candidate: one kernel each.
  std::vector<std::string> All = {OriginalFile};
  All.insert(All.end(), CandidateFiles.begin(), CandidateFiles.end());
  VerifyHandler Handler(KernelName);
  if (!Quiet)
    errs() << "cuda-l1: parsing " << All.size() << " file(s)\n";
  DC.FE.run(All, Handler, Jobs);
  auto FactsFor = [&](const std::string &F) -> FileFacts * {
    SmallString<256> Abs(F);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, true);
    for (auto &KV : Handler.Facts)
      if (KV.first == F || KV.first == Abs.str())
        return &KV.second;
    return nullptr;
  };
  FileFacts *OF = FactsFor(OriginalFile);
  if (!OF) {
    reportError(OriginalFile + ": could not be parsed");
    return 2;
  }
  const ExtractedKernel *OK = pick(OF->Kernels, KernelName);
  if (!OK) {
    reportError(OriginalFile + ": no kernel named '" + KernelName + "'");
    return 2;
  }
  if (!OK->Problems.empty()) {
    for (const auto &P : OK->Problems)
      reportError(P);
    reportError(OriginalFile + ": kernel '" + KernelName +
                "' could not be extracted for verification");
    return 2;
  }
  std::vector<ParamInfo> Params = namedParams(OK->Params);

  // The harness.
  Harness H;
  std::string HarnessSource;
  if (!HarnessFile.empty()) {
    auto Buf = MemoryBuffer::getFile(HarnessFile);
    if (!Buf) {
      reportError(HarnessFile + ": " + Buf.getError().message());
      return 2;
    }
    std::string E;
    if (!parseHarnessSpec((*Buf)->getBuffer().str(), HarnessFile,
                          StringRef(OK->Kernel).rsplit("::").second.empty()
                              ? OK->Kernel
                              : StringRef(OK->Kernel).rsplit("::").second.str(),
                          Params, Env, H, E)) {
      reportError(E);
      return 2;
    }
    HarnessSource = HarnessFile;
  } else if (HarnessAnswer CA = harnessFromConfig(
                 {OriginalFile, OK->Kernel, Params, Env, {}, ""});
             CA.Status != HarnessStatus::Missing) {
    // The Harness: entry of .cuda-l1.yaml (--harness takes precedence).
    if (CA.Status == HarnessStatus::Error) {
      reportError(CA.Message);
      return 2;
    }
    H = std::move(CA.H);
    HarnessSource = CA.Source;
  } else {
    std::string Why = "no launch site of '" + KernelName + "' in " +
                      OriginalFile;
    const LaunchSite *Used = nullptr;
    LaunchFacts LF;
    std::string LaunchFileText;
    for (const auto &LS : OF->Model.LaunchSites) {
      if (LS.Kernel != OK->Kernel)
        continue;
      LaunchFacts F = launchFacts(LS);
      LF = F;
      if (inferHarness(KernelName, Params, F, Env, H, Why)) {
        Used = &LS;
        break;
      }
    }
    if (!Used) {
      reportError("no harness for kernel '" + KernelName + "': " + Why);
      errs() << "Write a harness spec and pass it with --harness=<file>; a "
                "filled-in template to copy:\n\n"
             << harnessTemplate(KernelName, Params,
                                LF.GridText.empty() ? nullptr : &LF);
      return 2;
    }
    HarnessSource = "inferred from the launch at " + Used->Loc.str();
    if (!Quiet)
      for (const auto &N : H.Notes)
        reportNote(N);
  }

  // Candidates: each parsed and extracted the same way.
  std::vector<VerifyJob> Jobs;
  int Exit = 0;
  for (const auto &C : CandidateFiles) {
    FileFacts *CF = FactsFor(C);
    const ExtractedKernel *CK = CF ? pick(CF->Kernels, KernelName) : nullptr;
    if (!CK) {
      reportError(C + ": " +
                  (CF ? "no kernel named '" + KernelName + "'"
                      : std::string("could not be parsed")));
      Exit = 2;
      continue;
    }
    if (!CK->Problems.empty()) {
      for (const auto &P : CK->Problems)
        reportError(P);
      Exit = 2;
      continue;
    }
    std::string Why;
    if (!sameSignature(OK->Params, CK->Params, Why)) {
      reportError(C + ": kernel '" + KernelName +
                  "' has another signature: " + Why);
      Exit = 2;
      continue;
    }
    VerifyJob J;
    J.Kernel = OK->Kernel;
    J.Params = Params;
    J.H = H;
    if (!candidateLaunch(OF->Model, CF->Model, OK->Kernel, J.H, Why)) {
      reportError(Why);
      Exit = 2;
      continue;
    }
    if (!Quiet && J.H.CandidateGrid && !J.H.CandidateLaunchOrigin.empty())
      reportNote(C + ": launched with its own grid/block, from " +
                 J.H.CandidateLaunchOrigin);
    J.Original = {"original", OK->Source,
                  sys::path::filename(OriginalFile).str(), OK->NameExpr, "",
                  ""};
    J.Candidate = {C, CK->Source, sys::path::filename(C).str(), CK->NameExpr,
                   "", ""};
    J.Exact = Exact;
    Jobs.push_back(J);
  }
  if (Jobs.empty())
    return 2;

  VerifyOptions Opts = verifyOptionsFromFlags(DC.Config.Parse.CudaPath);
  VerifyReport Report;
  if (!startVerifyReport(Opts, "harness: " + HarnessSource, Report))
    return 2;
  const GpuInfo &Gpu = Report.Gpu;
  KernelReport KR;
  KR.Kernel = OK->Kernel;
  KR.File = OriginalFile;
  KR.HarnessSource = HarnessSource;
  unsigned Index = 0;
  bool AnyAccepted = false;
  for (const auto &J : Jobs) {
    ++Index;
    if (!Quiet)
      errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Jobs.size(),
                        J.Kernel, J.Candidate.Label);
    CandidateVerdict V = runVerifyJob(J, Opts, Gpu, &KR);
    if (!Quiet)
      errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Jobs.size(),
                        V.Accepted ? "ACCEPTED" : "rejected",
                        V.Accepted ? V.Reason
                                   : "[" + V.RejectKind + "] " + V.Reason);
    if (V.Accepted) {
      AnyAccepted = true;
      if (!Quiet)
        errs() << formatAnnotation(
            Gpu, *V.Timing,
            "hand-written " + sys::path::filename(J.Candidate.Label).str(),
            V.Exact, V.InputSets.size());
    }
    if (V.RejectKind == "harness" || V.RejectKind == "no-gpu")
      Exit = 2; // bad input, not a verdict on the candidate
    KR.Candidates.push_back(std::move(V));
  }
  Report.Kernels.push_back(KR);

  if (!OutputDir.empty()) {
    sys::fs::create_directories(OutputDir);
    SmallString<256> P(OutputDir);
    sys::path::append(P, "verify-results.json");
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    if (EC) {
      reportError(P.str().str() + ": " + EC.message());
      return 2;
    }
    OS << formatv("{0:2}", toJson(Report)) << "\n";
    if (!Quiet)
      errs() << "cuda-l1: results written to " << P << "\n";
  }
  if (Format == OutputFormat::Json)
    outs() << formatv("{0:2}", toJson(Report)) << "\n";
  else
    printSummaryTable(Report, outs());
  if (Exit)
    return Exit;
  return AnyAccepted ? 0 : 1;
}

} // namespace cudal1
