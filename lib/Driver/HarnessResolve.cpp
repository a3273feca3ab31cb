//===- HarnessResolve.cpp - the harness of a kernel for --verify=run ------===//
#include "HarnessResolve.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/BufferRoles.h"
#include "cudal1/Analysis/Config.h"
#include "cudal1/Verify/HarnessSelect.h"
#include "cudal1/Verify/Runner.h"
#include "cudal1/Verify/Verdict.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace llvm;

namespace cudal1 {

namespace {
HarnessAnswer fromSpec(const std::string &Text, const std::string &FileName,
                       const std::string &Entry, const HarnessQuery &Q) {
  HarnessAnswer A;
  std::string E;
  if (!parseHarnessSpec(Text, FileName, Entry, Q.Params, Q.Env, A.H, E)) {
    A.Status = HarnessStatus::Error;
    A.Message = E;
    return A;
  }
  A.Status = HarnessStatus::Found;
  return A;
}
} // namespace

bool parseDefines(const std::vector<std::string> &Defines, ExprEnv &Env) {
  for (const std::string &D : Defines) {
    std::string E;
    if (!parseDefine(D, Env, E)) {
      reportError(E);
      return false;
    }
  }
  return true;
}

HarnessAnswer harnessFromConfig(const HarnessQuery &Q, ConfigStore &Configs) {
  HarnessAnswer A;
  const ConfigStore::Entry &P = Configs.forFile(Q.SourceFile);
  if (P.Ok && !P.Config.Harness)
    return A; // Missing
  if (!P.Ok) {
    A.Status = HarnessStatus::Error;
    A.Message = P.message();
    return A;
  }
  const ConfigHarness &CH = *P.Config.Harness;
  const std::string &Config = P.Config.Source;
  std::string Where = Config + ":" + std::to_string(CH.Line);
  if (!CH.SpecFile.empty()) {
    auto Buf = MemoryBuffer::getFile(CH.SpecFile);
    if (!Buf) {
      A.Status = HarnessStatus::Error;
      A.Message = Config + ":" + std::to_string(CH.Line) + ":" +
                  std::to_string(CH.Column) + ": Harness: " + CH.SpecFile +
                  ": " + Buf.getError().message();
      return A;
    }
    std::string Text = (*Buf)->getBuffer().str();
    auto Entry = harnessSpecEntry(Text, Q.Kernel);
    if (!Entry) {
      A.Message = CH.SpecFile + " (Harness: of " + Where +
                  ") has no entry for kernel '" + Q.Kernel + "'";
      return A;
    }
    A = fromSpec(Text, CH.SpecFile, *Entry, Q);
    A.Source = CH.SpecFile + " (Harness: in " + Where + ")";
    return A;
  }
  auto Entry = harnessSpecEntry(CH.SpecText, Q.Kernel);
  if (!Entry) {
    A.Message = "the Harness: in " + Where + " has no entry for kernel '" +
                Q.Kernel + "'";
    return A;
  }
  A = fromSpec(CH.SpecText, Config, *Entry, Q);
  if (A.Status == HarnessStatus::Error)
    A.Message = configHarnessError(A.Message, Config);
  A.Source = "Harness: in " + Where;
  return A;
}

ProjectModel harnessModel(clang::ASTContext &Ctx, const FileFilter &IsUser,
                          const ExternalCalls *Calls, bool RecordCalls,
                          const ProgramCommandLine *ProgramArgs) {
  ProjectModel M =
      collectKernelModel(Ctx, IsUser, Calls, RecordCalls, ProgramArgs);
  std::unique_ptr<AnalysisResults> A = AnalysisResults::analyze(Ctx, M, IsUser);
  addBufferUses(Ctx, *A, M);
  return M;
}

ExternalCalls
callsAcrossFiles(const std::map<std::string, ProjectModel> &PerFile) {
  ExternalCalls All;
  for (const auto &KV : PerFile)
    for (const auto &C : KV.second.CallsOut) {
      std::vector<ExternalCall> &Into = All[C.first];
      Into.insert(Into.end(), C.second.begin(), C.second.end());
    }
  return All;
}

namespace {
/// What the calls of \p K say, in short: per call, how many of its values
/// are unknown (a round that learns something lowers one).
std::string callsSummary(const ExternalCalls &Calls, const std::string &K) {
  auto It = Calls.find(K);
  if (It == Calls.end())
    return "-";
  std::string S;
  for (const ExternalCall &X : It->second) {
    unsigned Unknown = X.Unknowns.size();
    for (const ValueInfo &A : X.Args)
      Unknown += A.Kind == ValueInfo::Unknown;
    S += std::to_string(Unknown) + ",";
  }
  return S;
}
} // namespace

std::vector<std::string>
filesNeedingCalls(const std::map<std::string, ProjectModel> &PerFile,
                  const ExternalCalls &Calls, const ExternalCalls *Before) {
  std::vector<std::string> Again;
  auto Says = [&](const std::string &K) {
    return Calls.count(K) > 0 &&
           (!Before || callsSummary(Calls, K) != callsSummary(*Before, K));
  };
  for (const auto &KV : PerFile)
    if (llvm::any_of(KV.second.Unreached, Says) ||
        llvm::any_of(KV.second.CallsNeed, Says))
      Again.push_back(KV.first);
  return Again;
}

ProjectModel modelAcrossFiles(Frontend &FE,
                              std::map<std::string, ProjectModel> PerFile,
                              unsigned Jobs, const ModelBuilderFn &Build) {
  // What each file needs, from the first pass (a later pass that got the
  // values needs them no more, but the next round may say more).
  std::map<std::string, ProjectModel> Needs;
  for (const auto &KV : PerFile) {
    Needs[KV.first].Unreached = KV.second.Unreached;
    Needs[KV.first].CallsNeed = KV.second.CallsNeed;
  }
  ExternalCalls All = callsAcrossFiles(PerFile), Before;
  for (unsigned Round = 0; Round < kMaxCallRounds; ++Round) {
    std::vector<std::string> Again =
        filesNeedingCalls(Needs, All, Round ? &Before : nullptr);
    if (Again.empty())
      break;
    struct Handler : TUHandler {
      void handleTranslationUnit(clang::ASTContext &Ctx,
                                 clang::CompilerInstance &,
                                 StringRef MainFile) override {
        Out[MainFile.str()] = Build(Ctx, Calls, true);
      }
      const ExternalCalls *Calls = nullptr;
      ModelBuilderFn Build;
      std::map<std::string, ProjectModel> Out;
    } H;
    H.Calls = &All;
    H.Build = Build;
    FE.run(Again, H, Jobs);
    for (auto &KV : H.Out)
      PerFile[KV.first] = std::move(KV.second);
    Before = std::move(All);
    All = callsAcrossFiles(PerFile);
  }
  ProjectModel M;
  for (const auto &KV : PerFile)
    M.merge(KV.second);
  M.sort();
  return M;
}

std::vector<BufferUse> bufferUsesOf(const ProjectModel &M,
                                    const std::string &QualifiedName) {
  for (const KernelInfo &K : M.Kernels)
    if (K.QualifiedName == QualifiedName)
      return K.BufferUses;
  return {};
}

namespace {
std::string shortPath(const std::string &Loc) {
  return sys::path::filename(Loc).str();
}

/// What a run of the harness depends on: launch shape, shared memory,
/// scalar values and buffer sizes (not the notes or where they came from).
std::string harnessValuesKey(const Harness &H) {
  std::string K;
  raw_string_ostream OS(K);
  for (uint64_t D : H.Grid)
    OS << D << ',';
  for (uint64_t D : H.Block)
    OS << D << ',';
  OS << H.SharedMem << ';';
  for (const Harness::Arg &A : H.Args) {
    if (A.IsBuffer)
      OS << 'b' << A.Buffer.Count << '+' << A.Buffer.Before << ';';
    else if (A.Scalar.Record) {
      OS << 'r';
      for (const ScalarSpec::Member &M : A.Scalar.Members)
        if (M.Value.IsFloat)
          OS << 'f' << format("%a", M.Value.F) << ',';
        else
          OS << 'i' << M.Value.I << ',';
      OS << ';';
    } else if (A.Scalar.Value.IsFloat)
      OS << 'f' << format("%a", A.Scalar.Value.F) << ';';
    else
      OS << 'i' << A.Scalar.Value.I << ';';
  }
  return OS.str();
}

std::string origin(const LaunchSite &LS, const LaunchValues &V) {
  std::string S = "inferred from the launch at " + shortPath(LS.Loc.str());
  if (!V.Path.empty())
    S += " (through " + V.Path.back() + ")";
  return S;
}
} // namespace

HarnessAnswer harnessFromLaunches(const HarnessQuery &Q) {
  HarnessAnswer A;
  std::string Simple = simpleKernelName(Q.Kernel);
  std::optional<InferredHarness> Best;
  std::string BestOrigin;
  std::set<std::string> Keys; // the values of the harnesses kept
  unsigned MainChosen = 0;    // chosen values in A.H
  for (const LaunchSite &LS : Q.Launches)
    for (const LaunchValues &V : LS.Values) {
      if (!Q.NameExpr.empty() && !V.NameExpr.empty() &&
          V.NameExpr != Q.NameExpr)
        continue; // another instantiation of a template kernel
      InferredHarness IH = inferHarness(Simple, Q.Params, V, Q.Uses, Q.Env);
      // The kernel is timed on the first complete tuple, preferring one
      // whose values are all the program's (no chosen value); the other
      // complete tuples of distinct values are checked for correctness.
      if (IH.Complete && A.Status == HarnessStatus::Found &&
          !(MainChosen && !IH.Chosen)) {
        std::string Key = harnessValuesKey(IH.H);
        if (Keys.insert(Key).second &&
            A.Others.size() < kMaxOtherHarnesses)
          A.Others.push_back({origin(LS, V), std::move(IH.H)});
        continue;
      }
      if (IH.Complete) {
        if (A.Status == HarnessStatus::Found) // it had a chosen value
          A.Others.insert(A.Others.begin(), {A.Source, std::move(A.H)});
        if (A.Others.size() > kMaxOtherHarnesses)
          A.Others.pop_back();
        A.Status = HarnessStatus::Found;
        A.H = std::move(IH.H);
        A.H.Notes.insert(A.H.Notes.end(), IH.Notes.begin(), IH.Notes.end());
        A.Source = origin(LS, V);
        MainChosen = IH.Chosen;
        Keys.insert(harnessValuesKey(A.H));
        continue;
      }
      if (A.Status == HarnessStatus::Found)
        continue;
      if (!Best || IH.Missing.size() < Best->Missing.size()) {
        Best = std::move(IH);
        BestOrigin = origin(LS, V);
      }
    }
  if (A.Status == HarnessStatus::Found)
    return A;
  A.Status = HarnessStatus::Missing;
  if (Q.Launches.empty()) {
    A.Message = "no launch site of '" + Q.Kernel + "' in the files given";
    A.Template = harnessTemplate(Simple, Q.Params);
    return A;
  }
  if (!Best) {
    const LaunchSite &LS = Q.Launches.front();
    A.Message = "the launch at " + shortPath(LS.Loc.str()) +
                " could not be evaluated" +
                (LS.ValuesNote.empty() ? "" : " (" + LS.ValuesNote + ")");
    A.Template = harnessTemplate(Simple, Q.Params);
    return A;
  }
  A.Message = BestOrigin.substr(std::string("inferred from ").size()) +
              " leaves unknown: ";
  for (size_t I = 0; I < Best->Missing.size(); ++I)
    A.Message += (I ? "; " : "") + Best->Missing[I];
  A.Template = "# harness for " + Simple + ", " + BestOrigin +
               "; replace each \"?\" (docs/harness.md)\nkernel: " + Simple +
               "\n" + Best->Spec;
  return A;
}

std::string
otherLaunchesNote(const std::vector<std::pair<std::string, Harness>> &Others) {
  if (Others.empty())
    return "";
  return formatv(" (+{0} other {1} values, checked for correctness)",
                 Others.size(), Others.size() == 1 ? "launch's" : "launches'")
      .str();
}

void verifyOnOtherLaunches(
    Pipeline &P, const VerifyJob &Main, VerifyOptions O, const GpuInfo &Gpu,
    const std::vector<std::pair<std::string, Harness>> &Others, bool Quiet,
    const std::string &Tag, CandidateVerdict &V) {
  if (Others.empty() || !V.Accepted)
    return;
  // Correctness only: the speedup stays the one measured on the harness
  // the kernel was timed on.
  O.Time = false;
  unsigned N = 0;
  for (const auto &Other : Others) {
    VerifyJob J = Main;
    J.H = Other.second;
    J.H.CandidateGrid.reset();
    J.H.CandidateBlock.reset();
    J.HaveHarness = true;
    J.Captured.clear(); // replayed by the main job already
    std::string Values = Other.first.substr(
        Other.first.rfind("inferred from ", 0) == 0
            ? std::string("inferred from ").size()
            : 0);
    if (!Quiet)
      errs() << formatv("cuda-l1: [{0}] {1}: correctness on the values of "
                        "{2}\n",
                        Tag, Main.Kernel, Values);
    CandidateVerdict R = P.verifyWithinBudget(J, O, Gpu, nullptr);
    if (R.RejectKind == "harness" && R.InputSets.empty()) {
      // The original itself cannot run on these values (the inference of
      // that launch is wrong): a fact about the harness, not the candidate.
      V.Notes.push_back("not checked on the values of " + Values +
                        ": that harness is unusable: " + R.Reason);
      continue;
    }
    if (!R.Correct || R.RejectKind == "budget") {
      V.Accepted = false;
      V.Correct = R.RejectKind == "budget" ? V.Correct : false;
      V.RejectKind = R.RejectKind.empty() ? "mismatch" : R.RejectKind;
      V.Reason = "on the values of " + Values + ": " + R.Reason;
      return;
    }
    ++N;
  }
  if (N)
    V.Notes.push_back(formatv("also correct on the values of {0} other "
                            "launch{1} of the kernel (not timed there)",
                            N, N == 1 ? "" : "es")
                        .str());
}

HarnessAnswer resolveHarness(const HarnessQuery &Q, ConfigStore &Configs) {
  HarnessAnswer A;
  // 1. --harness, when it has an entry for this kernel.
  if (!Q.CommandLineSpec.empty()) {
    auto Buf = MemoryBuffer::getFile(Q.CommandLineSpec);
    if (!Buf) {
      A.Status = HarnessStatus::Error;
      A.Message = Q.CommandLineSpec + ": " + Buf.getError().message();
      return A;
    }
    std::string Text = (*Buf)->getBuffer().str();
    if (auto Entry = harnessSpecEntry(Text, Q.Kernel)) {
      A = fromSpec(Text, Q.CommandLineSpec, *Entry, Q);
      A.Source = Q.CommandLineSpec;
      return A;
    }
  }
  // 2. .cuda-l1.yaml.
  A = harnessFromConfig(Q, Configs);
  if (A.Status != HarnessStatus::Missing)
    return A;
  std::string ConfigWhy = A.Message;
  // 3. The values of a launch site, from the AST (and --define).
  A = harnessFromLaunches(Q);
  if (A.Status == HarnessStatus::Missing) {
    A.Message = "no harness for kernel '" + Q.Kernel + "': " + A.Message;
    if (!ConfigWhy.empty())
      A.Message += "; " + ConfigWhy;
  }
  return A;
}

} // namespace cudal1
