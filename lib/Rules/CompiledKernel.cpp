//===- CompiledKernel.cpp - a kernel compiled by NVRTC, for rules ---------===//
#include "CompiledKernel.h"
#include "CallTree.h"

#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/Rule.h"
#include "cudal1/Capture/CubinSymbols.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"

#include <mutex>

using namespace clang;
using namespace llvm;

namespace cudal1 {

/// The compile-command translation keeps nvcc's -maxrregcount as
/// __CUDA_L1_MAXRREGCOUNT__.
unsigned nvccMaxRegCount(const CheckContext &CC) {
  if (!CC.CI)
    return 0;
  Preprocessor &PP = CC.CI->getPreprocessor();
  const IdentifierInfo *II = PP.getIdentifierInfo("__CUDA_L1_MAXRREGCOUNT__");
  const MacroInfo *MI = II ? PP.getMacroInfo(II) : nullptr;
  if (!MI || MI->getNumTokens() != 1 ||
      !MI->getReplacementToken(0).is(tok::numeric_constant))
    return 0;
  const Token &T = MI->getReplacementToken(0);
  unsigned N;
  if (StringRef(T.getLiteralData(), T.getLength()).getAsInteger(10, N))
    return 0;
  return N;
}

NvrtcOptions rulesNvrtcOptions(const CheckContext &CC) {
  NvrtcOptions NO;
  NO.CudaPath = CC.Options ? CC.Options->get("cuda-l1", "CudaPath", "") : "";
  NO.GpuArch =
      CC.Options ? CC.Options->get("cuda-l1", "GpuArch", "sm_90") : "sm_90";
  if (unsigned M = nvccMaxRegCount(CC))
    NO.ExtraOptions.push_back("--maxrregcount=" + std::to_string(M));
  return NO;
}

std::optional<ExtractedKernel> extractForCompile(ASTContext &C,
                                                 const CheckContext &CC,
                                                 const FunctionDecl *FD,
                                                 std::string &Why) {
  std::string Where;
  if (!nvrtcAvailable(rulesNvrtcOptions(CC).CudaPath, &Where)) {
    Why = "NVRTC is not available (" + Where + ")";
    return std::nullopt;
  }
  if (!CC.CI || !FD) {
    Why = "the kernel could not be extracted";
    return std::nullopt;
  }
  // The extraction of this definition: selected by its simple name (an
  // anonymous namespace's kernel too), told apart by where it begins (a
  // template's header included).
  const SourceManager &SM = C.getSourceManager();
  SourceLocation Begin = FD->getBeginLoc();
  if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate())
    Begin = FT->getBeginLoc();
  SourceLoc At = makeSourceLoc(SM, Begin);
  std::vector<ExtractedKernel> All =
      extractKernels(C, CC.CI->getPreprocessor(), FD->getName());
  for (ExtractedKernel &E : All)
    if (E.KernelRange.Begin.File == At.File &&
        E.KernelRange.Begin.Line == At.Line) {
      if (!E.Problems.empty()) {
        Why = "the kernel could not be extracted with its context: " +
              E.Problems.front();
        return std::nullopt;
      }
      if (E.NameExprs.empty()) {
        Why = "the kernel could not be extracted with its context";
        return std::nullopt;
      }
      return std::move(E);
    }
  Why = "the kernel could not be extracted with its context";
  return std::nullopt;
}

CompiledKernel compileExtracted(const ExtractedKernel &K,
                                const std::string &Source,
                                const NvrtcOptions &NO) {
  static std::mutex Mu;
  static std::map<std::string, CompiledKernel> Cache;
  std::string Key = NO.CudaPath + "\n" + NO.GpuArch + "\n" +
                    join(NO.ExtraOptions, " ") + "\n" +
                    join(K.NameExprs, "\n") + "\n" + Source;
  {
    std::lock_guard<std::mutex> L(Mu);
    auto It = Cache.find(Key);
    if (It != Cache.end())
      return It->second;
  }
  CompiledKernel Out;
  NvrtcResult R = compileWithNvrtc(Source, kernelFileStem(K.Kernel) + ".cu",
                                   K.NameExprs, NO);
  capture::CubinSymbols S;
  std::string Err;
  if (!R.Ok) {
    Out.WhyNot = "NVRTC could not compile the extracted kernel";
  } else if (!capture::readCubinSymbols(R.Cubin.data(), R.Cubin.size(), S,
                                        Err)) {
    Out.WhyNot = "its CUBIN could not be read (" + Err + ")";
  } else {
    Out.Code = std::move(S.Code);
    Out.Registers = std::move(S.Registers);
    Out.LoweredNames = R.LoweredNames;
  }
  std::lock_guard<std::mutex> L(Mu);
  // Each key holds a whole source: a language server that runs for days
  // would otherwise keep every version of every file it compiled.
  if (Cache.size() >= 256)
    Cache.clear();
  Cache[Key] = Out;
  return Out;
}

const FunctionDecl *patternOf(const FunctionDecl *FD) {
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    return P;
  return FD;
}

