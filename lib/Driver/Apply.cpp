//===- Apply.cpp - --fix / -o / --diff / --export-fixes --------------------===//
#include "cudal1/Support/SafeWrite.h"
#include "cudal1/Frontend/Directory.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Rules/ApplyFixes.h"
#include "cudal1/Verify/FixCandidate.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

/// The rewrite engine's options for \p Findings (the pipeline's own copy,
/// whose addresses the Verify callback maps back to indices).
ApplyOptions Pipeline::applyOptions(const std::vector<Finding> &Findings,
                                    const FixVerifyResult *Verified) const {
  ApplyOptions AO;
  AO.InPlace = Opts.Fix;
  AO.OutputDir = Opts.OutputDir;
  AO.Diff = Opts.Diff;
  AO.ExportFixes = Opts.ExportFixes;
  AO.AllowUnverified = Opts.AllowUnverified;
  AO.AllowFastMath = Opts.AllowFastMath;
  Frontend *F = FE.get();
  AO.CommandFor = [F](const std::string &File) { return F->commandFor(File); };
  // A given file that does not parse alone is checked through the file
  // it was parsed as part of.
  for (const std::string &G : Opts.Files) {
    auto It = ParsedThrough.find(absolutePath(G));
    const std::string &M = It == ParsedThrough.end() ? G : It->second;
    if (!llvm::is_contained(AO.MainFiles, M))
      AO.MainFiles.push_back(M);
  }
  AO.CudaPath = Opts.CudaPath;
  AO.GpuArch = Opts.GpuArch;
  AO.BuildDirectory = Opts.BuildPath;
  AO.Quiet = Opts.Quiet;
  if (Opts.Diff)
    AO.DiffOut = &outs();
  if (Verified) {
    // Only what was verified correct and faster.
    const Finding *Base = Findings.data();
    AO.VerifyBitwise = true;
    AO.Verify = [Base, Verified](const Finding &F, std::string &Why) {
      auto It = Verified->Decisions.find(&F - Base);
      if (It == Verified->Decisions.end()) {
        Why = "not verified";
        return false;
      }
      Why = It->second.Why;
      return It->second.Apply;
    };
  }
  return AO;
}

/// The findings to apply: with the annotations of verified kernels (they go
/// with one applied fix per kernel, in the same write), without the fixes
/// --app-test dropped.
std::vector<Finding> Pipeline::findingsToApply(
    const AnalysisRun &Run, const FixVerifyResult *Verified,
    const std::set<size_t> &Without) const {
  std::vector<Finding> ToApply = Run.Findings;
  if (Verified)
    for (const auto &KV : Verified->Decisions)
      if (KV.second.Apply && KV.second.Annotation)
        ToApply[KV.first].Fix->Edits.push_back(*KV.second.Annotation);
  for (size_t I : Without)
    ToApply[I].Fix.reset();
  return ToApply;
}

// --- composition (docs/fixes.md, "Composition") ------------------------------

json::Value Composition::toJson() const {
  auto Array = [](const std::vector<Part> &Ps) {
    json::Array A;
    for (const Part &P : Ps) {
      json::Array Fs;
      for (auto &F : P.Fixes)
        Fs.push_back(json::Object{{"round", F.first}, {"rule", F.second}});
      A.push_back(json::Object{{"kernel", P.Kernel},
                               {"fixes", std::move(Fs)},
                               {"outcome", P.Outcome}});
    }
    return A;
  };
  json::Object O{{"rounds", Rounds}, {"kernels", Array(Parts)}};
  if (!AltParts.empty())
    O["alternatives"] = Array(AltParts);
  return O;
}

std::string Composition::summary() const {
  std::string Out;
  for (const std::vector<Part> *Ps : {&Parts, &AltParts})
    for (const Part &P : *Ps) {
      // Code outside kernels (device functions no kernel was named for,
      // host code) composes as one part.
      Out += P.Kernel.empty() ? "cuda-l1: code outside kernels combines "
                              : "cuda-l1: kernel '" + P.Kernel + "' combines ";
      // One entry per rule and round, in the order first seen, with how
      // many fixes it stands for when more than one (a file's float
      // literals).
      using Entry = std::pair<unsigned, std::string>; // round, rule
      llvm::MapVector<Entry, unsigned, std::map<Entry, unsigned>> Grouped;
      for (const auto &F : P.Fixes)
        ++Grouped[F];
      for (const auto &[F, N] : Grouped)
        Out += (F == Grouped.front().first ? "" : " + ") + F.second +
               " (round " + std::to_string(F.first) +
               (N > 1 ? ", " + std::to_string(N) + " fixes" : "") + ")";
      Out += ": " + P.Outcome + "\n";
    }
  return Out;
}

/// Widens \p Into to cover \p From: the wider exactness, the larger
/// tolerances, and a measurement if either needs one (a composed fix is as
/// loose as its loosest part).
static void widenTo(FixIt &Into, const FixIt &From) {
  if (exactnessRank(From.Exact) > exactnessRank(Into.Exact))
    Into.Exact = From.Exact;
  Into.Ulp = std::max(Into.Ulp, From.Ulp);
  Into.Rtol = std::max(Into.Rtol, From.Rtol);
  Into.Atol = std::max(Into.Atol, From.Atol);
  Into.ScaleRtol = std::max(Into.ScaleRtol, From.ScaleRtol);
  for (const std::string &P : From.GridSumParams)
    if (std::find(Into.GridSumParams.begin(), Into.GridSumParams.end(), P) ==
        Into.GridSumParams.end())
      Into.GridSumParams.push_back(P);
  Into.NeedsMeasurement |= From.NeedsMeasurement;
}

