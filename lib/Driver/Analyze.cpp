//===- Analyze.cpp - parse, analyse, run the rules, collect findings ------===//
#include "HarnessResolve.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/BufferRoles.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Frontend/UserCode.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>
#include <tuple>

using namespace llvm;

namespace cudal1 {

namespace {

/// Limits the AST's traversal scope to the top-level declarations that are
/// user code (UserCode.h) while it lives; the whole translation unit again
/// afterwards.
class UserTraversalScope {
public:
  UserTraversalScope(clang::ASTContext &Ctx, const UserFilePredicate &IsUser)
      : Ctx(Ctx) {
    UserCodeFilter UF(Ctx.getSourceManager(), IsUser);
    std::vector<clang::Decl *> Scope;
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (UF.contains(D->getLocation()))
        Scope.push_back(D);
    Ctx.setTraversalScope(Scope);
  }
  ~UserTraversalScope() {
    Ctx.setTraversalScope({Ctx.getTranslationUnitDecl()});
  }

private:
  clang::ASTContext &Ctx;
};

/// Runs the analysis and the enabled rules on each translation unit.
class AnalyzeHandler : public TUHandler {
public:
  AnalyzeHandler(Pipeline &P, bool CollectKernels, bool AllKernels)
      : P(P), CollectKernels(CollectKernels || AllKernels),
        AllKernels(AllKernels) {
    const Options &O = P.options();
    for (StringRef Dir : {StringRef(O.CudaPath), StringRef(O.ResourceDir)}) {
      if (Dir.empty())
        continue;
      SmallString<256> Abs(Dir);
      sys::fs::make_absolute(Abs);
      sys::path::remove_dots(Abs, true);
      SmallString<256> Real;
      if (!sys::fs::real_path(Abs, Real))
        SystemDirs.push_back(std::string(Real));
      SystemDirs.push_back(std::string(Abs));
    }
    for (const char *D : {"/usr/include/", "/usr/lib/", "/usr/local/include/"})
      SystemDirs.push_back(D);
  }

  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    const AnalysisConfig &C = P.configs().forFile(MainFile).Config;
    auto IsUser = userFilter();
    // Over several files: the calls each makes of host functions defined
    // in another, and the launches whose values wait for such calls. The
    // second pass (Calls set) gives those launches the values the other
    // files pass, for the rules as for harness inference.
    ProjectModel Model = collectKernelModel(Ctx, IsUser, Calls, RecordCalls,
                                            P.options().programArgs());
    if (RecordCalls) {
      // What the file needs stays the first pass's; its calls are the
      // latest pass's (they may say more with the other files' calls).
      ProjectModel &PC = PerFileCalls[MainFile.str()];
      PC.CallsOut = Model.CallsOut;
      if (!Calls) {
        PC.Unreached = Model.Unreached;
        PC.CallsNeed = Model.CallsNeed;
      }
    }
    std::unique_ptr<AnalysisResults> Analysis =
        AnalysisResults::analyze(Ctx, Model, IsUser);
    addBufferUses(Ctx, *Analysis, Model);
    if (P.options().DumpAccesses)
      Analysis->print(outs());
    CheckContext CC;
    CC.Model = &Model;
    // The rule options, and what the driver knows that a rule may need to
    // compile a kernel (launch-bounds reads its register count).
    CheckOptions RuleOptions = C.Options;
    RuleOptions.Values["cuda-l1.CudaPath"] = P.options().CudaPath;
    RuleOptions.Values["cuda-l1.GpuArch"] = P.options().GpuArch;
    CC.Options = &RuleOptions;
    CC.Analysis = Analysis.get();
    CC.CI = &CI;
    CC.IsUserFile = IsUser;
    GlobList WAE(P.effectiveWarningsAsErrors(C));
    P.warnUnmatchedGlobs(C);
    std::vector<Finding> Out;
    // The rules see the user's declarations only: their AST matchers and
    // visitors (and the parent map behind hasAncestor) would otherwise walk
    // every declaration of the CUDA and C++ headers too, for each rule —
    // most of the analysis time on a typical file (docs/PERFORMANCE.md).
    // Nothing a rule reports or rewrites lies outside that scope.
    UserTraversalScope Scope(Ctx, IsUser);
    for (auto &Chk : CheckRegistry::create(GlobList(P.effectiveRules(C)))) {
      // A rule that crashes loses its findings for this file, not the run.
      std::vector<Finding> Part;
      CrashRecoveryContext CRC;
      if (!CRC.RunSafely([&] { Chk->run(Ctx, CC, Part); })) {
        reportError(MainFile.str() + ": rule '" + Chk->info().Id +
                    "' crashed; its findings for this file are skipped");
        Run.RuleCrashed = true;
        continue;
      }
      for (Finding &F : Part)
        Out.push_back(std::move(F));
    }
    dropSubsumed(Out, Model);
    if (CollectKernels)
      collectKernels(Ctx, CI, Model, Out);
    std::vector<Finding> &Mine = FindingsOf[MainFile.str()];
    Mine.clear(); // a second pass replaces the first's findings
    for (Finding &F : Out) {
      if (WAE.contains(F.RuleId) && F.Severity == "warning")
        F.Severity = "error";
      Mine.push_back(std::move(F));
    }
  }