const FunctionDecl *
kernelHolding(ArrayRef<const KernelAnalysis *> Kernels,
              const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  FD = patternOf(FD);
  if (FD->hasAttr<CUDAGlobalAttr>())
    return FD;
  for (const KernelAnalysis *K : Kernels)
    if (K->Kernel && K->Kernel->hasBody() &&
        anyCalledDefinition(K->Kernel->getBody(), 4,
                            [&](const FunctionDecl *Def) {
                              return patternOf(Def) == FD;
                            }))
      return K->Kernel;
  return nullptr;
}

/// The extraction of the kernel holding \p FD and, for each edit set of
/// \p Variants, that extraction with the set's edits inside FD's text
/// applied (see editsChangeCode). std::nullopt when that cannot be done.
static std::optional<std::pair<ExtractedKernel, std::vector<std::string>>>
editedExtractions(ASTContext &C, const CheckContext &CC,
                  const FunctionDecl *Kernel, const FunctionDecl *FD,
                  ArrayRef<std::vector<TextEdit>> Variants) {
  if (!Kernel || !FD)
    return std::nullopt;
  const SourceManager &SM = C.getSourceManager();
  FD = patternOf(FD);
  // FD's text in its file: from its template header to its closing brace.
  SourceLocation FB = FD->getBeginLoc();
  if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate())
    FB = FT->getBeginLoc();
  FB = SM.getExpansionLoc(FB);
  SourceLocation FE = SM.getExpansionRange(FD->getEndLoc()).getEnd();
  FileID F = SM.getFileID(FB);
  if (F.isInvalid() || SM.getFileID(FE) != F)
    return std::nullopt;
  std::string Path = makeSourceLoc(SM, FB).File;
  unsigned B = SM.getFileOffset(FB), E = SM.getFileOffset(FE) + 1;
  StringRef Buf = SM.getBufferData(F);
  if (E > Buf.size() || B >= E)
    return std::nullopt;
  std::string Text = Buf.slice(B, E).str();
  std::string Why;
  std::optional<ExtractedKernel> K =
      extractForCompile(C, CC, patternOf(Kernel), Why);
  if (!K)
    return std::nullopt;
  size_t At = K->Source.find(Text);
  if (At == std::string::npos ||
      K->Source.find(Text, At + 1) != std::string::npos)
    return std::nullopt;
  std::vector<std::string> Out;
  for (const std::vector<TextEdit> &Edits : Variants) {
    // The edits inside it, last first so that offsets stay valid.
    std::vector<TextEdit> Inside;
    for (const TextEdit &X : Edits) {
      if (X.File == Path && X.Offset >= B && X.Offset + X.Length <= E)
        Inside.push_back(X);
    }
    if (Inside.empty())
      return std::nullopt;
    std::sort(Inside.begin(), Inside.end(),
              [](const TextEdit &L, const TextEdit &R) {
                return L.Offset > R.Offset;
              });
    std::string Edited = K->Source;
    unsigned Prev = E;
    for (const TextEdit &X : Inside) {
      if (X.Offset + X.Length > Prev) // overlapping edits: not one fix
        return std::nullopt;
      Edited.replace(At + (X.Offset - B), X.Length, X.Replacement);
      Prev = X.Offset;
    }
    Out.push_back(std::move(Edited));
  }
  return std::make_pair(std::move(*K), std::move(Out));
}

std::optional<bool> editsChangeCode(ASTContext &C, const CheckContext &CC,
                                    const FunctionDecl *Kernel,
                                    const FunctionDecl *FD,
                                    ArrayRef<TextEdit> Edits) {
  std::vector<TextEdit> One(Edits.begin(), Edits.end());
  auto KE = editedExtractions(C, CC, Kernel, FD, {One});
  if (!KE)
    return std::nullopt;
  const ExtractedKernel &K = KE->first;
  NvrtcOptions NO = rulesNvrtcOptions(CC);
  CompiledKernel Before = compileExtracted(K, K.Source, NO);
  if (!Before.WhyNot.empty() || Before.Code.empty())
    return std::nullopt;
  CompiledKernel After = compileExtracted(K, KE->second.front(), NO);
  if (!After.WhyNot.empty())
    return std::nullopt;
  return Before.Code != After.Code || Before.Registers != After.Registers;
}

std::optional<std::vector<size_t>>
codeBytesWithEdits(ASTContext &C, const CheckContext &CC,
                   const FunctionDecl *Kernel, const FunctionDecl *FD,
                   ArrayRef<std::vector<TextEdit>> Variants) {
  auto KE = editedExtractions(C, CC, Kernel, FD, Variants);
  if (!KE)
    return std::nullopt;
  NvrtcOptions NO = rulesNvrtcOptions(CC);
  std::vector<size_t> Bytes;
  for (const std::string &Source : KE->second) {
    CompiledKernel R = compileExtracted(KE->first, Source, NO);
    if (!R.WhyNot.empty() || R.Code.empty())
      return std::nullopt;
    size_t N = 0;
    for (const auto &[Name, Code] : R.Code)
      N += Code.size();
    Bytes.push_back(N);
  }
  return Bytes;
}

} // namespace cudal1