namespace {
/// The fixes of one kernel over the rounds.
struct KernelFixes {
  std::vector<std::pair<unsigned, std::string>> Fixes;
  FixIt Combined; ///< exactness and tolerances: the widest of its fixes
  bool Later = false; ///< a fix of round 2 or later
  /// Every fix is host code proven bitwise exact (nothing to run on a GPU).
  bool HostProven = true;
  std::optional<Finding> First; ///< the first fix's finding (its place)
  void add(unsigned Round, const Finding &F) {
    Fixes.push_back({Round, F.RuleId});
    const FixIt &X = *F.Fix;
    if (!First) {
      First = F;
      Combined = FixIt();
    }
    widenTo(Combined, X);
    HostProven &= hostProvenFix(X);
    Later |= Round > 1;
  }
};

/// One composition: the rounds applied from one set of round-1 decisions.
struct World {
  std::vector<Finding> R1;        ///< round 1's findings (applied in memory)
  std::vector<AnalysisRun> Later; ///< the analyses of rounds 2.. (findings)
  int Exit = 0;                   ///< round 1's exit status
  std::set<size_t> Applied1;      ///< the round-1 fixes that landed
  std::map<std::string, KernelFixes> ByKernel;
  unsigned Rounds = 0;
  std::vector<Finding> Composites; ///< one per group with a later-round fix
  /// Per composite: the edits to verify it with when they differ from its
  /// own (host code proven exact left out; see hostLaunchEdits).
  std::vector<std::optional<std::vector<TextEdit>>> VerifyEdits;
  std::vector<std::vector<std::string>> CompositeKernels;
  std::set<std::string> InComposite;
  /// (rule, kernel) not offered in later rounds: an alternative's kernel
  /// does not take back the fix it replaces.
  std::set<std::pair<std::string, std::string>> Excluded;
  /// (kernel, rule applied, round) where a later round applied that rule's
  /// fix over another rule's overlapping one.
  struct LaterConflict {
    std::string Kernel, Winner;
    unsigned Round;
  };
  std::vector<LaterConflict> LaterConflicts;
};

/// Appended to a kernel's name in ComposedEdit::Kernels for an edit of one
/// of its launches' grid or block (composeRound).
const std::string LaunchShapeTag = "\x1flaunch-shape";
std::string untagged(const std::string &K) {
  return K.substr(0, K.find('\x1f'));
}
/// The last name of a kernel, without namespaces or template arguments.
std::string lastName(const std::string &K) {
  size_t C = K.rfind("::");
  std::string N = K.substr(C == std::string::npos ? 0 : C + 2);
  return N.substr(0, N.find('<'));
}

/// Adds the edits of the fixes applied in a round, \p Applied (edits in the
/// coordinates of the round's input, \p Base), to \p Edits.
void composeRound(std::map<std::string, std::vector<ComposedEdit>> &Edits,
                  const std::map<std::string, std::string> &Orig,
                  const std::vector<const Finding *> &Applied,
                  const std::map<std::string, std::string> &Base) {
  std::map<std::string, std::vector<std::pair<TextEdit, std::string>>> ByFile;
  std::set<TextEdit> Seen;
  for (const Finding *F : Applied)
    for (const TextEdit &E : F->Fix->Edits)
      if (Seen.insert(E).second) {
        // A kernel fix's edit of one of its launches' grid or block: tagged,
        // so that a composition can tell it from the kernel's other edits.
        std::string K = F->Kernel;
        auto B = Base.find(E.File);
        if (!K.empty() && !hostProvenFix(*F->Fix) && B != Base.end() &&
            isLaunchShapeEdit(B->second, E, lastName(K)))
          K += LaunchShapeTag;
        ByFile[E.File].push_back({E, K});
      }
  for (auto &KV : ByFile) {
    // From the end of the file: each edit's offsets stay valid.
    std::stable_sort(KV.second.begin(), KV.second.end(),
                     [](const auto &A, const auto &B) {
                       return A.first.Offset > B.first.Offset;
                     });
    for (auto &EK : KV.second)
      composeEdit(Edits[KV.first], Orig.at(KV.first), EK.first, EK.second);
  }
}
} // namespace

