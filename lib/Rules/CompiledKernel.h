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

#include <map>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace cudal1 {

struct CheckContext;

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

} // namespace cudal1

#endif
