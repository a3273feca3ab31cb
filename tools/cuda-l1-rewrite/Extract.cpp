//===- Extract.cpp - --extract=<kernel|all> -o <dir>
//-----------------------===//
//
// Writes one self-contained .cu file and one .json manifest per kernel
// (docs/extract.md); with --verify=compile, compiles each through NVRTC.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Extract/Extract.h"
#include "Driver.h"
#include "cudal1/Compile/Nvrtc.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

namespace cudal1 {

static cl::opt<std::string> ExtractSelector(
    "extract",
    cl::desc("Write each selected kernel with the context it needs as a "
             "self-contained .cu file plus a .json manifest under -o <dir>"),
    cl::value_desc("kernel|all"), cl::cat(ToolCategory));

bool extractRequested() { return ExtractSelector.getNumOccurrences() > 0; }

namespace {

struct Extracted {
  ExtractedKernel K;
  std::string Stem;
};

class ExtractHandler : public TUHandler {
public:
  explicit ExtractHandler(std::string Selector)
      : Selector(std::move(Selector)) {}
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI,
                             StringRef MainFile) override {
    ++Parsed;
    for (ExtractedKernel &K :
         extractKernels(Ctx, CI.getPreprocessor(), Selector))
      add(std::move(K));
  }

  /// A kernel seen again from another translation unit (a .cuh included by
  /// several .cu files): same text -> one file with every name expression;
  /// new instantiations with a different context -> another file.
  void add(ExtractedKernel K) {
    auto &Same = ByKey[K.key()];
    for (size_t Idx : Same) {
      ExtractedKernel &E = All[Idx].K;
      bool NewExprs = false;
      for (const auto &N : K.NameExprs)
        if (!llvm::is_contained(E.NameExprs, N))
          NewExprs = true;
      if (E.Source == K.Source || !NewExprs) {
        for (const auto &N : K.NameExprs)
          if (!llvm::is_contained(E.NameExprs, N))
            E.NameExprs.push_back(N);
        return;
      }
    }
    Same.push_back(All.size());
    Extracted X;
    X.K = std::move(K);
    All.push_back(std::move(X));
  }

  std::string Selector;
  unsigned Parsed = 0;
  std::vector<Extracted> All;
  std::map<std::string, std::vector<size_t>> ByKey;
};

/// Writes \p Text to \p Path through a temporary file in the same folder.
bool writeFileAtomically(StringRef Path, StringRef Text, std::string &Err) {
  SmallString<256> Tmp;
  int FD;
  SmallString<256> Model(Path);
  Model += ".tmp-%%%%%%";
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Tmp)) {
    Err = Path.str() + ": cannot write: " + EC.message();
    return false;
  }
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      Err = Path.str() + ": write failed: " + OS.error().message();
      OS.clear_error();
      sys::fs::remove(Tmp);
      return false;
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Path)) {
    Err = Path.str() + ": cannot write: " + EC.message();
    sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

} // namespace

