//===- FixVerify.cpp - --fix --verify=run: each fix verified on the GPU ---===//
//
// With --verify=run, every fix the rewrite engine would apply becomes a
// candidate (DESIGN.md, "Verification and benchmarking"): the kernel,
// extracted with its context, with that fix's edits applied, verified and
// timed against the original through lib/Verify (the path --verify=run
// --candidate uses). Several accepted fixes of one kernel are verified
// together too. applyFixes() then applies what this accepts, with the
// annotation edit it returns.
//
//===----------------------------------------------------------------------===//
#include "HarnessResolve.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Rules/ApplyFixes.h"
#include "cudal1/Verify/FixCandidate.h"
#include "cudal1/Verify/HarnessSelect.h"
#include "cudal1/Verify/LaunchText.h"
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <functional>

using namespace llvm;

namespace cudal1 {

namespace {

using Dims = std::array<uint64_t, 3>;


/// The options of one job: the run's, widened by what the rules say their
/// fixes may change (ulp count, tolerances).
VerifyOptions optionsFor(const VerifyOptions &Base,
                         const std::vector<const Finding *> &Fs) {
  VerifyOptions O = Base;
  for (const Finding *F : Fs) {
    O.Tol.MaxUlp = std::max<uint64_t>(O.Tol.MaxUlp, F->Fix->Ulp);
    O.Tol.F32Rtol = std::max(O.Tol.F32Rtol, F->Fix->Rtol);
    O.Tol.F32Atol = std::max(O.Tol.F32Atol, F->Fix->Atol);
    O.Tol.ScaleRtol = std::max(O.Tol.ScaleRtol, F->Fix->ScaleRtol);
    for (const std::string &P : F->Fix->GridSumParams)
      if (std::find(O.Tol.GridSums.begin(), O.Tol.GridSums.end(), P) ==
          O.Tol.GridSums.end())
        O.Tol.GridSums.push_back(P);
  }
  return O;
}

/// One kernel with fixes to verify.
struct KernelWork {
  std::string Kernel;
  const KernelSources *KS = nullptr;
  std::string File, FileText, KernelText;
  size_t KernelOffset = 0;
  HarnessAnswer HA;
  std::vector<ParamInfo> Params;
  /// Launches recorded by cuda-l1-capture (--capture): more input sets, and
  /// the timed input when there is no harness.
  std::vector<ReplayLaunch> Captured;
  std::vector<size_t> Findings; ///< all of this kernel
  /// finding -> the candidate's whole extracted source (the kernel and the
  /// device functions it calls, with the fix's edits)
  std::map<size_t, std::string> Candidate;
  /// finding -> the candidate's own launch shape (a fix that rewrites the
  /// kernel's launch sites too: thread-mapping swap, warp per row)
  std::map<size_t, std::pair<Dims, Dims>> Launch;
};

/// The offset of the comma that ends the grid of the chevron launch whose
/// text starts at \p At (`k<<<grid, block>>>`): the first comma after `<<<`
/// outside parentheses, brackets and braces; std::nullopt when there is no
/// `<<<` within the next 4096 characters or no such comma before `>>>`.
std::optional<size_t> configComma(const std::string &Text, size_t At) {
  size_t Open = Text.find("<<<", At);
  if (Open == std::string::npos || Open > At + 4096)
    return std::nullopt;
  int Depth = 0;
  for (size_t I = Open + 3; I < Text.size() && I < Open + 4096; ++I) {
    char Ch = Text[I];
    if (Ch == '(' || Ch == '[' || Ch == '{')
      ++Depth;
    else if (Ch == ')' || Ch == ']' || Ch == '}')
      --Depth;
    else if (Depth == 0 && Ch == ',')
      return I;
    else if (Depth == 0 && Text.compare(I, 3, ">>>") == 0)
      return std::nullopt;
  }
  return std::nullopt;
}

/// Takes the edits of \p Edits that rewrite the grid or block expression of
/// one of the kernel's launch sites out of \p Edits and derives the
/// candidate's launch shape from them (deriveCandidateDims). Edits elsewhere
/// outside the kernel stay (applyEditsToKernel refuses them). False with
/// \p Why when launch-site edits do not give one shape.
bool takeLaunchEdits(const KernelWork &W, const Harness &H,
                     std::vector<TextEdit> &Edits, std::optional<Dims> &Grid,
                     std::optional<Dims> &Block, std::string &Why) {
  size_t KB = W.KernelOffset, KE = W.KernelOffset + W.KernelText.size();
  std::vector<TextEdit> Keep;
  for (const TextEdit &E : Edits) {
    bool Inside = E.Offset >= KB && E.Offset + E.Length <= KE;
    if (Inside || E.File != W.File || E.Offset + E.Length > W.FileText.size()) {
      Keep.push_back(E);
      continue;
    }
    std::string Orig = withoutSpaces(W.FileText.substr(E.Offset, E.Length));
    bool Taken = false;
    for (const LaunchSite &LS : W.KS->Launches) {
      if (LS.Loc.File != W.File || Orig.empty())
        continue;
      size_t At = offsetOfLineColumn(W.FileText, LS.Loc.Line, LS.Loc.Column);
      if (E.Offset < At || E.Offset > At + 4096)
        continue;
      // The edit lies in this launch's configuration, not a later one's.
      size_t Close = W.FileText.find(">>>", At);
      if (Close != std::string::npos && E.Offset >= Close) {
        // An edit of one of this launch's scalar arguments that keeps its
        // value at the harness's launch.
        std::optional<size_t> Index =
            launchArgIndexAt(W.FileText, Close, E.Offset);
        if (!Index || *Index >= LS.Args.size() ||
            withoutSpaces(LS.Args[*Index]) != Orig)
          continue;
        if (!launchArgEditKeepsValue(LS, H, *Index, E.Replacement, Why))
          return false;
        Taken = true;
        break;
      }
      bool IsGrid = Orig == withoutSpaces(LS.Grid.Text);
      bool IsBlock = Orig == withoutSpaces(LS.Block.Text);
      if (!IsGrid && !IsBlock)
        continue;
      if (IsGrid && IsBlock) {
        // `<<<1, 1>>>`: the edit's place says which: before the first
        // top-level comma after the chevrons is the grid.
        std::optional<size_t> Comma = configComma(W.FileText, At);
        if (!Comma) {
          Why = "a launch-site edit of '" + LS.Grid.Text +
                "' is both the grid and the block expression";
          return false;
        }
        IsGrid = E.Offset < *Comma;
        IsBlock = !IsGrid;
      }
      Dims D;
      // The other launch value may appear in this one (a block that
      // depends on the grid: launch-small-block's fold): its components
      // are the harness's.
      std::string Repl =
          withOtherLaunchValue(E.Replacement,
                               IsGrid ? LS.Block.Text : LS.Grid.Text,
                               IsGrid ? H.Block : H.Grid);
      if (!deriveCandidateDims(IsGrid ? LS.Grid.Text : LS.Block.Text, Repl,
                               IsGrid ? H.Grid : H.Block, D, Why,
                               launchArgNames(LS.Args, H)))
        return false;
      auto &Slot = IsGrid ? Grid : Block;
      if (Slot && *Slot != D) {
        Why = "its launch-site edits give different launch shapes";
        return false;
      }
      Slot = D;
      Taken = true;
      break;
    }
    if (!Taken)
      Keep.push_back(E);
  }
  Edits = std::move(Keep);
  return true;
}

/// A device function copied into a kernel's extracted source: where it
/// stands in its file and in the source.
struct DevicePiece {
  std::string Name; ///< "cnd"
  std::string File;
  size_t FileBegin = 0, FileEnd = 0, SrcBegin = 0;
};

/// The device functions of \p KS found verbatim in its extracted source
/// (\p Text gives a file's text, nullptr when unreadable).
std::vector<DevicePiece>
devicePieces(const KernelSources &KS,
             const std::function<const std::string *(const std::string &)>
                 &Text) {
  std::vector<DevicePiece> Out;
  const ExtractedKernel &K = KS.K;
  for (const CopiedPiece &P : K.Pieces) {
    StringRef What = P.What;
    if (!What.consume_front("device function ") || P.Begin.File.empty() ||
        P.Begin.File != P.End.File)
      continue;
    const std::string *FT = Text(P.Begin.File);
    if (!FT)
      continue;
    size_t B = offsetOfLineColumn(*FT, P.Begin.Line, P.Begin.Column);
    size_t E = offsetOfLineColumn(*FT, P.End.Line, P.End.Column) + 1;
    if (B >= E || E > FT->size())
      continue;
    std::string PieceText = FT->substr(B, E - B);
    size_t At = K.Source.find(PieceText);
    // Found once: a second copy of the same text (two namespaces' functions
    // written alike) would leave the edit's place ambiguous.
    if (At == std::string::npos ||
        K.Source.find(PieceText, At + 1) != std::string::npos ||
        (At < K.KernelEnd && At + (E - B) > K.KernelBegin))
      continue;
    Out.push_back({What.str(), P.Begin.File, B, E, At});
  }
  return Out;
}

/// The device piece of \p Ps that holds edit \p E, or nullptr.
const DevicePiece *pieceOf(const std::vector<DevicePiece> &Ps,
                           const TextEdit &E) {
  for (const DevicePiece &P : Ps)
    if (P.File == E.File && E.Offset >= P.FileBegin &&
        E.Offset + E.Length <= P.FileEnd)
      return &P;
  return nullptr;
}

/// The fixes applyFixes would consider (the others it reports itself).
bool isCandidateFix(const Finding &F, bool FastMathOk) {
  return F.Fix && !F.Fix->Edits.empty() && F.Fix->Exact != Exactness::None &&
         F.Fix->Proven && (F.Fix->Exact != Exactness::FastMath || FastMathOk);
}

/// The state of one --fix --verify=run.
class FixVerifier {
public:
  FixVerifier(Pipeline &P, const AnalysisRun &Run, FixVerifyResult &Result)
      : P(P), Opts(P.options()), Run(Run), Result(Result) {}