  FileFilter userFilter() const {
    std::vector<std::string> Dirs = SystemDirs;
    return [Dirs](const std::string &Path) {
      for (const std::string &D : Dirs)
        if (StringRef(Path).starts_with(D))
          return false;
      return true;
    };
  }

  AnalysisRun Run;
  std::vector<LaunchSite> Launches;
  bool RecordCalls = false;
  /// Per main file: CallsOut and Unreached of its model.
  std::map<std::string, ProjectModel> PerFileCalls;
  /// The calls of all files, for the second pass (nullptr in the first).
  const ExternalCalls *Calls = nullptr;
  /// Per main file, its findings (Run.Findings once every pass is done).
  std::map<std::string, std::vector<Finding>> FindingsOf;

private:
  /// A finding that another enabled rule's finding at the same place
  /// subsumes (the same diagnosis, with a fix or the reason for none) is
  /// dropped: memory-atomic-contention's "32 atomics per warp on one
  /// address" where sync-warp-atomic-reduction reports that atomic
  /// (docs/advise.md). Per kernel: memory-ldg's read-only loads, reported
  /// only when no-aliasing is not proven, where memory-restrict reports the
  /// same kernel's parameters for the same reason.
  /// And a fix-less finding about how a row-walking kernel's threads access
  /// memory (uncoalesced, strided, a row walked by each thread) from the
  /// first row loop on, where a warp-per-row rule rewrites that kernel with
  /// a fix: it describes the mapping the fix replaces. Kernels are told
  /// apart by name and place (overloads share a name).
  static void dropSubsumed(std::vector<Finding> &Out,
                           const ProjectModel &Model) {
    struct PerKernel {
      std::vector<StringRef> Minors, Majors;
      bool MajorWithFix;
      bool MinorFromMajorLine; // only minors at or after the major's line
    };
    static const PerKernel Kernels[] = {
        {{"memory-ldg"}, {"memory-restrict"}, false, false},
        {{"coalescing-uncoalesced-access", "coalescing-strided-access",
          "coalescing-smem-staging"},
         {"coalescing-warp-per-row", "coalescing-warp-per-row-passes"},
         true,
         true}};
    // The kernel a finding lies in: same name, inside its definition.
    auto KernelOf = [&](const Finding &F) -> std::string {
      if (F.Kernel.empty())
        return "";
      for (const KernelInfo &K : Model.Kernels)
        if (K.QualifiedName == F.Kernel && K.Range.Begin.File == F.Loc.File &&
            K.Range.Begin.Line <= F.Loc.Line && F.Loc.Line <= K.Range.End.Line)
          return K.key();
      return "";
    };
    for (const PerKernel &PK : Kernels) {
      std::map<std::string, unsigned> In; // kernel -> first major line
      for (const Finding &F : Out)
        if (llvm::is_contained(PK.Majors, F.RuleId) &&
            (!PK.MajorWithFix || F.Fix)) {
          std::string K = KernelOf(F);
          if (K.empty())
            continue;
          auto [It, New] = In.try_emplace(K, F.Loc.Line);
          if (!New)
            It->second = std::min(It->second, F.Loc.Line);
        }
      if (In.empty())
        continue;
      llvm::erase_if(Out, [&](const Finding &F) {
        if (!llvm::is_contained(PK.Minors, F.RuleId) || F.Fix)
          return false;
        auto It = In.find(KernelOf(F));
        return It != In.end() &&
               (!PK.MinorFromMajorLine || F.Loc.Line >= It->second);
      });
    }
    // One access of a row walk, diagnosed by several coalescing rules at
    // one place: a fix-less finding where a rule earlier in the list
    // reports (fix or not) is the same diagnosis,
    // with a narrower remedy. Earlier in the list: the broader remedy (a
    // warp per row gives a row 32 lanes, which also splits a loop over too
    // few threads, and reads it coalesced, which staging and the
    // uncoalesced and strided findings describe).
    static const StringRef RowWalk[] = {
        "coalescing-warp-per-row-passes", "coalescing-warp-per-row",
        "coalescing-column-split",        "coalescing-smem-staging",
        "coalescing-uncoalesced-access",  "coalescing-strided-access"};
    {
      auto Rank = [&](const Finding &F) {
        return (size_t)(llvm::find(RowWalk, F.RuleId) - std::begin(RowWalk));
      };
      // The same access or statement; a warp-per-row finding covers its
      // whole accumulation statement (the fix rewrites all of it), the
      // others only their own place (another array's access in a split
      // loop keeps its finding).
      auto Covers = [&](const Finding &Major, const Finding &Minor) {
        if (Major.Loc.File != Minor.Loc.File)
          return false;
        if (Major.Offset == Minor.Offset)
          return true;
        if (Rank(Major) > 1 || Major.RangeEnd.File.empty())
          return false;
        auto Pos = [](const SourceLoc &L) {
          return std::make_pair(L.Line, L.Column);
        };
        return Pos(Major.Loc) <= Pos(Minor.Loc) &&
               Pos(Minor.Loc) <= Pos(Major.RangeEnd);
      };
      std::vector<const Finding *> Ranked;
      for (const Finding &F : Out)
        if (Rank(F) < std::size(RowWalk))
          Ranked.push_back(&F);
      std::set<const Finding *> Drop;
      for (const Finding *Minor : Ranked) {
        if (Minor->Fix)
          continue;
        for (const Finding *Major : Ranked)
          if (Rank(*Major) < Rank(*Minor) && Covers(*Major, *Minor)) {
            Drop.insert(Minor);
            break;
          }
      }
      // Each element is tested at its own address before any is moved.
      llvm::erase_if(Out, [&](const Finding &F) { return Drop.count(&F); });
    }
    static const std::pair<StringRef, StringRef> Subsumed[] = {
        {"memory-atomic-contention", "sync-warp-atomic-reduction"}};
    for (const auto &[Minor, Major] : Subsumed) {
      std::set<std::pair<std::string, unsigned>> At;
      for (const Finding &F : Out)
        if (F.RuleId == Major)
          At.insert({F.Loc.File, F.Offset});
      if (At.empty())
        continue;
      llvm::erase_if(Out, [&](const Finding &F) {
        return F.RuleId == Minor && At.count({F.Loc.File, F.Offset});
      });
    }
  }