int runExtract(DriverContext &DC) {
  if (OutputDir.empty()) {
    reportError("--extract writes files: give the output folder with -o <dir> "
                "(the input files are never modified)");
    return 2;
  }
  if (ExtractSelector.empty()) {
    reportError("--extract needs a kernel name or 'all'");
    return 2;
  }
  if (VerifyMode == VerifyLevel::Run) {
    reportError("--extract checks with --verify=compile (NVRTC); running "
                "needs a candidate: use --verify=run --kernel=<name> "
                "--candidate=<file>");
    return 2;
  }
  if (Format == OutputFormat::Sarif) {
    reportError("--format=sarif is for findings; --extract writes text or "
                "json");
    return 2;
  }
  ExtractHandler Handler(ExtractSelector);
  FrontendStatus St = DC.FE.run(DC.Files, Handler, Jobs);
  int Exit = St.Failed ? 2 : DC.Exit;

  if (Handler.All.empty()) {
    if (St.Parsed > 0) {
      if (ExtractSelector == "all")
        reportError("no kernel (__global__ function) defined in the given "
                    "files");
      else
        reportError("no kernel named '" + ExtractSelector +
                    "' is defined in the given files");
    }
    return 2;
  }

  if (std::error_code EC = sys::fs::create_directories(OutputDir)) {
    reportError(OutputDir +
                ": cannot create the output folder: " + EC.message());
    return 2;
  }

  // File names: the qualified name, made unique.
  std::set<std::string> Used;
  for (Extracted &X : Handler.All) {
    std::string Stem = kernelFileStem(X.K.Kernel);
    std::string S = Stem;
    for (unsigned N = 2; Used.count(S); ++N)
      S = Stem + "." + std::to_string(N);
    Used.insert(S);
    X.Stem = S;
  }

  NvrtcOptions NO;
  NO.CudaPath = DC.Config.Parse.CudaPath;
  NO.GpuArch =
      DC.Config.Parse.GpuArch.empty() ? "sm_90" : DC.Config.Parse.GpuArch;
  unsigned Written = 0, Failed = 0, Compiled = 0, CompileFailed = 0;
  json::Array Summary;
  for (Extracted &X : Handler.All) {
    ExtractedKernel &K = X.K;
    if (!K.Problems.empty()) {
      ++Failed;
      reportError(K.KernelRange.Begin.str() + ": kernel '" + K.Kernel +
                  "' cannot be extracted:");
      for (const auto &P : K.Problems)
        reportNote(P);
      Exit = 2;
      if (Format == OutputFormat::Json)
        Summary.push_back(json::Object{
            {"kernel", K.Kernel},
            {"definition", K.KernelRange.Begin.str()},
            {"problems", json::Array(std::vector<json::Value>(
                             K.Problems.begin(), K.Problems.end()))}});
      continue;
    }
    SmallString<256> Cu(OutputDir), Js(OutputDir);
    sys::path::append(Cu, X.Stem + ".cu");
    sys::path::append(Js, X.Stem + ".json");
    json::Value M = extractManifest(K, sys::path::filename(Cu));
    std::string Err;
    std::string JsonText = formatv("{0:2}", M).str() + "\n";
    if (!writeFileAtomically(Cu, K.Source, Err) ||
        !writeFileAtomically(Js, JsonText, Err)) {
      reportError(Err);
      Exit = 2;
      continue;
    }
    ++Written;
    std::string Status;
    if (VerifyMode == VerifyLevel::Compile) {
      NvrtcResult R = compileWithNvrtc(K.Source, Cu, K.NameExprs, NO);
      if (R.Ok) {
        ++Compiled;
        Status = "compiles";
      } else {
        ++CompileFailed;
        Status = "does not compile";
        reportError(R.Error);
        Exit = 2;
      }
    }
    if (Format == OutputFormat::Json) {
      json::Object O{
          {"kernel", K.Kernel},
          {"source", std::string(Cu)},
          {"manifest", std::string(Js)},
          {"name_expressions", json::Array(std::vector<json::Value>(
                                   K.NameExprs.begin(), K.NameExprs.end()))}};
      if (!Status.empty())
        O["nvrtc"] = Status == "compiles" ? "ok" : "failed";
      Summary.push_back(std::move(O));
    } else if (!Quiet) {
      outs() << K.Kernel << " -> " << Cu << " (" << K.Pieces.size()
             << " pieces";
      if (K.NameExprs.size() > 1)
        outs() << ", " << K.NameExprs.size() << " instantiations";
      if (!Status.empty())
        outs() << ", " << Status << " with NVRTC";
      outs() << ")\n";
    }
  }
  if (Format == OutputFormat::Json) {
    outs() << formatv("{0:2}", json::Value(std::move(Summary))) << "\n";
  } else if (!Quiet) {
    outs() << "extracted " << Written << " of " << Handler.All.size()
           << " kernel" << (Handler.All.size() == 1 ? "" : "s") << " to "
           << OutputDir;
    if (VerifyMode == VerifyLevel::Compile)
      outs() << "; NVRTC (" << NO.GpuArch << "): " << Compiled << " compiled, "
             << CompileFailed << " failed";
    outs() << "\n";
  }
  (void)Failed;
  return Exit;
}

} // namespace cudal1