  /// Groups the candidate fixes by kernel; false (error reported) on a bad
  /// --define.
  bool group();
  /// Kernel text, harness and candidate sources of \p W; false on bad input
  /// (a harness spec or configuration that is wrong).
  bool prepare(KernelWork &W);
  /// Prints which fixes are candidates and which are not (and why).
  void printPlan() const;
  /// The verifier's options and the GPU the candidates run on.
  void start(const VerifyOptions &O, const GpuInfo &G) {
    VO = O;
    Gpu = G;
  }
  /// Verifies the candidates of \p W on the GPU and decides what to apply.
  void verifyKernel(KernelWork &W, VerifyReport &Report);

  std::vector<KernelWork> Work;
  unsigned NumCandidates = 0;
  bool HarnessFailed = false;

private:
  const Finding &finding(size_t I) const { return Run.Findings[I]; }
  void decline(size_t I, std::string Why) { Result.Decisions[I].Why = Why; }
  CandidateVerdict runJob(KernelWork &W, const std::vector<size_t> &Fs,
                          const std::string &Src, const std::string &Label,
                          KernelReport &KR);
  /// An accepted \p V of the job \p Main: rejected unless the candidate is
  /// also correct on the kernel's other launch values (HarnessAnswer::
  /// Others).
  void checkOtherLaunches(const KernelWork &W, const std::vector<size_t> &Fs,
                          const VerifyJob &Main,
                          const std::vector<const Finding *> &FP,
                          const std::string &Tag, CandidateVerdict &V);
  void chooseApplied(KernelWork &W,
                     std::vector<std::pair<size_t, CandidateVerdict>> Accepted,
                     std::vector<std::pair<size_t, CandidateVerdict>> NotFaster,
                     KernelReport &KR);

