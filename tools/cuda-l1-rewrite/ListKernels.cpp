//===- ListKernels.cpp - --list-kernels -----------------------------------===//
#include "Tool.h"
#include "cudal1/Emit/KernelListing.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

int runListKernels(Pipeline &P) {
  if (P.options().Format == OutputFormat::Sarif) {
    reportError("--format=sarif is for findings; --list-kernels writes text "
                "or json");
    return 2;
  }
  FrontendStatus St;
  ProjectModel Model = P.kernelModel(St);
  if (P.options().Format == OutputFormat::Json)
    printJson(kernelListJson(Model), outs());
  else
    printKernelListText(Model, outs());
  return St.Failed ? 2 : P.inputStatus();
}

} // namespace cudal1