int Pipeline::applyComposed(const AnalysisRun &Run,
                            const FixVerifyResult *Verified) {
  // Rules that round 1 measured not faster on a kernel are not offered
  // again on that kernel in later rounds: the composed kernel is measured as
  // a whole, and a fix that only costs time would drag a good one down.
  std::set<std::pair<std::string, std::string>> NotFaster;
  if (Verified)
    for (const auto &KV : Verified->Decisions)
      if (KV.second.NotFaster && KV.first < Run.Findings.size())
        NotFaster.insert(
            {Run.Findings[KV.first].RuleId, Run.Findings[KV.first].Kernel});

  // Analyses the rewritten buffers \p Texts again (the main files that
  // changed; all of them when a header changed).
  auto AnalyseRewritten =
      [&](const std::map<std::string, std::string> &Texts) -> AnalysisRun {
    Options O = Opts;
    O.Quiet = true;
    O.DumpAccesses = false;
    for (const auto &KV : Texts)
      O.Overlay[KV.first] = KV.second;
    // A main file named through a symbolic link (or another path to the
    // same file) gets the rewritten text under the name it is parsed by
    // too: else the round would analyse the original text again and insert
    // its edits a second time into the rewritten one.
    std::vector<std::string> Files;
    bool Header = false;
    for (const auto &KV : Texts) {
      bool Main = false;
      for (const std::string &F : Opts.Files) {
        std::string A = absolutePath(F);
        bool Same = A == KV.first;
        if (!Same && !sys::fs::equivalent(A, KV.first, Same) && Same)
          O.Overlay[A] = KV.second;
        if (Same) {
          Files.push_back(F);
          Main = true;
        }
      }
      Header |= !Main;
    }
    O.Files = Header ? Opts.Files : Files;
    Pipeline PK(O);
    return PK.analyze(false);
  };
  // The fixes of a later round that may join: not a rule measured not
  // faster on the kernel; a fix that needs a measurement of its own only as
  // its kernel's one such fix (the composed kernel's measurement is then
  // its measurement; alternatives, such as staging or warp per row for one
  // loop, are left to the verifier's choice in a new run).
  auto Admit = [&](std::vector<Finding> &Fs,
                   const std::set<std::pair<std::string, std::string>>
                       *Excluded = nullptr) {
    std::map<std::string, unsigned> Measured;
    for (const Finding &F : Fs)
      if (F.Fix && F.Fix->NeedsMeasurement)
        ++Measured[F.Kernel];
    for (Finding &F : Fs) {
      if (!F.Fix)
        continue;
      if (NotFaster.count({F.RuleId, F.Kernel})) {
        F.Fix.reset();
        F.WhyNoFix = "--verify=run measured this rule not faster on this "
                     "kernel in round 1";
      } else if (Excluded && Excluded->count({F.RuleId, F.Kernel})) {
        F.Fix.reset();
        F.WhyNoFix = "an alternative composition: this rule's round-1 fix "
                     "on this kernel is what the alternative replaces";
      } else if (F.Fix->NeedsMeasurement && Measured[F.Kernel] > 1) {
        F.Fix.reset();
        F.WhyNoFix = "one of several alternatives that need a measurement "
                     "of their own: run --fix --verify=run again to let the "
                     "verifier choose";
      }
    }
  };

  // Enabling fixes: a fix measured not faster alone (right results, no
  // time won) that makes another rule match its kernel joins round 1, so
  // that the rule it opens the way to can follow (register accumulation
  // before warp per row or the matrix tile: alone the accumulator saves a
  // little traffic; the restructuring it allows saves the most). Each such
  // fix is tried alone per kernel (trial T applies every kernel's T-th one
  // on top of the verified fixes) and kept when the analysis of the result
  // finds a rule with a fix that did not have one on that kernel before.
  // The composed kernel is verified against the original like any other;
  // when it is not kept, the enabling fix is not written either.
  FixVerifyResult WithEnablers;
  const FixVerifyResult *V1 = Verified;
  std::set<size_t> Enablers;
  std::map<size_t, std::set<std::string>> Opens; // enabler -> rules
  if (Verified && Opts.ComposeRounds > 1) {
    std::map<std::string, std::vector<size_t>> Tentative;
    for (const auto &KV : Verified->Decisions)
      if (KV.second.NotFaster && !KV.second.Apply &&
          KV.first < Run.Findings.size() && Run.Findings[KV.first].Fix)
        Tentative[Run.Findings[KV.first].Kernel].push_back(KV.first);
    std::map<std::string, std::set<std::string>> Before;
    for (const Finding &F : Run.Findings)
      if (F.Fix)
        Before[F.Kernel].insert(F.RuleId);
    // One trial: the verified fixes plus the fixes of \p Tried (finding ->
    // kernel); gives the kernels where a rule now has a fix it did not
    // have, with those rules, and the tried fixes that landed.
    auto RunTrial = [&](const std::map<size_t, std::string> &Tried,
                        std::set<size_t> &Landed) {
      std::map<std::string, std::set<std::string>> New;
      FixVerifyResult Trial;
      Trial.Decisions = Verified->Decisions;
      for (const auto &KV : Tried)
        Trial.Decisions[KV.first].Apply = true;
      std::vector<Finding> RT = Run.Findings;
      std::map<std::string, std::string> TT;
      ApplyOptions AT = applyOptions(RT, &Trial);
      AT.Result = &TT;
      AT.Quiet = true;
      AT.Diff = false;
      AT.ExportFixes.clear();
      AT.CheckCompiles = false; // only analysed: round 1 checks what is kept
      AT.CheckNvrtc = false;
      std::vector<FixOutcome> OT;
      cudal1::applyFixes(RT, AT, &OT);
      for (const FixOutcome &O : OT)
        if (O.State == FixOutcome::Applied && Tried.count(O.F - RT.data()))
          Landed.insert(O.F - RT.data());
      if (Landed.empty() || TT.empty())
        return New;
      AnalysisRun RK = AnalyseRewritten(TT);
      if (RK.Status.Failed || RK.RuleCrashed)
        return New;
      Admit(RK.Findings);
      for (const Finding &F : RK.Findings)
        if (F.Fix && !Before[F.Kernel].count(F.RuleId))
          New[F.Kernel].insert(F.RuleId);
      return New;
    };
    // First all of them at once: the kernels where nothing opens are done.
    std::map<size_t, std::string> All;
    for (const auto &KV : Tentative)
      for (size_t I : KV.second)
        All[I] = KV.first;
    std::set<size_t> LandedAll;
    std::map<std::string, std::set<std::string>> Joint =
        All.empty() ? std::map<std::string, std::set<std::string>>()
                    : RunTrial(All, LandedAll);
    // Then each alone (trial T: every opened kernel's T-th fix), to keep
    // only the fixes that open the way themselves.
    size_t Trials = 0;
    for (const auto &KV : Joint)
      Trials = std::max(Trials, Tentative[KV.first].size());
    Trials = std::min<size_t>(Trials, MaxEnablerTrials);
    for (size_t T = 0; T < Trials; ++T) {
      std::map<size_t, std::string> Tried;
      for (const auto &KV : Joint)
        if (T < Tentative[KV.first].size())
          Tried[Tentative[KV.first][T]] = KV.first;
      std::set<size_t> Landed;
      std::map<std::string, std::set<std::string>> New =
          RunTrial(Tried, Landed);
      for (size_t I : Landed)
        if (auto It = New.find(Tried[I]); It != New.end()) {
          Enablers.insert(I);
          Opens[I] = It->second;
        }
    }
    // Opened only together (or not tried alone within the limit): all of
    // that kernel's fixes that landed, when the joint trial opened a rule
    // that no fix opened alone (a layer normalisation's two global sums
    // must both become register sums before a warp per row takes all its
    // passes; either alone opens only the single-sum rules).
    for (const auto &KV : Joint) {
      std::set<std::string> Alone, Missing;
      for (size_t I : Enablers)
        if (Run.Findings[I].Kernel == KV.first)
          Alone.insert(Opens[I].begin(), Opens[I].end());
      for (const std::string &R : KV.second)
        if (!Alone.count(R))
          Missing.insert(R);
      if (Missing.empty())
        continue;
      for (size_t I : LandedAll)
        if (All[I] == KV.first) {
          Enablers.insert(I);
          Opens[I].insert(Missing.begin(), Missing.end());
        }
    }
    if (!Enablers.empty()) {
      WithEnablers.Decisions = Verified->Decisions;
      for (size_t I : Enablers) {
        WithEnablers.Decisions[I].Apply = true;
        WithEnablers.Decisions[I].Why.clear();
      }
      V1 = &WithEnablers;
      if (!Opts.Quiet)
        for (size_t I : Enablers) {
          std::string Rules;
          for (const std::string &R : Opens[I])
            Rules += (Rules.empty() ? "" : ", ") + R;
          errs() << "cuda-l1: " << Run.Findings[I].RuleId << " on kernel '"
                 << Run.Findings[I].Kernel
                 << "' is not faster alone but opens the way to " << Rules
                 << ": composed with them and verified as a whole\n";
        }
    }
  }

  // The rounds from one set of round-1 decisions (\p VD): round 1 applied
  // in memory, later rounds on its result, and the kernels whose fixes
  // span several rounds gathered into composed fixes (not verified yet).
  // Run once with the verifier's decisions, and again per trial of the
  // alternatives below (another choice between overlapping fixes).
  auto ComposeWorld = [&](const FixVerifyResult *VD, World &W,
                          bool WithOutput) {
    // Round 1: the fixes of Run (as verified, without annotations: those go
    // with the final write), in memory.
    std::vector<Finding> &R1 = W.R1;
    R1 = Run.Findings;
    std::map<std::string, std::string> Texts;
    std::vector<FixOutcome> Outs;
    ApplyOptions AO = applyOptions(R1, VD);
    AO.Result = &Texts;
    if (!WithOutput)
      AO.Quiet = true;
    W.Exit = cudal1::applyFixes(R1, AO, &Outs);
    std::set<size_t> &Applied1 = W.Applied1;
    std::vector<const Finding *> Round;
    std::map<std::string, KernelFixes> &ByKernel = W.ByKernel;
    for (const FixOutcome &O : Outs)
      if (O.State == FixOutcome::Applied) {
        Applied1.insert(O.F - R1.data());
        Round.push_back(O.F);
        ByKernel[O.F->Kernel].add(1, *O.F);
      }
    // The original texts of the changed files.
    std::map<std::string, std::string> Orig;
    for (const auto &KV : Texts) {
      if (auto It = Opts.Overlay.find(KV.first); It != Opts.Overlay.end()) {
        Orig[KV.first] = It->second;
      } else if (auto B = MemoryBuffer::getFile(KV.first, /*IsText=*/false,
                                                /*RequiresNull=*/false)) {
        Orig[KV.first] = (*B)->getBuffer().str();
      } else {
        Texts.clear(); // unreadable now: the final write reports it
        break;
      }
    }
    std::map<std::string, std::vector<ComposedEdit>> Edits;
    bool Consistent = true;
    if (!Texts.empty()) {
      composeRound(Edits, Orig, Round, Orig);
      for (const auto &KV : Texts)
        Consistent &= cudal1::applyComposed(Edits[KV.first], Orig[KV.first]) == KV.second;
    }
    // Rounds 2..MaxComposeRounds: analyse the rewritten buffers again.
    std::set<std::map<std::string, std::string>> Seen{Texts};
    unsigned &Rounds = W.Rounds;
    Rounds = Texts.empty() ? 0 : 1;
    std::vector<AnalysisRun> &Later = W.Later; // the findings the applied fixes point to
    Later.reserve(MaxComposeRounds);
    for (unsigned R = 2;
         R <= std::min(MaxComposeRounds, Opts.ComposeRounds) && Consistent && !Texts.empty();
         ++R) {
      Later.push_back(AnalyseRewritten(Texts));
      AnalysisRun &RK = Later.back();
      if (RK.Status.Failed || RK.RuleCrashed)
        break;
      Admit(RK.Findings, &W.Excluded);
      std::map<std::string, std::string> New;
      ApplyOptions AK = applyOptions(RK.Findings, nullptr);
      AK.Base = Texts;
      AK.Result = &New;
      AK.Quiet = true;
      AK.Diff = false;
      AK.ExportFixes.clear();
      AK.VerifiedLater = Verified != nullptr;
      Outs.clear();
      cudal1::applyFixes(RK.Findings, AK, &Outs);
      std::vector<const Finding *> Applied;
      for (const FixOutcome &Oc : Outs)
        if (Oc.State == FixOutcome::Applied)
          Applied.push_back(Oc.F);
      // Fixes this round dropped for an overlapping one of the same kernel
      // (staging over warp per row, by exactness): the other way is an
      // alternative.
      for (const FixOutcome &Oc : Outs)
        if (Oc.State == FixOutcome::Conflict && Oc.F->Fix)
          for (const Finding *A : Applied)
            if (A->Kernel == Oc.F->Kernel && A->RuleId != Oc.F->RuleId &&
                editsOverlap(A->Fix->Edits, Oc.F->Fix->Edits))
              W.LaterConflicts.push_back({A->Kernel, A->RuleId, R});
      std::map<std::string, std::string> Next = Texts;
      for (auto &KV : New)
        Next[KV.first] = KV.second;
      if (Applied.empty() || Next == Texts || !Seen.insert(Next).second)
        break;
      for (const auto &KV : Next)
        if (!Orig.count(KV.first)) { // a file round 1 did not change
          auto B = MemoryBuffer::getFile(KV.first, false, false);
          if (!B) {
            Consistent = false;
            break;
          }
          Orig[KV.first] = (*B)->getBuffer().str();
        }
      if (!Consistent)
        break;
      auto Saved = Edits;
      composeRound(Edits, Orig, Applied, Texts);
      for (const auto &KV : Next)
        if (cudal1::applyComposed(Edits[KV.first], Orig[KV.first]) != KV.second)
          Consistent = false;
      if (!Consistent) { // never expected: keep the rounds before
        Edits = std::move(Saved);
        break;
      }
      for (const Finding *F : Applied)
        ByKernel[F->Kernel].add(R, *F);
      Texts = std::move(Next);
      Rounds = R;
    }

    // The kernels whose edits touch each other form one group.
    std::map<std::string, std::string> Parent;
    std::function<std::string(const std::string &)> Find =
        [&](const std::string &K) -> std::string {
      auto It = Parent.find(K);
      if (It == Parent.end() || It->second == K)
        return Parent[K] = K;
      return It->second = Find(It->second);
    };
    for (auto &KV : Edits)
      for (const ComposedEdit &E : KV.second)
        for (const std::string &K : E.Kernels)
          Parent[Find(untagged(K))] = Find(untagged(*E.Kernels.begin()));
    // Groups with a fix of a later round become one composed fix.
    std::map<std::string, std::vector<std::string>> Groups;
    for (auto &KV : ByKernel)
      Groups[Find(KV.first)].push_back(KV.first);
    std::vector<Finding> &Composites = W.Composites;
    std::vector<std::vector<std::string>> &CompositeKernels = W.CompositeKernels;
    std::set<std::string> &InComposite = W.InComposite;
    for (auto &G : Groups) {
      bool Later = false;
      for (const std::string &K : G.second)
        Later |= ByKernel[K].Later;
      if (!Later)
        continue;
      // Host code proven exact (kernel "") with one kernel's fixes: the
      // composite is that kernel's, verified with the host edits left out
      // (proven) but the launch shapes they give the kernel taken in.
      std::vector<std::string> Real;
      for (const std::string &K : G.second)
        if (!K.empty())
          Real.push_back(K);
      bool HostPart = Real.size() == 1 && G.second.size() == 2 &&
                      ByKernel[""].HostProven;
      const std::string &K0 = HostPart ? Real[0] : G.second.front();
      Finding C = *ByKernel[K0].First;
      FixIt X = ByKernel[K0].Combined;
      std::string Rules;
      // Host code only, each fix proven bitwise exact: the composition is
      // too (applied like its parts, without a GPU run).
      bool Host = true;
      for (const std::string &K : G.second)
        Host &= K.empty() && ByKernel[K].HostProven;
      for (const std::string &K : G.second) {
        widenTo(X, ByKernel[K].Combined);
        for (auto &F : ByKernel[K].Fixes)
          if (Rules.find(F.second) == std::string::npos)
            Rules += (Rules.empty() ? "" : " + ") + F.second;
        InComposite.insert(K);
      }
      X.Proven = true;
      X.HostOnly = Host;
      X.Description = "composed: " + Rules;
      for (auto &KV : Edits)
        for (const ComposedEdit &E : KV.second)
          if (Find(untagged(*E.Kernels.begin())) == G.first)
            X.Edits.push_back(E.Edit);
      std::optional<std::vector<TextEdit>> VE;
      if (HostPart) {
        std::string Name = lastName(K0);
        VE.emplace();
        for (auto &KV : Edits)
          for (const ComposedEdit &E : KV.second) {
            if (!VE || Find(untagged(*E.Kernels.begin())) != G.first)
              continue;
            if (!E.Kernels.count("")) {
              VE->push_back(E.Edit);
              continue;
            }
            // Host code proven exact, with nothing of the kernel's fixes
            // in it but launch shapes.
            bool OnlyShapes = Orig.count(KV.first) != 0;
            for (const std::string &K : E.Kernels)
              OnlyShapes &= K.empty() || K == K0 + LaunchShapeTag;
            if (!OnlyShapes ||
                !hostLaunchEdits(E.Edit, Orig[KV.first], Name, *VE))
              VE.reset();
          }
      }
      C.RuleId = Rules;
      C.Message = "fixes composed over rounds: " + Rules;
      C.Fix = std::move(X);
      C.Notes.clear();
      Composites.push_back(std::move(C));
      CompositeKernels.push_back(G.second);
      W.VerifyEdits.push_back(std::move(VE));
    }
  };
  World A;
  ComposeWorld(V1, A, /*WithOutput=*/true);
  int Exit = A.Exit;
  std::set<size_t> &Applied1 = A.Applied1;
  std::map<std::string, KernelFixes> &ByKernel = A.ByKernel;
  std::vector<Finding> &Composites = A.Composites;
  std::vector<std::vector<std::string>> &CompositeKernels = A.CompositeKernels;
  std::set<std::string> &InComposite = A.InComposite;
  Composed.Rounds = A.Rounds;

  // The best speedup the verifier measured for a round-1 fix applied to
  // \p Kernel (what the kernel gets without its composition).
  auto RoundOneBest = [&](const std::string &Kernel) {
    std::optional<double> Best;
    // A fix the verifier accepted with the others that round 1 did not
    // apply because it lost a conflict to host code proven exact: the
    // speedups recorded were measured with it, not what the kernel gets.
    for (const auto &KV : Verified->Decisions) {
      if (!KV.second.Apply || Applied1.count(KV.first) ||
          KV.first >= Run.Findings.size() ||
          Run.Findings[KV.first].Kernel != Kernel ||
          !Run.Findings[KV.first].Fix)
        continue;
      // An edit both make alike is not a conflict (applyFixes keeps one).
      auto Without = [](std::vector<TextEdit> A, const std::vector<TextEdit> &B) {
        A.erase(std::remove_if(A.begin(), A.end(),
                               [&](const TextEdit &X) {
                                 return std::find(B.begin(), B.end(), X) !=
                                        B.end();
                               }),
                A.end());
        return A;
      };
      for (size_t H : Applied1)
        if (Run.Findings[H].Fix && hostProvenFix(*Run.Findings[H].Fix) &&
            editsOverlap(Run.Findings[H].Fix->Edits,
                         Without(Run.Findings[KV.first].Fix->Edits,
                                 Run.Findings[H].Fix->Edits)))
          return Best;
    }
    for (size_t J : Applied1)
      if (Run.Findings[J].Kernel == Kernel)
        if (auto V = Verified->Decisions.find(J);
            V != Verified->Decisions.end() && V->second.Apply &&
            V->second.Speedup)
          Best = std::max(Best.value_or(0.0), *V->second.Speedup);
    return Best;
  };
  // With --verify=run: each composed kernel verified against the original.
  std::vector<bool> Keep(Composites.size(), true);
  std::vector<std::optional<TextEdit>> Annot(Composites.size());
  // Nothing is written with only --diff or --export-fixes.
  std::vector<std::string> Outcome(
      Composites.size(),
      Opts.Fix || !Opts.OutputDir.empty() ? "applied" : "would apply");
  std::vector<std::optional<double>> Speed(Composites.size());
  bool Mixed = false;
  if (Verified && !Composites.empty()) {
    AnalysisRun CR;
    CR.Findings = Composites;
    for (size_t I = 0; I < Composites.size(); ++I)
      if (A.VerifyEdits[I])
        CR.Findings[I].Fix->Edits = *A.VerifyEdits[I];
    for (const Finding &C : Composites)
      if (auto It = Run.Kernels.find(C.Kernel); It != Run.Kernels.end())
        CR.Kernels[C.Kernel] = It->second;
    FixVerifyResult CV = verifyFixes(CR);
    if (CV.Status == 2)
      reportError("--verify=run: the composed kernels could not be verified; "
                  "their first round is applied alone");
    for (size_t I = 0; I < Composites.size(); ++I) {
      auto D = CV.Decisions.find(I);
      std::optional<double> Best = RoundOneBest(Composites[I].Kernel);
      if (D == CV.Decisions.end() || !D->second.Apply) {
        Keep[I] = false;
        Outcome[I] = "not kept (" +
                     (D == CV.Decisions.end() ? std::string("not verified")
                                              : D->second.Why) +
                     "); its round-1 fixes are applied alone";
      } else if (Best && D->second.Speedup && *D->second.Speedup < *Best) {
        Keep[I] = false;
        Outcome[I] = formatv("verified, but slower ({0:f2}x) than its "
                             "round-1 fixes ({1:f2}x), which are applied",
                             *D->second.Speedup, *Best)
                         .str();
      } else {
        Annot[I] = D->second.Annotation;
        Speed[I] = D->second.Speedup;
        Outcome[I] =
            Composites[I].Fix && Composites[I].Fix->HostOnly
                ? "applied: host code proven exact by the analysis (no GPU "
                  "run)"
            : D->second.Speedup
                ? formatv("verified against the original, {0:f2}x",
                          *D->second.Speedup)
                      .str()
                : "verified against the original";
      }
      if (!Keep[I]) {
        Mixed = true;
        for (const std::string &K : CompositeKernels[I])
          InComposite.erase(K);
      }
    }
    if (CV.Json)
      Composed.VerifyJson = CV.Json;
    Composed.VerifySummary = CV.Summary;
  }
  // Alternatives: where a fix that round 1 did not apply overlaps the
  // edits of one it applied (shared-memory staging chosen over register
  // accumulation: accepted alone but slower, or not faster alone), the
  // rounds are composed again with that fix in place of the one it
  // overlaps. When its rounds give the kernel a composed fix (warp per row
  // on the register sum), that composed kernel is verified against the
  // original too, and the faster of the two is written: the first choice
  // was made on the fixes alone, before either had opened the way to
  // anything. Each trial T tries every such kernel's T-th candidate
  // (accepted ones first, faster first).
  std::vector<Finding> AltFinal; // the alternatives written, annotated
  // A kernel's candidates: round-1 fixes to put in place of the applied
  // ones they overlap (accepted ones first, faster first), then rules a
  // later round chose over an overlapping fix (to leave out of the later
  // rounds on that kernel).
  struct AltCand {
    std::optional<size_t> Fix;    ///< round 1: the fix tried
    std::vector<size_t> Replaced; ///< round 1: the applied fixes it overlaps
    /// later round: the rules left out (a deeper alternative leaves out
    /// the winner of the alternative before it too)
    std::vector<std::string> Excludes;
    unsigned Round = 1;
    bool Deeper = false; ///< tried after an alternative of the same kernel
  };
  std::map<std::string, std::vector<AltCand>> AltBy;
  if (Verified && Opts.ComposeRounds > 1) {
    for (const auto &KV : V1->Decisions) {
      const FixDecision &D = KV.second;
      if (D.Apply || !(D.LeftOut || D.NotFaster) ||
          KV.first >= Run.Findings.size() || !Run.Findings[KV.first].Fix)
        continue;
      const Finding &X = Run.Findings[KV.first];
      AltCand Ca{KV.first, {}, {}, 1, false};
      for (size_t Y : Applied1)
        if (Run.Findings[Y].Kernel == X.Kernel &&
            editsOverlap(Run.Findings[Y].Fix->Edits, X.Fix->Edits))
          Ca.Replaced.push_back(Y);
      if (!Ca.Replaced.empty())
        AltBy[X.Kernel].push_back(std::move(Ca));
    }
    for (auto &KV : AltBy)
      std::stable_sort(KV.second.begin(), KV.second.end(),
                       [&](const AltCand &X, const AltCand &Y) {
                         const FixDecision &DX = V1->Decisions.at(*X.Fix),
                                           &DY = V1->Decisions.at(*Y.Fix);
                         if (DX.LeftOut != DY.LeftOut)
                           return DX.LeftOut;
                         return DX.Speedup.value_or(0) >
                                DY.Speedup.value_or(0);
                       });
    for (const World::LaterConflict &C : A.LaterConflicts) {
      bool Dup = false;
      for (const AltCand &Ca : AltBy[C.Kernel])
        Dup |= Ca.Excludes == std::vector<std::string>{C.Winner};
      if (!Dup)
        AltBy[C.Kernel].push_back(
            {std::nullopt, {}, {C.Winner}, C.Round, false});
    }
  }
  // The alternative written per kernel (the kernels given one): its
  // speedup and its entry of AltFinal (a deeper alternative that is faster
  // takes its place).
  std::map<std::string, std::pair<double, size_t>> AltWritten;
  for (unsigned T = 0; T < MaxEnablerTrials; ++T) {
    struct Alternative {
      std::string Kernel;
      AltCand Cand;
      std::optional<size_t> Composite; ///< in the trial's composites
    };
    std::vector<Alternative> Alts;
    bool Later = false; // candidates left for later trials
    for (const auto &[K, Cs] : AltBy) {
      if (T < Cs.size() && (!AltWritten.count(K) || Cs[T].Deeper))
        Alts.push_back({K, Cs[T], std::nullopt});
      Later |= T + 1 < Cs.size();
    }
    if (Alts.empty()) {
      if (Later)
        continue; // a deeper candidate further down a kernel's list
      break;
    }
    FixVerifyResult AltD;
    AltD.Decisions = V1->Decisions;
    World B; // the trial's composition (what is kept is copied out)
    for (const Alternative &Al : Alts) {
      for (size_t Y : Al.Cand.Replaced) {
        AltD.Decisions[Y].Apply = false;
        AltD.Decisions[Y].Annotation.reset();
        B.Excluded.insert({Run.Findings[Y].RuleId, Al.Kernel});
      }
      if (Al.Cand.Fix) {
        AltD.Decisions[*Al.Cand.Fix].Apply = true;
        AltD.Decisions[*Al.Cand.Fix].Why.clear();
      } else {
        for (const std::string &X : Al.Cand.Excludes)
          B.Excluded.insert({X, Al.Kernel});
      }
    }
    ComposeWorld(&AltD, B, /*WithOutput=*/false);
    AnalysisRun CR;
    std::vector<size_t> Which; // Alts index per CR finding
    for (size_t AI = 0; AI < Alts.size(); ++AI) {
      Alternative &Al = Alts[AI];
      if (Al.Cand.Fix && !B.Applied1.count(*Al.Cand.Fix))
        continue;
      for (size_t I = 0; I < B.Composites.size(); ++I)
        if (B.CompositeKernels[I] == std::vector<std::string>{Al.Kernel})
          Al.Composite = I;
      // Only when a later round reaches a rule the first composition did
      // not reach on this kernel.
      std::set<std::string> Reached;
      for (auto &F : ByKernel[Al.Kernel].Fixes)
        if (F.first > 1)
          Reached.insert(F.second);
      bool New = false;
      for (auto &F : B.ByKernel[Al.Kernel].Fixes)
        New |= F.first > 1 && !Reached.count(F.second);
      if (!Al.Composite || !New)
        continue; // nothing new after it: the first choice stands
      CR.Findings.push_back(B.Composites[*Al.Composite]);
      if (B.VerifyEdits[*Al.Composite])
        CR.Findings.back().Fix->Edits = *B.VerifyEdits[*Al.Composite];
      if (auto It = Run.Kernels.find(Al.Kernel); It != Run.Kernels.end())
        CR.Kernels[Al.Kernel] = It->second;
      Which.push_back(AI);
    }
    if (CR.Findings.empty())
      continue;
    if (!Opts.Quiet)
      errs() << "cuda-l1: verifying " << CR.Findings.size()
             << " alternative composition(s): the other choice between "
                "overlapping fixes leads to another rule\n";
    FixVerifyResult CV = verifyFixes(CR);
    std::vector<std::pair<std::string, AltCand>> Deeper;
    for (size_t C = 0; C < Which.size(); ++C) {
      Alternative &Al = Alts[Which[C]];
      // What the first composition gives this kernel.
      std::optional<double> First;
      std::optional<size_t> FirstComposite;
      for (size_t I = 0; I < Composites.size(); ++I)
        if (std::find(CompositeKernels[I].begin(), CompositeKernels[I].end(),
                      Al.Kernel) != CompositeKernels[I].end()) {
          FirstComposite = I;
          if (Keep[I])
            First = Speed[I];
        }
      if (!First || (FirstComposite && !Keep[*FirstComposite]))
        if (std::optional<double> R1 = RoundOneBest(Al.Kernel))
          First = std::max(First.value_or(0.0), *R1);
      if (auto It = AltWritten.find(Al.Kernel); It != AltWritten.end())
        First = std::max(First.value_or(0.0), It->second.first);
      auto D = CV.Decisions.find(C);
      Composition::Part P;
      P.Kernel = Al.Kernel;
      for (auto &F : B.ByKernel[Al.Kernel].Fixes)
        P.Fixes.push_back(F);
      std::string Instead;
      for (size_t Y : Al.Cand.Replaced)
        Instead += (Instead.empty() ? "" : " + ") + Run.Findings[Y].RuleId;
      std::string Left;
      for (const std::string &X : Al.Cand.Excludes)
        Left += (Left.empty() ? "" : " and ") + X;
      Instead = Al.Cand.Fix ? "alternative to " + Instead + " in round 1"
                            : "alternative to " + Left + " in round " +
                                  std::to_string(Al.Cand.Round);
      bool Grouped =
          FirstComposite && CompositeKernels[*FirstComposite].size() > 1;
      if (D == CV.Decisions.end() || !D->second.Apply || !D->second.Speedup) {
        P.Outcome = Instead + ", not kept (" +
                    (D == CV.Decisions.end() ? std::string("not verified")
                                             : D->second.Why) +
                    ")";
      } else if (First && *D->second.Speedup <= *First) {
        P.Outcome = formatv("{0}, verified ({1:f2}x) but not faster than "
                            "the kernel written ({2:f2}x)",
                            Instead, *D->second.Speedup, *First)
                        .str();
      } else if (Grouped) {
        P.Outcome = formatv("{0}, verified ({1:f2}x), not written: the "
                            "first composition joins this kernel's edits "
                            "with other kernels'",
                            Instead, *D->second.Speedup)
                        .str();
      } else {
        P.Outcome =
            formatv("{0}, verified against the original, {1:f2}x (the "
                    "first choice: {2}); written",
                    Instead, *D->second.Speedup,
                    First ? formatv("{0:f2}x", *First).str()
                          : std::string("not measured"))
                .str();
        if (FirstComposite) {
          Keep[*FirstComposite] = false;
          Outcome[*FirstComposite] +=
              formatv("; replaced by a faster alternative ({0:f2}x)",
                      *D->second.Speedup);
        }
        InComposite.insert(Al.Kernel); // its round-1 fixes are not written
        Mixed = true;
        Finding W = CR.Findings[C];
        if (D->second.Annotation)
          W.Fix->Edits.push_back(*D->second.Annotation);
        if (auto It = AltWritten.find(Al.Kernel); It != AltWritten.end()) {
          // A deeper alternative, faster than the one written before.
          AltFinal[It->second.second] = std::move(W);
          It->second.first = *D->second.Speedup;
        } else {
          AltWritten[Al.Kernel] = {*D->second.Speedup, AltFinal.size()};
          AltFinal.push_back(std::move(W));
        }
      }
      // The alternative's own rounds chose again between overlapping fixes
      // of this kernel (column split over warp per row, once staging is
      // left out): leaving that winner out too is the next alternative.
      if (!Al.Cand.Fix && D != CV.Decisions.end() && D->second.Apply)
        for (const World::LaterConflict &LC : B.LaterConflicts) {
          if (LC.Kernel != Al.Kernel ||
              llvm::is_contained(Al.Cand.Excludes, LC.Winner))
            continue;
          AltCand Next{std::nullopt, {}, Al.Cand.Excludes, LC.Round, true};
          Next.Excludes.push_back(LC.Winner);
          bool Dup = false;
          for (const AltCand &Ca : AltBy[Al.Kernel])
            Dup |= Ca.Excludes == Next.Excludes;
          if (!Dup)
            Deeper.push_back({Al.Kernel, std::move(Next)});
        }
      Composed.AltParts.push_back(std::move(P));
    }
    for (auto &[K, Ca] : Deeper)
      AltBy[K].push_back(std::move(Ca));
  }
  for (size_t I = 0; I < Composites.size(); ++I) {
    Composition::Part P;
    P.Kernel = Composites[I].Kernel;
    for (const std::string &K : CompositeKernels[I])
      for (auto &F : ByKernel[K].Fixes)
        P.Fixes.push_back(F);
    std::stable_sort(P.Fixes.begin(), P.Fixes.end(),
                     [](auto &A, auto &B) { return A.first < B.first; });
    P.Outcome = Outcome[I];
    Composed.Parts.push_back(std::move(P));
  }

  // The write: the round-1 fixes of the kernels not composed (with their
  // annotations), and the composed fixes kept.
  std::vector<Finding> Final = findingsToApply(Run, Verified, {});
  for (size_t I = 0; I < Final.size(); ++I)
    if (!Applied1.count(I) || InComposite.count(Final[I].Kernel)) {
      Final[I].Fix.reset();
    } else if (Enablers.count(I)) {
      // Applied in round 1 only to open the way: its composition was not
      // kept, and alone it was not faster.
      Final[I].Fix.reset();
      Mixed = true; // the text written is not the one round 1 checked
      if (!Opts.Quiet)
        reportNote(Final[I].Loc.File + ":" + std::to_string(Final[I].Loc.Line) +
                   ":" + std::to_string(Final[I].Loc.Column) + ": [" +
                   Final[I].RuleId + "] fix not applied: --verify=run: " +
                   Verified->Decisions.at(I).Why +
                   " (tried as an enabling fix; its composition was not kept)");
    }
  // The note after the write counts the user's fixes: for a composed
  // kernel, all its rounds' fixes.
  std::vector<unsigned> Counts(Final.size(), 1);
  for (size_t I = 0; I < Composites.size(); ++I)
    if (Keep[I]) {
      Final.push_back(Composites[I]);
      if (Annot[I])
        Final.back().Fix->Edits.push_back(*Annot[I]);
      Counts.push_back(std::max<size_t>(1, Composed.Parts[I].Fixes.size()));
    }
  for (Finding &F : AltFinal)
    Final.push_back(std::move(F));
  Counts.resize(Final.size(), 1);
  ApplyOptions AF = applyOptions(Final, nullptr);
  AF.Decided = true;
  AF.FixCounts = std::move(Counts);
  // What is written was compile-checked in its round (annotations are
  // comments), unless first rounds and composed kernels were mixed.
  AF.CheckCompiles = Mixed;
  Exit = std::max(Exit, cudal1::applyFixes(Final, AF));
  if (!Opts.Quiet && Opts.Format == OutputFormat::Text)
    errs() << Composed.summary();
  return Exit;
}

