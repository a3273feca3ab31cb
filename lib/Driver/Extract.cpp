//===- Extract.cpp - --extract=<kernel|all> -o <dir> ----------------------===//
#include "cudal1/Support/SafeWrite.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Driver/Pipeline.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace cudal1 {

namespace {

class ExtractHandler : public TUHandler {
public:
  explicit ExtractHandler(std::string Selector)
      : Selector(std::move(Selector)) {}
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI, StringRef) override {
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
      ExtractedKernel &E = All[Idx];
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
    All.push_back(std::move(K));
  }

  std::string Selector;
  std::vector<ExtractedKernel> All;
  std::map<std::string, std::vector<size_t>> ByKey;
};

/// Writes \p Text to \p Path (lib/Support/SafeWrite).
bool writeFile(StringRef Path, StringRef Text) {
  SafeWriteResult R = writeFileSafely(Path, Text);
  if (!R.Ok)
    reportError(Path.str() + ": " + R.Error);
  return R.Ok;
}

/// File stems: the qualified name, made unique.
std::vector<std::string> uniqueStems(const std::vector<ExtractedKernel> &Ks) {
  std::set<std::string> Used;
  std::vector<std::string> Out;
  for (const ExtractedKernel &K : Ks) {
    std::string Stem = kernelFileStem(K.Kernel), S = Stem;
    for (unsigned N = 2; Used.count(S); ++N)
      S = Stem + "." + std::to_string(N);
    Used.insert(S);
    Out.push_back(S);
  }
  return Out;
}

} // namespace

ExtractResult Pipeline::extract(const std::string &Selector) {
  ExtractResult R;
  ExtractHandler Handler(Selector);
  FrontendStatus St = FE->run(Opts.Files, Handler, Opts.Jobs);
  R.Exit = St.Failed ? 2 : 0;
  if (Handler.All.empty()) {
    if (St.Parsed > 0)
      reportError(Selector == "all"
                      ? "no kernel (__global__ function) defined in the "
                        "given files"
                      : "no kernel named '" + Selector +
                            "' is defined in the given files");
    R.Exit = 2;
    return R;
  }
  if (std::error_code EC = sys::fs::create_directories(Opts.OutputDir)) {
    reportError(Opts.OutputDir +
                ": cannot create the output folder: " + EC.message());
    R.Exit = 2;
    return R;
  }
  std::vector<std::string> Stems = uniqueStems(Handler.All);
  NvrtcOptions NO;
  NO.CudaPath = Opts.CudaPath;
  NO.GpuArch = Opts.GpuArch.empty() ? "sm_90" : Opts.GpuArch;
  for (size_t I = 0; I < Handler.All.size(); ++I) {
    const ExtractedKernel &K = Handler.All[I];
    ExtractResult::Item It;
    It.Kernel = K.Kernel;
    It.Definition = K.KernelRange.Begin;
    It.Problems = K.Problems;
    It.NameExprs = K.NameExprs;
    It.Pieces = K.Pieces.size();
    if (!K.Problems.empty()) {
      reportError(K.KernelRange.Begin.str() + ": kernel '" + K.Kernel +
                  "' cannot be extracted:");
      for (const auto &P : K.Problems)
        reportNote(P);
      R.Exit = 2;
      R.Items.push_back(std::move(It));
      continue;
    }
    SmallString<256> Cu(Opts.OutputDir), Js(Opts.OutputDir);
    sys::path::append(Cu, Stems[I] + ".cu");
    sys::path::append(Js, Stems[I] + ".json");
    json::Value M = extractManifest(K, sys::path::filename(Cu));
    if (!writeFile(Cu, K.Source) ||
        !writeFile(Js, formatv("{0:2}", M).str() + "\n")) {
      R.Exit = 2;
      continue;
    }
    ++R.Written;
    It.SourcePath = std::string(Cu);
    It.ManifestPath = std::string(Js);
    if (Opts.Verify == VerifyLevel::Compile) {
      NvrtcResult C = compileWithNvrtc(K.Source, Cu, K.NameExprs, NO);
      It.Compiles = C.Ok;
      ++(C.Ok ? R.Compiled : R.CompileFailed);
      if (!C.Ok) {
        reportError(C.Error);
        R.Exit = 2;
      }
    }
    R.Items.push_back(std::move(It));
  }
  return R;
}

} // namespace cudal1
