//===- ListKernels.cpp - --list-kernels -----------------------------------===//
#include "Driver.h"
#include "cudal1/Emit/KernelListing.h"
#include "cudal1/Model/KernelModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

static cl::opt<bool> ListKernels(
    "list-kernels",
    cl::desc("List every kernel (parameters, template instantiations, "
             "device-call closure, variables) and every launch site"),
    cl::cat(ToolCategory));

bool listKernelsRequested() { return ListKernels; }

namespace {
class ModelHandler : public TUHandler {
public:
  void handleTranslationUnit(clang::ASTContext &Ctx, clang::CompilerInstance &,
                             StringRef) override {
    Model.merge(collectKernelModel(Ctx));
  }
  ProjectModel Model;
};
} // namespace

int runListKernels(DriverContext &DC) {
  if (Format == OutputFormat::Sarif) {
    reportError("--format=sarif is for findings; --list-kernels writes text "
                "or json");
    return 2;
  }
  ModelHandler Handler;
  FrontendStatus St = DC.FE.run(DC.Files, Handler, Jobs);
  Handler.Model.sort();
  if (Format == OutputFormat::Json)
    outs() << formatv("{0:2}", kernelListJson(Handler.Model)) << "\n";
  else
    printKernelListText(Handler.Model, outs());
  return St.Failed ? 2 : DC.Exit;
}

} // namespace cudal1