  /// The kernels with fixes, extracted with their context, and every launch
  /// site (harness inference) for --fix --verify=run.
  void collectKernels(clang::ASTContext &Ctx, clang::CompilerInstance &CI,
                      const ProjectModel &Model,
                      const std::vector<Finding> &Out) {
    // A second pass's launch sites replace the first's (same place).
    for (const LaunchSite &LS : Model.LaunchSites) {
      auto It = llvm::find_if(Launches, [&](const LaunchSite &O) {
        return O.key() == LS.key();
      });
      if (It != Launches.end())
        *It = LS;
      else
        Launches.push_back(LS);
    }
    std::set<std::string> Names;
    for (const Finding &F : Out)
      if ((F.Fix || AllKernels) && !F.Kernel.empty() &&
          !Run.Kernels.count(F.Kernel))
        Names.insert(F.Kernel);
    using RunCallers = AnalysisRun::Callers;
    std::map<std::string, RunCallers *> Wanted; // by the function's place
    // Fixes in device functions (no kernel): the kernels that call the
    // function, which --verify=run verifies them through. The function is
    // the last one the kernels call that starts before the fix.
    for (const Finding &F : Out) {
      if (!F.Fix || !F.Kernel.empty() || F.Fix->HostOnly)
        continue;
      const CalleeInfo *In = nullptr;
      for (const KernelInfo &KI : Model.Kernels)
        for (const CalleeInfo &C : KI.DeviceFunctions)
          if (C.Loc.File == F.Loc.File &&
              std::tie(C.Loc.Line, C.Loc.Column) <=
                  std::tie(F.Loc.Line, F.Loc.Column) &&
              (!In || std::tie(In->Loc.Line, In->Loc.Column) <
                          std::tie(C.Loc.Line, C.Loc.Column)))
            In = &C;
      if (!In)
        continue;
      RunCallers &RC = Run.DeviceFunctionCallers[In->QualifiedName];
      for (const KernelInfo &KI : Model.Kernels)
        for (const CalleeInfo &C : KI.DeviceFunctions)
          if (C.Loc == In->Loc) {
            RC.Kernels.insert(KI.QualifiedName);
            if (!Run.Kernels.count(KI.QualifiedName))
              Names.insert(KI.QualifiedName);
          }
      Wanted[In->Loc.str()] = &RC;
    }
    // Host code may call them too (`__host__ __device__`): a fix there is
    // not the kernels' alone. One walk over the user's declarations.
    if (!Wanted.empty()) {
      const clang::SourceManager &SM = Ctx.getSourceManager();
      std::function<void(const clang::DeclContext *)> Find =
          [&](const clang::DeclContext *DC) {
            for (const clang::Decl *D : DC->decls()) {
              if (SM.isInSystemHeader(D->getLocation()))
                continue;
              const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
              if (const auto *FT =
                      llvm::dyn_cast<clang::FunctionTemplateDecl>(D))
                FD = FT->getTemplatedDecl();
              if (FD) {
                if (FD->hasAttr<clang::CUDAHostAttr>() &&
                    FD->hasAttr<clang::CUDADeviceAttr>())
                  if (auto W = Wanted.find(
                          makeSourceLoc(SM, FD->getLocation()).str());
                      W != Wanted.end())
                    W->second->Host = true;
              } else if (llvm::isa<clang::NamespaceDecl>(D) ||
                         llvm::isa<clang::LinkageSpecDecl>(D)) {
                Find(llvm::cast<clang::DeclContext>(D));
              }
            }
          };
      Find(Ctx.getTranslationUnitDecl());
    }
    // --kernel names a kernel model proposals are asked for, findings or not.
    const std::string &Named = P.options().Kernel;
    if (AllKernels && !Named.empty())
      for (const KernelInfo &KI : Model.Kernels)
        if (KI.QualifiedName == Named || KI.Name == Named)
          Names.insert(KI.QualifiedName);
    for (const std::string &N : Names)
      for (ExtractedKernel &K : extractKernels(Ctx, CI.getPreprocessor(), N))
        if (K.Kernel == N && !Run.Kernels.count(N)) {
          Run.Kernels[N].K = std::move(K);
          Run.Kernels[N].Uses = bufferUsesOf(Model, N);
          Run.Kernels[N].MangledNames = mangledNamesOf(Model, N);
        }
  }

