//===- Extract.h - a kernel with the context it needs, as one source -*- C++
//-*-===//
//
// Cuts a kernel out of its translation unit together with exactly what it
// needs to compile on its own under NVRTC: the device functions it calls
// (transitively) and the templates and instantiations it uses, the types,
// the __constant__/__device__/__shared__ globals, the const/constexpr host
// values used in device code, the macros used inside the copied text (with
// their definitions), the namespaces around all of it, and the #includes of
// the CUDA headers NVRTC can provide. The closure is computed on the AST;
// nothing host-only is copied. See docs/extract.md.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_EXTRACT_EXTRACT_H
#define CUDAL1_EXTRACT_EXTRACT_H

#include "cudal1/Model/KernelInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Preprocessor;
} // namespace clang

namespace cudal1 {

/// One piece of the extracted source and where it came from.
struct CopiedPiece {
  /// "kernel ns::k", "device function ns::f", "struct ns::Vec", "macro IDX",
  /// "constant memory ns::table", "include <cuda_fp16.h>", ...
  std::string What;
  SourceLoc Begin,
      End; ///< End = last character copied (File empty: synthesized)
};

struct ExtractedKernel {
  std::string Kernel;   ///< qualified name
  std::string NameExpr; ///< NVRTC name expression (first instantiation)
  std::vector<std::string> NameExprs;    ///< all instantiations used
  std::string Source;                    ///< self-contained .cu text
  size_t KernelBegin = 0, KernelEnd = 0; ///< kernel definition inside Source
  std::vector<ParamInfo> Params; ///< layout (first instantiation for templates)
  std::vector<CopiedPiece> Pieces;
  /// Non-empty = could not be extracted; each says what and where
  /// ("<file>:<line>:<col>: <problem>").
  std::vector<std::string> Problems;

  // Beyond the base API.
  SourceRangeInfo KernelRange;       ///< the kernel definition in the original
  std::string TranslationUnit;       ///< main file it was extracted from
  std::vector<std::string> Includes; ///< "<cuda_fp16.h>", ...
  std::vector<std::string> Notes;    ///< facts worth knowing (not errors)
  bool IsTemplate = false;
  /// Identity across translation units (same as KernelInfo::key()).
  std::string key() const { return Kernel + "@" + KernelRange.Begin.str(); }
};

struct ExtractOptions {
  /// The preprocessor of the parse: needed to find the macros used in the
  /// copied text (CompilerInstance::getPreprocessor(), which a TUHandler
  /// gets). Without it, macros are read back from the expansions recorded
  /// in the SourceManager, which misses macros that expand to nothing and
  /// those only used in #if (ExtractedKernel::Notes says so): pass it.
  const clang::Preprocessor *PP = nullptr;
  /// Write "// cuda-l1: from <file>:<line>" above each copied piece.
  bool OriginComments = true;
};

/// Extracts the kernels of \p Ctx selected by \p KernelSelector: "all", a
/// simple name ("saxpy") or a qualified one ("ns::saxpy"). Kernels in system
/// headers are never selected. A selector that matches nothing gives an
/// empty vector.
std::vector<ExtractedKernel> extractKernels(clang::ASTContext &Ctx,
                                            llvm::StringRef KernelSelector,
                                            const ExtractOptions &Opts = {});
std::vector<ExtractedKernel> extractKernels(clang::ASTContext &Ctx,
                                            clang::Preprocessor &PP,
                                            llvm::StringRef KernelSelector);

/// \p K's source with the kernel definition replaced by
/// \p NewKernelDefinition (a complete definition, template header included).
std::string replaceKernel(const ExtractedKernel &K,
                          llvm::StringRef NewKernelDefinition);

/// The JSON manifest written beside an extracted source (docs/extract.md):
/// kernel, name expressions, parameter layout, pieces with their origin.
llvm::json::Value extractManifest(const ExtractedKernel &K,
                                  llvm::StringRef SourceFileName);

/// A file-name-safe stem for a kernel name: "ns::k" -> "ns__k".
std::string kernelFileStem(llvm::StringRef QualifiedName);

} // namespace cudal1

#endif