  /// The candidate source of \p W with \p Edits: edits in the kernel's
  /// definition and in the device functions copied with it; false with
  /// \p Why when an edit lies elsewhere or two overlap.
  bool candidateSource(const KernelWork &W, std::vector<TextEdit> Edits,
                       std::string &Src, std::string &Why);
  /// A file's text (an editor's buffer first), read once; nullptr when it
  /// cannot be read.
  const std::string *fileText(const std::string &Path);
  /// devicePieces of \p KS, found once.
  const std::vector<DevicePiece> &piecesOf(const KernelSources &KS);
  /// The kernels whose extracted source copies the device function that
  /// holds every edit of \p F (its callers, direct or not), and that
  /// function's name.
  std::vector<std::string> callersOf(const Finding &F, std::string &Fn);

  Pipeline &P;
  const Options &Opts;
  const AnalysisRun &Run;
  FixVerifyResult &Result;
  std::map<std::string, std::optional<std::string>> Files;
  std::map<const KernelSources *, std::vector<DevicePiece>> Pieces;
  ExprEnv Env;
  VerifyOptions VO;
  GpuInfo Gpu;
  unsigned Index = 0;
  unsigned Extra = 0; ///< jobs of several fixes together (not counted)
};

bool FixVerifier::group() {
  if (!parseDefines(Opts.Defines, Env))
    return false;
  std::map<std::string, size_t> WorkOf;
  for (size_t I = 0; I < Run.Findings.size(); ++I) {
    const Finding &F = finding(I);
    if (!isCandidateFix(F, Opts.AllowFastMath))
      continue;
    Result.Decisions[I]; // a candidate: it has a decision
    std::string Key = F.Kernel;
    if (F.Kernel.empty()) {
      const FixIt &X = *F.Fix;
      if (hostProvenFix(X)) {
        // Host code proven exact by the analysis: nothing to run on the GPU.
        Result.Decisions[I].Apply = true;
        errs() << "cuda-l1: " << F.Loc.str() << " [" << F.RuleId
               << "]: host code proven exact by the analysis: applied "
                  "without a GPU run (--app-test runs your tests on it)\n";
        continue;
      }
      // A fix in a device function: verified through the one kernel that
      // calls it (its extracted source copies the function).
      std::string Fn;
      std::vector<std::string> Callers = callersOf(F, Fn);
      // Every kernel of the file that calls it, not only those extracted;
      // and host code that may call it too.
      if (auto DC = Run.DeviceFunctionCallers.find(Fn);
          !Callers.empty() && DC != Run.DeviceFunctionCallers.end()) {
        if (DC->second.Host) {
          decline(I, "in __host__ __device__ function '" + Fn +
                         "': host code may call it too, and --verify=run "
                         "verifies only the device side");
          continue;
        }
        if (DC->second.Kernels.size() > 1)
          Callers.assign(DC->second.Kernels.begin(), DC->second.Kernels.end());
      }
      if (Callers.size() != 1) {
        std::string List;
        for (const std::string &K : Callers)
          List += (List.empty() ? "'" : ", '") + K + "'";
        decline(I, Callers.empty()
                       ? "not in a kernel: --verify=run verifies kernels and "
                         "the device functions a kernel of this file calls "
                         "(this fix is in host code, or in a device function "
                         "no kernel here calls)"
                       : "in device function '" + Fn +
                             "', which several kernels call (" + List +
                             "): --verify=run verifies a device function's "
                             "fix through the one kernel that calls it");
        continue;
      }
      if (!Opts.Quiet)
        errs() << "cuda-l1: " << F.Loc.brief() << " [" << F.RuleId
               << "]: in device function '" << Fn
               << "': verified through kernel '" << Callers[0]
               << "', its only caller\n";
      Key = Callers[0];
      Result.Decisions[I].Kernel = Key;
    }
    auto It = WorkOf.find(Key);
    if (It == WorkOf.end()) {
      It = WorkOf.emplace(Key, Work.size()).first;
      Work.emplace_back();
      Work.back().Kernel = Key;
    }
    Work[It->second].Findings.push_back(I);
  }
  return true;
}

const std::string *FixVerifier::fileText(const std::string &Path) {
  auto It = Files.find(Path);
  if (It == Files.end()) {
    std::optional<std::string> T;
    if (auto Ov = Opts.Overlay.find(Path); Ov != Opts.Overlay.end())
      T = Ov->second;
    else if (auto Buf = MemoryBuffer::getFile(Path))
      T = (*Buf)->getBuffer().str();
    It = Files.emplace(Path, std::move(T)).first;
  }
  return It->second ? &*It->second : nullptr;
}

const std::vector<DevicePiece> &
FixVerifier::piecesOf(const KernelSources &KS) {
  auto It = Pieces.find(&KS);
  if (It == Pieces.end())
    It = Pieces
             .emplace(&KS, devicePieces(KS, [&](const std::string &P) {
                        return fileText(P);
                      }))
             .first;
  return It->second;
}

std::vector<std::string> FixVerifier::callersOf(const Finding &F,
                                                std::string &Fn) {
  std::vector<std::string> Out;
  for (const auto &KV : Run.Kernels) {
    if (!KV.second.K.Problems.empty())
      continue;
    const std::vector<DevicePiece> &Ps = piecesOf(KV.second);
    const DevicePiece *In = nullptr;
    bool All = !F.Fix->Edits.empty();
    for (const TextEdit &E : F.Fix->Edits) {
      const DevicePiece *P = pieceOf(Ps, E);
      if (!P || (In && P->FileBegin != In->FileBegin)) {
        All = false;
        break;
      }
      In = P;
    }
    if (All && In) {
      Fn = In->Name;
      Out.push_back(KV.first);
    }
  }
  return Out;
}

bool FixVerifier::candidateSource(const KernelWork &W,
                                  std::vector<TextEdit> Edits,
                                  std::string &Src, std::string &Why) {
  size_t KB = W.KernelOffset, KE = W.KernelOffset + W.KernelText.size();
  std::vector<TextEdit> InKernel;
  std::vector<std::pair<size_t, const TextEdit *>> InPieces; // source offset
  const std::vector<DevicePiece> &Ps = piecesOf(*W.KS);
  for (const TextEdit &E : Edits) {
    if (E.File == W.File && E.Offset >= KB && E.Offset + E.Length <= KE) {
      InKernel.push_back(E);
      continue;
    }
    const DevicePiece *P = pieceOf(Ps, E);
    if (!P) {
      Why = "it edits code outside the kernel's definition and the device "
            "functions it calls (a launch site or a declaration elsewhere)";
      return false;
    }
    InPieces.push_back({P->SrcBegin + (E.Offset - P->FileBegin), &E});
  }
  std::string Def;
  if (!applyEditsToKernel(W.KernelText, W.KernelOffset, InKernel, Def, Why))
    return false;
  ExtractedKernel K = W.KS->K;
  // From the end of the source: each offset stays valid; the kernel moves
  // by what the edits before it add.
  std::sort(InPieces.begin(), InPieces.end(), [](const auto &A, const auto &B) {
    return A.first > B.first ||
           (A.first == B.first && A.second->Length > B.second->Length);
  });
  size_t Limit = std::string::npos;
  for (const auto &[At, E] : InPieces) {
    if (At + E->Length > Limit || At + E->Length > K.Source.size()) {
      Why = "two of its edits overlap";
      return false;
    }
    Limit = At;
    K.Source.replace(At, E->Length, E->Replacement);
    if (At < K.KernelBegin) {
      long D = long(E->Replacement.size()) - long(E->Length);
      K.KernelBegin += D;
      K.KernelEnd += D;
    }
  }
  Src = replaceKernel(K, Def);
  return true;
}

bool FixVerifier::prepare(KernelWork &W) {
  auto DeclineAll = [&](const std::string &Why) {
    for (size_t I : W.Findings)
      decline(I, Why);
    return true;
  };
  auto KIt = Run.Kernels.find(W.Kernel);
  if (KIt == Run.Kernels.end())
    return DeclineAll("kernel '" + W.Kernel + "' could not be extracted");
  W.KS = &KIt->second;
  const ExtractedKernel &K = W.KS->K;
  if (!K.Problems.empty())
    return DeclineAll("kernel '" + W.Kernel +
                      "' could not be extracted for verification: " +
                      K.Problems[0]);
  W.File = K.KernelRange.Begin.File;
  auto Ov = Opts.Overlay.find(W.File); // an editor's buffer
  if (Ov != Opts.Overlay.end()) {
    W.FileText = Ov->second;
  } else {
    auto Buf = MemoryBuffer::getFile(W.File);
    if (!Buf)
      return DeclineAll(W.File + ": " + Buf.getError().message());
    W.FileText = (*Buf)->getBuffer().str();
  }
  size_t B = std::min(K.KernelBegin, K.Source.size());
  size_t E = std::min(std::max(K.KernelEnd, B), K.Source.size());
  W.KernelText = K.Source.substr(B, E - B);
  auto Off = locateKernelText(
      W.FileText, W.KernelText,
      offsetOfLineColumn(W.FileText, K.KernelRange.Begin.Line,
                         K.KernelRange.Begin.Column));
  if (!Off)
    return DeclineAll("the definition of kernel '" + W.Kernel +
                      "' as extracted is not found verbatim in " + W.File);
  W.KernelOffset = *Off;
  W.Params = namedParams(K.Params);

  HarnessQuery Q;
  Q.SourceFile = W.File;
  Q.Kernel = W.Kernel;
  Q.Params = W.Params;
  Q.Env = Env;
  Q.Launches = W.KS->Launches;
  Q.CommandLineSpec = Opts.HarnessFile;
  Q.Uses = W.KS->Uses;
  Q.NameExpr = K.NameExpr;
  W.HA = resolveHarness(Q, P.configs());
  if (W.HA.Status == HarnessStatus::Error) {
    reportError(W.HA.Message);
    return false;
  }
  if (!capturedLaunchesOf(Opts, W.KS->MangledNames, W.Captured))
    return false;
  if (W.HA.Status == HarnessStatus::Missing && !W.Captured.empty()) {
    W.HA.Source = "captured launches in " + Opts.CaptureDir;
  } else if (W.HA.Status == HarnessStatus::Missing) {
    DeclineAll(W.HA.Message + " (give one with --harness=<file> or Harness: "
                              "in .cuda-l1.yaml; docs/harness.md)");
    if (!Opts.Quiet)
      errs() << "cuda-l1: " << W.HA.Message
             << "; a filled-in harness spec to copy (--harness=<file>, "
                "or under 'Harness: kernels:' in .cuda-l1.yaml):\n\n"
             << W.HA.Template << "\n";
    return true;
  }
  for (size_t I : W.Findings) {
    std::string Def, Why;
    std::vector<TextEdit> KernelEdits = finding(I).Fix->Edits;
    std::optional<Dims> LG, LB;
    bool Ok = takeLaunchEdits(W, W.HA.H, KernelEdits, LG, LB, Why);
    if (Ok && (LG || LB) && W.HA.Status != HarnessStatus::Found) {
      Ok = false;
      Why = "it changes the launch shape, and the kernel has no harness to "
            "derive the new shape from (captured launches keep the "
            "original's)";
    }
    if (!Ok || !candidateSource(W, KernelEdits, Def, Why)) {
      decline(I, "not verifiable as a kernel candidate: " + Why);
      continue;
    }
    W.Candidate[I] = Def;
    if (LG || LB)
      W.Launch[I] = {LG.value_or(W.HA.H.Grid), LB.value_or(W.HA.H.Block)};
    ++NumCandidates;
  }
  return true;
}

void FixVerifier::printPlan() const {
  if (Opts.Quiet)
    return;
  unsigned N = 0;
  for (const KernelWork &W : Work)
    for (auto &C : W.Candidate) {
      const Finding &F = finding(C.first);
      errs() << formatv("cuda-l1: candidate {0}/{1}: {2} [{3}] in kernel "
                        "'{4}' ({5}); harness: {6}\n",
                        ++N, NumCandidates, F.Loc.brief(), F.RuleId,
                        W.Kernel, toString(F.Fix->Exact),
                        W.HA.Source + otherLaunchesNote(W.HA.Others));
    }
  for (auto &KV : Result.Decisions)
    if (!KV.second.Why.empty())
      errs() << "cuda-l1: not a candidate: " << finding(KV.first).Loc.brief()
             << " [" << finding(KV.first).RuleId << "]: " << KV.second.Why
             << "\n";
}

CandidateVerdict FixVerifier::runJob(KernelWork &W,
                                     const std::vector<size_t> &Fs,
                                     const std::string &Src,
                                     const std::string &Label,
                                     KernelReport &KR) {
  const ExtractedKernel &K = W.KS->K;
  std::vector<const Finding *> FP;
  Exactness X = Exactness::Bitwise;
  std::string Rules;
  for (size_t I : Fs) {
    const Finding &F = finding(I);
    FP.push_back(&F);
    if (exactnessRank(F.Fix->Exact) > exactnessRank(X))
      X = F.Fix->Exact;
    Rules += (Rules.empty() ? "" : ", ") + F.RuleId;
  }
  VerifyJob J;
  J.Kernel = K.Kernel;
  J.Params = W.Params;
  J.HaveHarness = W.HA.Status == HarnessStatus::Found;
  J.H = W.HA.H;
  J.Captured = W.Captured;
  for (size_t I : Fs)
    if (auto L = W.Launch.find(I); L != W.Launch.end()) {
      J.H.CandidateGrid = L->second.first;
      J.H.CandidateBlock = L->second.second;
      J.H.CandidateLaunchOrigin = "the fix's launch-site edits (" +
                                  finding(I).Loc.brief() + " [" +
                                  finding(I).RuleId + "])";
    }
  std::string FileName = sys::path::filename(W.File).str();
  J.Original = {"original", K.Source, FileName, K.NameExpr, "", ""};
  J.Candidate = {Label, Src, FileName, K.NameExpr, "", ""};
  J.Exact = X;
  J.Origin = "rule:" + Rules;
  // The candidates counted up front are the fixes one by one; a job that
  // verifies accepted fixes together is an extra one, shown as such (not
  // as "[18/17]").
  std::string Tag;
  if (Fs.size() == 1)
    Tag = formatv("{0}/{1}", ++Index, NumCandidates).str();
  else
    Tag = "+" + std::to_string(++Extra);
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: [{0}] {1}: {2}\n", Tag, W.Kernel, Label);
  CandidateVerdict V = P.verifyWithinBudget(J, optionsFor(VO, FP), Gpu, &KR);
  V.Name = Label;
  V.Origin = J.Origin;
  checkOtherLaunches(W, Fs, J, FP, Tag, V);
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: [{0}] {1}: {2}\n", Tag,
                      V.Accepted ? "ACCEPTED" : "rejected",
                      V.Accepted ? V.Reason
                                 : "[" + V.RejectKind + "] " + V.Reason);
  if (!Opts.Quiet)
    for (const std::string &N : V.Notes)
      errs() << "cuda-l1:   note: " << N << "\n";
  if (V.RejectKind == "harness")
    HarnessFailed = true;
  KR.Candidates.push_back(V);
  return V;
}

void FixVerifier::checkOtherLaunches(const KernelWork &W,
                                     const std::vector<size_t> &Fs,
                                     const VerifyJob &Main,
                                     const std::vector<const Finding *> &FP,
                                     const std::string &Tag,
                                     CandidateVerdict &V) {
  if (W.HA.Others.empty() || !V.Accepted)
    return;
  for (size_t I : Fs)
    if (W.Launch.count(I)) {
      V.Notes.push_back(
          "checked on the launch it was timed on only: the fix changes the "
          "launch shape, derived from that launch's values");
      return;
    }
  verifyOnOtherLaunches(P, Main, optionsFor(VO, FP), Gpu, W.HA.Others,
                        Opts.Quiet, Tag, V);
}

void FixVerifier::verifyKernel(KernelWork &W, VerifyReport &Report) {
  if (W.Candidate.empty())
    return;
  KernelReport KR;
  KR.Kernel = W.Kernel;
  KR.File = W.File;
  KR.HarnessSource = W.HA.Source;
  // Each fix alone.
  std::vector<std::pair<size_t, CandidateVerdict>> Accepted, NotFaster;
  for (auto &C : W.Candidate) {
    const Finding &F = finding(C.first);
    CandidateVerdict V = runJob(W, {C.first}, C.second,
                                F.Loc.brief() + " [" + F.RuleId + "]", KR);
    if (V.Timing && V.Timing->Ok)
      Result.Decisions[C.first].Speedup = V.Timing->Speedup;
    if (V.Accepted)
      Accepted.push_back({C.first, V});
    else if (V.RejectKind == "budget")
      decline(C.first, V.Reason);
    else
      decline(C.first, "rejected [" + V.RejectKind + "] " + V.Reason);
    if (!V.Accepted && V.RejectKind == "not-faster") {
      Result.Decisions[C.first].NotFaster = true;
      NotFaster.push_back({C.first, V});
    }
  }
  if (!Accepted.empty() || NotFaster.size() > 1)
    chooseApplied(W, std::move(Accepted), std::move(NotFaster), KR);
  Report.Kernels.push_back(std::move(KR));
}

/// Several accepted fixes of one kernel: verified together, or only the
/// fastest is applied. Fixes that were right but each too small to be
/// measured faster (`not-faster`: a double literal here, a double call
/// there, in one expression) join that trial: together they can be. The
/// applied ones get the kernel's annotation.
void FixVerifier::chooseApplied(
    KernelWork &W, std::vector<std::pair<size_t, CandidateVerdict>> Accepted,
    std::vector<std::pair<size_t, CandidateVerdict>> NotFaster,
    KernelReport &KR) {
  std::sort(Accepted.begin(), Accepted.end(), [](const auto &A, const auto &B) {
    return A.second.Timing->Speedup > B.second.Timing->Speedup;
  });
  std::vector<size_t> Apply;
  std::optional<CandidateVerdict> Chosen;
  if (!Accepted.empty()) {
    Apply = {Accepted[0].first};
    Chosen = Accepted[0].second;
  }
  std::vector<size_t> All;
  std::string Rules, Together;
  // The joint trial of a pool of fixes (non-overlapping, one launch change
  // at most); true when it was run.
  auto TryTogether =
      [&](const std::vector<std::pair<size_t, CandidateVerdict>> &Pool) {
        All.clear();
        Rules.clear();
        std::vector<TextEdit> Edits;
        bool Overlap = false;
        for (auto &A : Pool) {
          const std::vector<TextEdit> &FE = finding(A.first).Fix->Edits;
          if (editsOverlap(Edits, FE) ||
              (!All.empty() && W.Launch.count(A.first))) {
            Overlap = true;
            continue;
          }
          All.push_back(A.first);
          Edits.insert(Edits.end(), FE.begin(), FE.end());
          Rules += (Rules.empty() ? "" : " + ") + finding(A.first).RuleId;
        }
        std::string Def, Why;
        std::optional<Dims> LG, LB;
        if (All.size() > 1 && takeLaunchEdits(W, W.HA.H, Edits, LG, LB, Why) &&
            candidateSource(W, Edits, Def, Why)) {
          CandidateVerdict V = runJob(W, All, Def, "together: " + Rules, KR);
          if (V.Accepted &&
              (!Chosen || V.Timing->Speedup >= Chosen->Timing->Speedup)) {
            Apply = All;
            Chosen = V;
            Together.clear();
          } else {
            Together =
                V.Accepted ? formatv("together they are slower ({0:f2}x)",
                                     V.Timing->Speedup)
                                 .str()
                           : "together: rejected [" + V.RejectKind + "] " +
                                 V.Reason;
          }
          return true;
        }
        Together = Overlap ? "its edits overlap those of a faster fix (or "
                             "both change the launch)"
                           : "together: " + Why;
        return false;
      };
  std::vector<std::pair<size_t, CandidateVerdict>> Pool = Accepted;
  Pool.insert(Pool.end(), NotFaster.begin(), NotFaster.end());
  bool Joined = false;
  if (Pool.size() > 1) {
    Joined = TryTogether(Pool);
    // The fixes that were not faster alone spoil it: the accepted ones
    // together, as without them.
    if (Apply.size() <= 1 && !NotFaster.empty() && Accepted.size() > 1)
      Joined = TryTogether(Accepted);
  }
  (void)Joined;
  if (!Chosen)
    return; // none faster, alone or together
  std::string AppliedRules =
      Apply.size() > 1 ? Rules : finding(Apply.front()).RuleId;
  for (auto &A : Accepted) {
    if (std::find(Apply.begin(), Apply.end(), A.first) != Apply.end())
      continue;
    bool LeftOut = std::find(All.begin(), All.end(), A.first) == All.end();
    Result.Decisions[A.first].LeftOut = LeftOut;
    std::string But =
        LeftOut || Together.empty()
            ? std::string("its edits overlap those of another accepted fix "
                          "(or both change the launch)")
            : Together;
    decline(A.first,
            formatv("verified alone ({0:f2}x), but {1}; [{2}] ({3:f2}x) is "
                    "applied to kernel '{4}': run again to verify this fix "
                    "on top",
                    A.second.Timing->Speedup, But, AppliedRules,
                    Chosen->Timing->Speedup, W.Kernel));
  }
  // Not faster alone, faster with the others: applied with them; each
  // applied fix records what the kernel gets with it (the composition
  // compares its own result with that).
  for (size_t I : Apply) {
    Result.Decisions[I].NotFaster = false;
    if (Apply.size() > 1)
      Result.Decisions[I].Speedup = Chosen->Timing->Speedup;
  }
  std::sort(Apply.begin(), Apply.end());
  std::string Applied;
  for (size_t I : Apply) {
    Result.Decisions[I].Apply = true;
    Result.Decisions[I].Why.clear();
    Applied += (Applied.empty() ? "" : ", ") + finding(I).RuleId;
  }
  std::string Annotation = formatAnnotation(
      Gpu, *Chosen->Timing, Applied, Chosen->Exact, Chosen->InputSets.size());
  Result.Decisions[Apply.front()].Annotation =
      annotationEdit(W.FileText, W.File, W.KernelOffset, Annotation);
  if (!Opts.Quiet)
    errs() << Annotation;
}

} // namespace