  Pipeline &P;
  bool CollectKernels, AllKernels;
  std::vector<std::string> SystemDirs;
};

/// Drops the findings that a NOLINT comment in their file suppresses (in
/// \p Overlay's contents where it has the file).
void applySuppressions(std::vector<Finding> &Findings,
                       const std::map<std::string, std::string> &Overlay) {
  std::map<std::string, std::string> Texts = Overlay;
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

} // namespace

AnalysisRun Pipeline::analyze(bool CollectKernels, bool AllKernels) {
  loadRules(); // YAML rules register before the checks are created
  CrashRecoveryContext::Enable();
  AnalyzeHandler Handler(*this, CollectKernels, AllKernels);
  std::vector<std::string> Files;
  for (const std::string &F : Opts.Files) {
    std::vector<std::string> Cmd = FE->commandFor(F);
    bool Cuda = false;
    for (size_t I = 0; I + 1 < Cmd.size(); ++I)
      Cuda |= Cmd[I] == "-x" && Cmd[I + 1] == "cuda";
    if (Cuda || !Opts.CudaOnly)
      Files.push_back(F);
  }
  Handler.RecordCalls = Files.size() > 1;
  Handler.Run.Status = FE->run(Files, Handler, Opts.Jobs);
  // Launches whose values come from calls in other files (a host wrapper
  // defined here, called with constants from main.cu): the files holding
  // them are analysed again with those calls, and their findings and
  // launch sites replace the first pass's (as --print-harness does).
  // A value may pass through several files (main.cpp calls a wrapper in
  // utils.cpp that calls the launching function of kernels.cu): rounds,
  // while the calls say more (modelAcrossFiles does the same).
  ExternalCalls All = callsAcrossFiles(Handler.PerFileCalls), Before;
  for (unsigned Round = 0; Round < kMaxCallRounds; ++Round) {
    std::vector<std::string> Again = filesNeedingCalls(
        Handler.PerFileCalls, All, Round ? &Before : nullptr);
    if (Again.empty())
      break;
    Handler.Calls = &All;
    FE->run(Again, Handler, Opts.Jobs);
    Handler.Calls = nullptr;
    Before = std::move(All);
    All = callsAcrossFiles(Handler.PerFileCalls);
  }
  // A file on disk parsed for given files that do not parse alone: only
  // their code is reported, and only fixes that change nothing else.
  const auto &ParsedFor = Handler.Run.Status.ParsedFor;
  for (const auto &[Root, Given] : ParsedFor)
    for (const std::string &G : Given)
      ParsedThrough[G] = Root;
  // A given file named through a symbolic link is the same file.
  auto Given = [](const std::set<std::string> &Files, const std::string &F) {
    if (Files.count(F))
      return true;
    return llvm::any_of(Files, [&](const std::string &G) {
      bool Same = false;
      return !sys::fs::equivalent(G, F, Same) && Same;
    });
  };
  for (auto &KV : Handler.FindingsOf) {
    auto For = ParsedFor.find(KV.first);
    for (Finding &F : KV.second) {
      if (For != ParsedFor.end()) {
        if (!Given(For->second, F.Loc.File))
          continue;
        if (F.Fix)
          for (const TextEdit &E : F.Fix->Edits)
            if (!Given(For->second, E.File)) {
              F.WhyNoFix = "the fix also changes " + E.File +
                           ", which was not given; run the tool on " +
                           KV.first + " to apply it";
              F.Fix.reset();
              break;
            }
      }
      Handler.Run.Findings.push_back(std::move(F));
    }
  }
  AnalysisRun Run = std::move(Handler.Run);
  sortAndDedup(Run.Findings);
  applySuppressions(Run.Findings, Opts.Overlay);
  for (auto &KV : Run.Kernels) {
    std::set<std::string> Seen;
    for (const LaunchSite &LS : Handler.Launches)
      if (LS.Kernel == KV.first && Seen.insert(LS.key()).second)
        KV.second.Launches.push_back(LS);
  }
  return Run;
}

} // namespace cudal1
