//===- Capture.cpp - --capture=<dir>: captured launches of a kernel -------===//
#include "cudal1/Driver/Pipeline.h"

#include "llvm/Support/Error.h"

using namespace llvm;

namespace cudal1 {

std::vector<std::string> mangledNamesOf(const ProjectModel &M,
                                        const std::string &Qualified) {
  std::vector<std::string> Out;
  for (const KernelInfo &K : M.Kernels) {
    if (K.QualifiedName != Qualified)
      continue;
    if (!K.MangledName.empty())
      Out.push_back(K.MangledName);
    for (const InstantiationInfo &I : K.Instantiations)
      if (!I.MangledName.empty() &&
          std::find(Out.begin(), Out.end(), I.MangledName) == Out.end())
        Out.push_back(I.MangledName);
  }
  return Out;
}

bool capturedLaunchesOf(const Options &O,
                        const std::vector<std::string> &Mangled,
                        std::vector<ReplayLaunch> &Out) {
  Out.clear();
  if (O.CaptureDir.empty())
    return true;
  for (const std::string &M : Mangled) {
    if (Out.size() >= O.CaptureLaunches)
      break;
    Expected<std::vector<ReplayLaunch>> L =
        loadCapturedLaunches(O.CaptureDir, M, O.CaptureLaunches - Out.size());
    if (!L) {
      reportError(toString(L.takeError()));
      return false;
    }
    for (ReplayLaunch &R : *L)
      Out.push_back(std::move(R));
  }
  return true;
}

} // namespace cudal1
