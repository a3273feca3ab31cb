//===- PrintHarness.cpp - --print-harness: every kernel's inferred harness -===//
//
// Parses the input files, builds the model with launch values and buffer
// uses (HarnessResolve.h: harnessModel), and infers, per kernel, the
// harness of its launch sites: the first tuple of values that gives a
// complete harness, else the one that leaves the fewest values unknown.
//
//===----------------------------------------------------------------------===//
#include "HarnessResolve.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Verify/HarnessSelect.h"


#include <set>

using namespace llvm;

namespace cudal1 {

namespace {

/// The parameters a launch passes: those of the instantiation it launches
/// (templates), else the kernel's own.
std::vector<ParamInfo> paramsFor(const KernelInfo &K, const LaunchValues &V) {
  if (K.IsTemplate)
    for (const InstantiationInfo &I : K.Instantiations)
      if (I.TemplateArgs == V.TemplateArgs)
        return namedParams(I.Params);
  return namedParams(K.Params);
}

bool launches(const LaunchSite &LS, const KernelInfo &K) {
  return LS.KernelKey.empty() ? LS.Kernel == K.QualifiedName
                              : LS.KernelKey == K.key();
}


/// Infers the harness of \p K from its launch sites \p Ls into \p It: the
/// first complete tuple of values, else the one leaving the fewest unknown.
void inferKernel(const KernelInfo &K, const std::vector<const LaunchSite *> &Ls,
                 const ExprEnv &Env, HarnessListing::Item &It) {
  struct Tuple {
    InferredHarness IH;
    std::string Origin, Summary, TemplateArgs;
  };
  std::vector<Tuple> Ts;
  for (const LaunchSite *LS : Ls) {
    for (const LaunchValues &V : LS->Values) {
      std::vector<ParamInfo> Params = paramsFor(K, V);
      Tuple T;
      T.IH = inferHarness(It.EntryName, Params, V, K.BufferUses, Env);
      T.Origin = "inferred from the launch at " + LS->Loc.brief();
      if (!V.TemplateArgs.empty())
        T.Origin += " of " + V.NameExpr;
      if (!V.Path.empty())
        T.Origin += " (through " + V.Path.back() + ")";
      T.Summary = LS->Loc.brief() + ": " + launchSummary(V, Params);
      T.TemplateArgs = V.TemplateArgs;
      Ts.push_back(std::move(T));
    }
  }
  if (Ts.empty()) {
    It.Status = "no-launch";
    It.Why = Ls.empty() ? "no launch site in the files given"
                        : "its launch at " + Ls.front()->Loc.brief() +
                              " could not be evaluated" +
                              (Ls.front()->ValuesNote.empty()
                                   ? ""
                                   : " (" + Ls.front()->ValuesNote + ")");
    return;
  }
  size_t Best = 0;
  for (size_t I = 1; I < Ts.size(); ++I) {
    const InferredHarness &A = Ts[I].IH, &B = Ts[Best].IH;
    if ((A.Complete && !B.Complete) ||
        (A.Complete && B.Complete && B.Chosen && !A.Chosen) ||
        (!A.Complete && !B.Complete && A.Missing.size() < B.Missing.size()))
      Best = I;
  }
  for (size_t I = 0; I < Ts.size(); ++I)
    if (I != Best)
      It.OtherLaunches.push_back(Ts[I].Summary);
  It.Template = Ts[Best].TemplateArgs;
  It.Origin = Ts[Best].Origin;
  It.Inferred = std::move(Ts[Best].IH);
  It.Status = It.Inferred.Complete ? "complete" : "incomplete";
}

} // namespace

HarnessListing Pipeline::inferHarnesses() {
  HarnessListing Out;
  ExprEnv Env;
  if (!parseDefines(Opts.Defines, Env)) {
    Out.Exit = 2;
    return Out;
  }
  // One model per file, then completed across the files given (values of
  // host functions called from another file).
  const ProgramCommandLine *Args = Opts.programArgs();
  ModelBuilderFn Build = [Args](clang::ASTContext &Ctx, const ExternalCalls *C,
                                bool Record) {
    return harnessModel(Ctx, nullptr, C, Record, Args);
  };
  struct Handler : TUHandler {
    void handleTranslationUnit(clang::ASTContext &Ctx,
                               clang::CompilerInstance &,
                               StringRef MainFile) override {
      PerFile[MainFile.str()].merge((*Build)(Ctx, nullptr, Record));
    }
    const ModelBuilderFn *Build = nullptr;
    bool Record = false;
    std::map<std::string, ProjectModel> PerFile;
  } H;
  H.Build = &Build;
  H.Record = Opts.Files.size() > 1;
  Out.Status = FE->run(Opts.Files, H, Opts.Jobs);
  ProjectModel HModel =
      modelAcrossFiles(*FE, std::move(H.PerFile), Opts.Jobs, Build);
  std::map<std::string, unsigned> SimpleNames;
  for (const KernelInfo &K : HModel.Kernels)
    ++SimpleNames[simpleKernelName(K.QualifiedName)];
  for (const KernelInfo &K : HModel.Kernels) {
    HarnessListing::Item It;
    It.Kernel = K.QualifiedName;
    std::string Simple = simpleKernelName(K.QualifiedName);
    It.EntryName = SimpleNames[Simple] > 1 ? K.QualifiedName : Simple;
    It.Definition = K.Range.Begin;
    std::vector<const LaunchSite *> Ls;
    for (const LaunchSite &LS : HModel.LaunchSites)
      if (launches(LS, K))
        Ls.push_back(&LS);
    It.LaunchSites = Ls.size();
    inferKernel(K, Ls, Env, It);
    Out.Items.push_back(std::move(It));
  }
  Out.Exit = Out.Status.Failed ? 2 : inputStatus();
  return Out;
}

} // namespace cudal1
