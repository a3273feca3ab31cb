//===- CompiledKernel.h - a kernel compiled by NVRTC, for rules -*- C++ -*-===//
//
// Some rules can only tell whether their fix matters by compiling the
// kernel: launch-bounds reads its register count, unrolling-constant-trip
// compares the machine code with and without the pragma. Both extract the
// kernel with its context (as --extract does), compile it with NVRTC for
// the --cuda-gpu-arch target and read the CUBIN. NVRTC needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_COMPILEDKERNEL_H
#define CUDAL1_RULES_COMPILEDKERNEL_H

#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Model/Rewrite.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace cudal1 {

struct CheckContext;
struct KernelAnalysis;

/// What NVRTC made of an extracted kernel.
struct CompiledKernel {
  /// Non-empty when it was not compiled or its CUBIN not read: why.
  std::string WhyNot;
  /// Mangled name -> the bytes of its `.text.<name>` section (kernels and
  /// device functions that were not inlined).
  std::map<std::string, std::string> Code;
  /// Mangled name -> registers per thread ("Used N registers").
  std::map<std::string, unsigned> Registers;
  /// Name expression -> mangled name, as NVRTC lowered them.
  std::vector<std::pair<std::string, std::string>> LoweredNames;
};

/// The `-maxrregcount` of the file's nvcc compile command (0 when none).
unsigned nvccMaxRegCount(const CheckContext &CC);

/// NVRTC's options for the rules of \p CC: the cuda-l1 CudaPath and
/// GpuArch options (default sm_90) and the -maxrregcount of the file's nvcc
/// compile command.
NvrtcOptions rulesNvrtcOptions(const CheckContext &CC);

/// The extraction of kernel \p FD (a template's pattern or a plain
/// kernel), or std::nullopt with the reason in \p Why: NVRTC missing, the
/// kernel not extractable, or no instantiation to name.
std::optional<ExtractedKernel> extractForCompile(clang::ASTContext &C,
                                                 const CheckContext &CC,
                                                 const clang::FunctionDecl *FD,
                                                 std::string &Why);

/// Compiles \p Source (an extraction of \p K, edited or not) and reads its
/// CUBIN. Results are kept per source, names and options (the language
/// server analyses the same file often).
CompiledKernel compileExtracted(const ExtractedKernel &K,
                                const std::string &Source,
                                const NvrtcOptions &NO);

/// Whether \p Edits change the machine code NVRTC makes of the kernel
/// that holds function \p FD: \p Kernel (FD itself, or a kernel that calls
/// it). The kernel is extracted with its context, FD's text found there
/// (it is copied verbatim), the edits that fall inside FD's definition
/// applied to it, and both versions compiled; their code sections and
/// register counts are compared. Edits elsewhere (other declarations) are
/// left out: they do not change FD's code. std::nullopt when this cannot
/// be told: NVRTC missing, the kernel not extractable or compilable, FD's
/// text not found once, an edit inside a macro expansion or none inside FD.
std::optional<bool> editsChangeCode(clang::ASTContext &C,
                                    const CheckContext &CC,
                                    const clang::FunctionDecl *Kernel,
                                    const clang::FunctionDecl *FD,
                                    llvm::ArrayRef<TextEdit> Edits);

/// The bytes of machine code (every code section) NVRTC makes of the
/// kernel holding \p FD (as editsChangeCode) with each edit set of
/// \p Variants applied in turn; each set needs an edit inside FD.
/// std::nullopt when one of them cannot be compiled or told.
std::optional<std::vector<size_t>>
codeBytesWithEdits(clang::ASTContext &C, const CheckContext &CC,
                   const clang::FunctionDecl *Kernel,
                   const clang::FunctionDecl *FD,
                   llvm::ArrayRef<std::vector<TextEdit>> Variants);

/// The kernel whose extraction holds \p FD: FD itself when it is a kernel,
/// else the kernel of one of \p Kernels (a rule's analyzedKernels()) whose
/// body calls FD, directly or through up to three more calls (nullptr when
/// none does).
const clang::FunctionDecl *
kernelHolding(llvm::ArrayRef<const KernelAnalysis *> Kernels,
              const clang::FunctionDecl *FD);

/// \p FD itself when it is a template pattern or plain function, else the
/// pattern it was instantiated from.
const clang::FunctionDecl *patternOf(const clang::FunctionDecl *FD);

} // namespace cudal1

#endif