int Pipeline::applyFixes(const AnalysisRun &Analysed,
                         const FixVerifyResult *Verified,
                         const ProposalResult *Proposed) {
  // The model's accepted variants replace their kernels: those kernels' rule
  // fixes are set aside, the variants' findings join the others (as fixes
  // verified on the GPU: a variant is only proposed for writing when it was
  // measured, so Verified is there).
  const AnalysisRun *RunP = &Analysed;
  AnalysisRun WithVariants;
  FixVerifyResult Merged;
  if (Verified && Proposed && !Proposed->Findings.empty()) {
    WithVariants.Findings = Analysed.Findings;
    WithVariants.Status = Analysed.Status;
    Merged = *Verified;
    for (auto &KV : Merged.Decisions) {
      auto R = Proposed->Replaces.find(Analysed.Findings[KV.first].Kernel);
      if (R == Proposed->Replaces.end() || !KV.second.Apply)
        continue;
      KV.second.Apply = false;
      KV.second.Annotation.reset();
      KV.second.Why = R->second;
    }
    for (const Finding &F : Proposed->Findings) {
      Merged.Decisions[WithVariants.Findings.size()].Apply = true;
      WithVariants.Findings.push_back(F);
    }
    RunP = &WithVariants;
    Verified = &Merged;
  }
  const AnalysisRun &Run = *RunP;
  Composed = Composition();
  int Exit;
  if (Opts.AppTest.empty() && RunP == &Analysed && Opts.ComposeRounds > 1) {
    Exit = applyComposed(Run, Verified);
  } else {
    std::set<size_t> Dropped;
    if (!Opts.AppTest.empty()) {
      int St = appTest(Run, Verified, Dropped);
      if (St)
        return St; // the test command is unusable: nothing is written
    }
    std::vector<Finding> ToApply = findingsToApply(Run, Verified, Dropped);
    ApplyOptions AO = applyOptions(ToApply, Verified);
    Exit = cudal1::applyFixes(ToApply, AO);
  }
  // -o: the verification results beside the rewritten files (both paths;
  // with the composed kernels' verification when there was one).
  if (!Verified || !Verified->Json || Opts.OutputDir.empty())
    return Exit;
  SmallString<256> P(Opts.OutputDir);
  sys::path::append(P, "verify-results.json");
  json::Value Results = *Verified->Json;
  if (Composed.VerifyJson)
    if (json::Object *O = Results.getAsObject())
      O->insert({"composition", *Composed.VerifyJson});
  std::string Text = formatv("{0:2}", Results).str() + "\n";
  if (std::error_code EC = sys::fs::create_directories(Opts.OutputDir)) {
    reportError(Opts.OutputDir + ": " + EC.message());
    return 2;
  }
  SafeWriteResult W = writeFileSafely(P, Text);
  if (!W.Ok) {
    reportError(P.str().str() + ": " + W.Error);
    return 2;
  }
  if (!Opts.Quiet)
    errs() << "cuda-l1: results written to " << P << "\n";
  return Exit;
}

} // namespace cudal1
