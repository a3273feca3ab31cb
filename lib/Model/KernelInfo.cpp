//===- KernelInfo.cpp - plain-data kernel model helpers -------------------===//
#include "cudal1/Model/KernelInfo.h"

#include <algorithm>
#include <set>

namespace cudal1 {

std::vector<ParamInfo> namedParams(std::vector<ParamInfo> Params) {
  for (ParamInfo &P : Params)
    if (P.Name.empty())
      P.Name = "arg" + std::to_string(P.Index);
  return Params;
}

ParamInfo makeParam(std::string Name, std::string Type,
                    std::string ElementType, bool IsPointer,
                    bool PointeeConst, uint64_t Size, uint64_t ElementSize) {
  ParamInfo P;
  P.Name = std::move(Name);
  P.Type = std::move(Type);
  P.ElementType = std::move(ElementType);
  P.IsPointer = IsPointer;
  P.PointeeConst = PointeeConst;
  P.SizeBytes = Size;
  P.AlignBytes = Size;
  P.ElementSizeBytes = ElementSize;
  return P;
}

std::string SourceLoc::str() const {
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

static void mergeKernel(KernelInfo &Into, const KernelInfo &From) {
  // Instantiations seen in another translation unit.
  for (const auto &I : From.Instantiations) {
    bool Seen = std::any_of(
        Into.Instantiations.begin(), Into.Instantiations.end(),
        [&](const InstantiationInfo &J) { return J.NameExpr == I.NameExpr; });
    if (!Seen)
      Into.Instantiations.push_back(I);
  }
  std::set<std::string> Have;
  for (const auto &C : Into.DeviceFunctions)
    Have.insert(C.Loc.str() + C.QualifiedName);
  for (const auto &C : From.DeviceFunctions)
    if (Have.insert(C.Loc.str() + C.QualifiedName).second)
      Into.DeviceFunctions.push_back(C);
  Have.clear();
  for (const auto &V : Into.Variables)
    Have.insert(V.Loc.str() + V.QualifiedName);
  for (const auto &V : From.Variables)
    if (Have.insert(V.Loc.str() + V.QualifiedName).second)
      Into.Variables.push_back(V);
}

void ProjectModel::merge(const ProjectModel &TU) {
  for (const auto &K : TU.Kernels) {
    auto It = std::find_if(Kernels.begin(), Kernels.end(),
                           [&](const KernelInfo &E) { return E.key() == K.key(); });
    if (It == Kernels.end())
      Kernels.push_back(K);
    else
      mergeKernel(*It, K);
  }
  for (const auto &L : TU.LaunchSites) {
    auto It = std::find_if(
        LaunchSites.begin(), LaunchSites.end(),
        [&](const LaunchSite &E) { return E.key() == L.key(); });
    if (It == LaunchSites.end()) {
      LaunchSites.push_back(L);
      continue;
    }
    std::vector<std::string> Args = It->TemplateArgs;
    for (const auto &A : L.TemplateArgs)
      if (std::find(Args.begin(), Args.end(), A) == Args.end())
        Args.push_back(A);
    // Prefer a resolved call (instantiation) over the unresolved one in a
    // template pattern; if instantiations disagree on a value, it is not a
    // constant of the launch site.
    if (It->KernelKey.empty() && !L.KernelKey.empty()) {
      *It = L;
    } else if (!L.KernelKey.empty()) {
      auto Agree = [](LaunchArg &A, const LaunchArg &B) {
        if (A.Dim != B.Dim)
          A.Dim.reset();
        if (A.Value != B.Value)
          A.Value.reset();
      };
      Agree(It->Grid, L.Grid);
      Agree(It->Block, L.Block);
      Agree(It->SharedMem, L.SharedMem);
    }
    It->TemplateArgs = Args;
  }
}

void ProjectModel::sort() {
  std::stable_sort(Kernels.begin(), Kernels.end(),
                   [](const KernelInfo &A, const KernelInfo &B) {
                     return A.Range.Begin < B.Range.Begin;
                   });
  for (auto &K : Kernels) {
    std::sort(K.DeviceFunctions.begin(), K.DeviceFunctions.end());
    std::sort(K.Variables.begin(), K.Variables.end());
    std::stable_sort(K.Instantiations.begin(), K.Instantiations.end(),
                     [](const InstantiationInfo &A, const InstantiationInfo &B) {
                       return A.TemplateArgs < B.TemplateArgs;
                     });
  }
  std::stable_sort(LaunchSites.begin(), LaunchSites.end(),
                   [](const LaunchSite &A, const LaunchSite &B) {
                     return A.Loc < B.Loc;
                   });
  for (auto &L : LaunchSites)
    std::sort(L.TemplateArgs.begin(), L.TemplateArgs.end());
}

} // namespace cudal1
