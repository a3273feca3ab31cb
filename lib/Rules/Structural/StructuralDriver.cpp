//===- StructuralDriver.cpp - run the structural checks on files ----------===//
//
// cuda-l1-structural [--rules=<globs>] [--fixed=<file>] [--list-rules]
//                    <file.cu> [-- <compiler args>]
// Prints the findings of the structural transformations (text, like the
// main tool: file:line:col: warning: message [rule-id], notes, and
// "note: no fix: <why>" for refusals) and, with --fixed, writes the file
// with every fix applied (edits of different findings must not overlap).
// A test and development driver for lib/Rules/Structural; the main CLI
// runs the same checks through the rule registry.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace cudal1;

static cl::OptionCategory Cat("cuda-l1-structural options");
static cl::opt<std::string> Rules("rules", cl::desc("Rule globs"),
                                  cl::init("*"), cl::cat(Cat));
static cl::opt<std::string>
    Fixed("fixed", cl::desc("Write the main file with all fixes applied"),
          cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> ListRules("list-rules", cl::desc("List the rules"),
                               cl::cat(Cat));
static cl::list<std::string> Files(cl::Positional, cl::desc("<files...>"),
                                   cl::cat(Cat));

namespace {
class Handler : public TUHandler {
public:
  std::vector<Finding> Findings;
  void handleTranslationUnit(clang::ASTContext &Ctx, clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    ProjectModel Model = collectKernelModel(Ctx);
    CheckOptions Opts;
    CheckContext CC;
    CC.Model = &Model;
    CC.Options = &Opts;
    CC.CI = &CI;
    CC.IsUserFile = [](const std::string &P) {
      return P.find("/usr/local/cuda") == std::string::npos &&
             P.find("/usr/lib/") == std::string::npos &&
             P.find("/usr/include") == std::string::npos;
    };
    setRulePreprocessor(&CI.getPreprocessor());
    for (auto &C : CheckRegistry::create(GlobList(Rules)))
      C->run(Ctx, CC, Findings);
  }
};
} // namespace

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  std::vector<const char *> OurArgs;
  std::vector<std::string> CompilerArgs;
  bool Seen = false;
  for (int I = 0; I < argc; ++I) {
    if (!Seen && I > 0 && StringRef(argv[I]) == "--") {
      Seen = true;
      continue;
    }
    (Seen ? (void)CompilerArgs.push_back(argv[I])
          : (void)OurArgs.push_back(argv[I]));
  }
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(OurArgs.size(), OurArgs.data(),
                              "structural transformations of cuda-l1\n");
  if (ListRules) {
    for (const RuleInfo &R : CheckRegistry::rules())
      if (GlobList(Rules).contains(R.Id))
        outs() << R.Id << " (" << toString(R.Exactness) << "): " << R.Summary << "\n";
    return 0;
  }
  if (Files.empty()) {
    reportError("no input files");
    return 2;
  }
  FrontendConfig Config;
  Config.Parse.CudaPath = findCudaPath("");
  Config.Parse.GpuArch = "sm_90";
  Config.Parse.ResourceDir = findResourceDir(argv[0], (void *)&main);
  Config.Parse.ExtraArgs = CompilerArgs;
  std::string Err;
  auto FE = Frontend::create(Config, Err);
  if (!FE) {
    reportError(Err);
    return 2;
  }
  Handler H;
  std::vector<std::string> Fs(Files.begin(), Files.end());
  FrontendStatus St = FE->run(Fs, H, 1);
  if (St.Failed)
    return 2;
  sortAndDedup(H.Findings);
  for (const Finding &F : H.Findings) {
    outs() << F.Loc.str() << ": warning: " << F.Message << " [" << F.RuleId
           << "]\n";
    for (const FindingNote &N : F.Notes)
      outs() << N.Loc.str() << ": note: " << N.Message << "\n";
    if (F.Fix)
      outs() << F.Loc.str() << ": note: fix (" << toString(F.Fix->Exact)
             << (F.Fix->Proven ? "" : ", not proven")
             << (F.Fix->NeedsMeasurement ? ", to be measured" : "") << "): "
             << F.Fix->Description << "\n";
    else if (!F.WhyNoFix.empty())
      outs() << F.Loc.str() << ": note: no fix: " << F.WhyNoFix << "\n";
  }
  if (!Fixed.empty()) {
    std::string Main = Fs.front();
    SmallString<256> Abs(Main);
    sys::fs::make_absolute(Abs);
    auto Buf = MemoryBuffer::getFile(Abs);
    if (!Buf) {
      reportError(Main + ": cannot read");
      return 2;
    }
    std::string Text = (*Buf)->getBuffer().str();
    std::vector<TextEdit> Edits;
    for (const Finding &F : H.Findings)
      if (F.Fix)
        for (const TextEdit &E : F.Fix->Edits)
          if (E.File == std::string(Abs.str()))
            Edits.push_back(E);
    std::sort(Edits.begin(), Edits.end(), [](const TextEdit &A, const TextEdit &B) {
      return A.Offset != B.Offset ? A.Offset > B.Offset : A.Length > B.Length;
    });
    unsigned Limit = Text.size() + 1;
    for (const TextEdit &E : Edits) {
      if (E.Offset + E.Length > Limit) {
        reportError(Main + ": overlapping edits; an edit at offset " +
                    std::to_string(E.Offset) + " was dropped");
        continue;
      }
      Text.replace(E.Offset, E.Length, E.Replacement);
      Limit = E.Offset;
    }
    std::error_code EC;
    raw_fd_ostream OS(Fixed, EC);
    if (EC) {
      reportError(Fixed + ": " + EC.message());
      return 2;
    }
    OS << Text;
  }
  return 0;
}