FixVerifyResult Pipeline::verifyFixes(const AnalysisRun &Run) {
  FixVerifyResult Result;
  FixVerifier V(*this, Run, Result);
  if (!V.group()) {
    Result.Status = 2;
    return Result;
  }
  // Everything up to the GPU: kernel text, harness, candidate sources.
  bool BadInput = false;
  for (KernelWork &W : V.Work)
    BadInput |= !V.prepare(W);
  if (BadInput) {
    Result.Status = 2;
    return Result;
  }
  V.printPlan();
  if (V.NumCandidates == 0)
    return Result;

  VerifyReport Report;
  VerifyOptions VO = verifyOptions();
  if (!startVerifyReport(VO, std::to_string(V.NumCandidates) + " candidate(s)",
                         Report)) {
    Result.Status = 2;
    return Result;
  }
  V.start(VO, Report.Gpu);
  for (KernelWork &W : V.Work)
    V.verifyKernel(W, Report);
  Result.Json = toJson(Report);
  raw_string_ostream OS(Result.Summary);
  printSummaryTable(Report, OS);
  OS.flush();
  if (V.HarnessFailed) {
    reportError("--verify=run: the original failed with the harness of a "
                "kernel (see [harness] above): its harness is wrong");
    Result.Status = 3; // bad input, found on the GPU: accepted fixes apply
  }
  return Result;
}

} // namespace cudal1
