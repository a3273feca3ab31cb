//===- Candidates.cpp - --verify=run --kernel=K --candidate=F original.cu -===//
//
// "Is my optimized version correct, and how much faster is it?" Extracts the
// kernel from the original file and from each candidate file (same name and
// signature), builds the harness (--harness spec, the configuration's
// Harness:, or the values of a launch site from the AST / --define), and runs
// lib/Verify: correctness on 3+ input sets, CUPTI timing, acceptance.
//
//===----------------------------------------------------------------------===//
#include "HarnessResolve.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Verify/HarnessSelect.h"
#include "cudal1/Verify/Runner.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

namespace {

struct FileFacts {
  ProjectModel Model;
  std::vector<ExtractedKernel> Kernels;
};

class CandidateHandler : public TUHandler {
public:
  CandidateHandler(std::string Selector,
                   const ProgramCommandLine *ProgramArgs)
      : Selector(std::move(Selector)), ProgramArgs(ProgramArgs) {}
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    FileFacts &F = Facts[MainFile.str()];
    F.Model.merge(harnessModel(Ctx, nullptr, nullptr, false, ProgramArgs));
    auto K = extractKernels(Ctx, CI.getPreprocessor(), Selector);
    F.Kernels.insert(F.Kernels.end(), K.begin(), K.end());
  }
  FileFacts *factsFor(const std::string &File) {
    SmallString<256> Abs(File);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, true);
    for (auto &KV : Facts)
      if (KV.first == File || KV.first == Abs.str())
        return &KV.second;
    return nullptr;
  }
  std::string Selector;
  const ProgramCommandLine *ProgramArgs;
  std::map<std::string, FileFacts> Facts;
};

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
    ExprEnv Names = launchArgNames(OS[I]->Args, H);
    // Each launch value may use the other one (the reshaped swap's grid
    // reads the block): the other's components are the harness's (the text
    // as written when it does not).
    auto WithOther = [](const std::string &C, const std::string &Other,
                        const std::array<uint64_t, 3> &D) {
      std::string T = withOtherLaunchValue(C, Other, D);
      return T == withoutSpaces(C) ? C : T;
    };
    if (!deriveCandidateDims(OS[I]->Grid.Text,
                             WithOther(CS[I]->Grid.Text, OS[I]->Block.Text,
                                       H.Block),
                             H.Grid, Gi, Why, Names) ||
        !deriveCandidateDims(OS[I]->Block.Text,
                             WithOther(CS[I]->Block.Text, OS[I]->Grid.Text,
                                       H.Grid),
                             H.Block, Bi, Why, Names)) {
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

/// The state of one --verify=run --candidate run.
class CandidateRun {
public:
  CandidateRun(Pipeline &P) : P(P), Opts(P.options()), Handler(Opts.Kernel, Opts.programArgs()) {}

  /// Checks the flags; parses the original and the candidates.
  bool parse();
  /// The original's harness (findHarness) and its captured launches.
  bool harness();
  /// --harness, the configuration, a launch site (errors reported; when
  /// missing, MissingWhy and MissingTemplate say why).
  HarnessStatus findHarness();
  /// One job per usable candidate; false when none is.
  bool jobs();
  /// Runs the jobs on the GPU.
  CandidatesResult verify();

private:
  Pipeline &P;
  const Options &Opts;
  CandidateHandler Handler;
  Exactness Exact = Exactness::Reassociating;
  ExprEnv Env;
  FileFacts *OF = nullptr;
  const ExtractedKernel *OK = nullptr;
  std::vector<ParamInfo> Params;
  Harness H;
  bool HaveHarness = false;
  std::string HarnessSource;
  /// The kernel's other launch values (harnessFromLaunches): an accepted
  /// candidate must be correct there too.
  std::vector<std::pair<std::string, Harness>> OtherLaunches;
  std::vector<ReplayLaunch> Captured;
  std::string MissingWhy, MissingTemplate;
  bool MissingHadLaunches = false;
  std::vector<VerifyJob> Jobs;
  int Exit = 0;
};

bool CandidateRun::parse() {
  if (Opts.Kernel.empty()) {
    reportError("--verify=run with --candidate needs --kernel=<name>");
    return false;
  }
  if (Opts.Files.size() != 1) {
    reportError("--candidate compares against one original file; got " +
                std::to_string(Opts.Files.size()));
    return false;
  }
  std::optional<Exactness> X = exactnessFromString(
      Opts.VerifyExactness == "tolerance" ? std::string("reassociating")
                                          : Opts.VerifyExactness);
  if (!X || *X == Exactness::None) {
    reportError("--verify-exactness='" + Opts.VerifyExactness +
                "': use bitwise, ulp, reassociating or fast-math");
    return false;
  }
  Exact = *X;
  if (Exact == Exactness::FastMath && !Opts.AllowFastMath) {
    reportError("fast-math candidates need --allow-fast-math");
    return false;
  }
  if (!parseDefines(Opts.Defines, Env))
    return false;
  for (const auto &C : Opts.Candidates)
    if (!sys::fs::exists(C)) {
      reportError(C + ": candidate file not found");
      return false;
    }
  const std::string &OriginalFile = Opts.Files.front();
  std::vector<std::string> All = {OriginalFile};
  All.insert(All.end(), Opts.Candidates.begin(), Opts.Candidates.end());
  if (!Opts.Quiet)
    errs() << "cuda-l1: parsing " << All.size() << " file(s)\n";
  P.frontend().run(All, Handler, Opts.Jobs);
  OF = Handler.factsFor(OriginalFile);
  if (!OF) {
    reportError(OriginalFile + ": could not be parsed");
    return false;
  }
  OK = pick(OF->Kernels, Opts.Kernel);
  if (!OK) {
    reportError(OriginalFile + ": no kernel named '" + Opts.Kernel + "'");
    return false;
  }
  if (!OK->Problems.empty()) {
    for (const auto &Pr : OK->Problems)
      reportError(Pr);
    reportError(OriginalFile + ": kernel '" + Opts.Kernel +
                "' could not be extracted for verification");
    return false;
  }
  Params = namedParams(OK->Params);
  return true;
}

bool CandidateRun::harness() {
  if (!capturedLaunchesOf(Opts, mangledNamesOf(OF->Model, OK->Kernel),
                          Captured))
    return false;
  HarnessStatus St = findHarness();
  HaveHarness = St == HarnessStatus::Found;
  if (St == HarnessStatus::Missing && !Captured.empty())
    HarnessSource = "captured launches in " + Opts.CaptureDir;
  else if (St == HarnessStatus::Missing) {
    reportError("no harness for kernel '" + Opts.Kernel + "': " + MissingWhy);
    errs() << "Write a harness spec and pass it with --harness=<file>"
           << (MissingHadLaunches ? " (or --define the values named above)"
                                  : "")
           << "; a filled-in spec to copy:\n\n"
           << MissingTemplate;
    return false;
  }
  return St != HarnessStatus::Error;
}

HarnessStatus CandidateRun::findHarness() {
  const std::string &OriginalFile = Opts.Files.front();
  if (!Opts.HarnessFile.empty()) {
    auto Buf = MemoryBuffer::getFile(Opts.HarnessFile);
    if (!Buf) {
      reportError(Opts.HarnessFile + ": " + Buf.getError().message());
      return HarnessStatus::Error;
    }
    std::string E;
    if (!parseHarnessSpec((*Buf)->getBuffer().str(), Opts.HarnessFile,
                          simpleKernelName(OK->Kernel), Params, Env, H, E)) {
      reportError(E);
      return HarnessStatus::Error;
    }
    HarnessSource = Opts.HarnessFile;
    return HarnessStatus::Found;
  }
  HarnessQuery Q{OriginalFile, OK->Kernel, Params, Env, {}, ""};
  HarnessAnswer CA = harnessFromConfig(Q, P.configs());
  if (CA.Status == HarnessStatus::Error) {
    reportError(CA.Message);
    return HarnessStatus::Error;
  }
  if (CA.Status == HarnessStatus::Found) {
    H = std::move(CA.H);
    HarnessSource = CA.Source;
    return HarnessStatus::Found;
  }
  Q.Uses = bufferUsesOf(OF->Model, OK->Kernel);
  Q.NameExpr = OK->NameExpr;
  for (const auto &LS : OF->Model.LaunchSites)
    if (LS.Kernel == OK->Kernel)
      Q.Launches.push_back(LS);
  HarnessAnswer LA = harnessFromLaunches(Q);
  if (LA.Status == HarnessStatus::Found) {
    H = std::move(LA.H);
    HarnessSource = LA.Source;
    OtherLaunches = std::move(LA.Others);
    if (!Opts.Quiet)
      for (const auto &N : H.Notes)
        reportNote(N);
    return HarnessStatus::Found;
  }
  MissingWhy = LA.Message;
  MissingTemplate = LA.Template;
  MissingHadLaunches = !Q.Launches.empty();
  return HarnessStatus::Missing;
}

bool CandidateRun::jobs() {
  const std::string &OriginalFile = Opts.Files.front();
  for (const auto &C : Opts.Candidates) {
    FileFacts *CF = Handler.factsFor(C);
    const ExtractedKernel *CK = CF ? pick(CF->Kernels, Opts.Kernel) : nullptr;
    if (!CK) {
      reportError(C + ": " +
                  (CF ? "no kernel named '" + Opts.Kernel + "'"
                      : std::string("could not be parsed")));
      Exit = 2;
      continue;
    }
    if (!CK->Problems.empty()) {
      for (const auto &Pr : CK->Problems)
        reportError(Pr);
      Exit = 2;
      continue;
    }
    std::string Why;
    if (!sameSignature(OK->Params, CK->Params, Why)) {
      reportError(C + ": kernel '" + Opts.Kernel +
                  "' has another signature: " + Why);
      Exit = 2;
      continue;
    }
    VerifyJob J;
    J.Kernel = OK->Kernel;
    J.Params = Params;
    J.HaveHarness = HaveHarness;
    J.H = H;
    J.Captured = Captured;
    if (!candidateLaunch(OF->Model, CF->Model, OK->Kernel, J.H, Why)) {
      reportError(Why);
      Exit = 2;
      continue;
    }
    if (!Opts.Quiet && J.H.CandidateGrid && !J.H.CandidateLaunchOrigin.empty())
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
  return !Jobs.empty();
}

CandidatesResult CandidateRun::verify() {
  CandidatesResult R;
  VerifyOptions VO = P.verifyOptions();
  VerifyReport Report;
  if (!P.startVerifyReport(VO,
                           "harness: " + HarnessSource +
                               otherLaunchesNote(OtherLaunches),
                           Report)) {
    R.Exit = 2;
    return R;
  }
  KernelReport KR;
  KR.Kernel = OK->Kernel;
  KR.File = Opts.Files.front();
  KR.HarnessSource = HarnessSource;
  unsigned Index = 0;
  bool AnyAccepted = false;
  for (const auto &J : Jobs) {
    ++Index;
    if (!Opts.Quiet)
      errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Jobs.size(),
                        J.Kernel, J.Candidate.Label);
    CandidateVerdict V = P.verifyWithinBudget(J, VO, Report.Gpu, &KR);
    // A candidate launched with its own shape was derived from the timed
    // launch's values: checked there only.
    if (!J.H.CandidateGrid && !J.H.CandidateBlock)
      verifyOnOtherLaunches(P, J, VO, Report.Gpu, OtherLaunches, Opts.Quiet,
                            formatv("{0}/{1}", Index, Jobs.size()).str(), V);
    else if (V.Accepted && !OtherLaunches.empty())
      V.Notes.push_back("checked on the launch it was timed on only: it is "
                        "launched with its own shape, derived from that "
                        "launch's values");
    if (!Opts.Quiet)
      errs() << formatv("cuda-l1: [{0}/{1}] {2}: {3}\n", Index, Jobs.size(),
                        V.Accepted ? "ACCEPTED" : "rejected",
                        V.Accepted ? V.Reason
                                   : "[" + V.RejectKind + "] " + V.Reason);
    if (!Opts.Quiet)
      for (const std::string &N : V.Notes)
        errs() << "cuda-l1:   note: " << N << "\n";
    if (V.Accepted) {
      AnyAccepted = true;
      if (!Opts.Quiet)
        errs() << formatAnnotation(
            Report.Gpu, *V.Timing,
            "hand-written " + sys::path::filename(J.Candidate.Label).str(),
            V.Exact, V.InputSets.size());
    }
    if (V.RejectKind == "harness" || V.RejectKind == "no-gpu")
      Exit = 2; // bad input, not a verdict on the candidate
    KR.Candidates.push_back(std::move(V));
  }
  Report.Kernels.push_back(KR);
  R.Json = toJson(Report);
  raw_string_ostream OS(R.Summary);
  printSummaryTable(Report, OS);
  OS.flush();
  R.Exit = Exit ? Exit : AnyAccepted ? 0 : 1;
  return R;
}

} // namespace

CandidatesResult Pipeline::verifyCandidates() {
  CandidateRun C(*this);
  CandidatesResult R;
  R.Exit = 2;
  if (!C.parse() || !C.harness() || !C.jobs())
    return R;
  return C.verify();
}

} // namespace cudal1
