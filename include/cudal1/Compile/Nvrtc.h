//===- Nvrtc.h - compile CUDA sources to CUBIN with NVRTC ------*- C++ -*-===//
//
// NVRTC is loaded at run time (dlopen), so the tool starts where the CUDA
// toolkit is missing; compileWithNvrtc then fails with a clear message.
// NVRTC needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_COMPILE_NVRTC_H
#define CUDAL1_COMPILE_NVRTC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <utility>
#include <vector>

namespace cudal1 {

struct NvrtcOptions {
  /// CUDA toolkit root: libnvrtc is looked for in <CudaPath>/lib64 first, and
  /// <CudaPath>/include (+ include/cccl) is put on the include path.
  std::string CudaPath;
  std::string GpuArch = "sm_90";         ///< -arch=<GpuArch>, CUBIN for it
  std::vector<std::string> ExtraOptions; ///< appended after the defaults
  std::vector<std::string> IncludeDirs;  ///< -I<dir> each
  /// -default-device: unannotated functions and namespace-scope constants are
  /// device entities (what extracted kernels with their context need). Off for
  /// sources written as complete CUDA files.
  bool DefaultDevice = true;
  /// Compile in this process instead of a short-lived child (see
  /// nvrtcCompileInThisProcess).
  bool InProcess = false;
};

struct NvrtcResult {
  bool Ok = false;
  std::string Log;   ///< NVRTC's program log (warnings too)
  std::string Error; ///< "" when Ok; else "<file>: <problem>" (+ the log)
  std::vector<char> Cubin;
  /// Name expression -> mangled (lowered) name, in the order given.
  std::vector<std::pair<std::string, std::string>> LoweredNames;
};

/// Compiles \p Source (named \p FileName in messages) to CUBIN. Every name
/// expression is registered with nvrtcAddNameExpression (which also
/// instantiates templates) and its lowered name returned.
/// Default options: -arch=<GpuArch> -std=c++17 [-default-device]
/// -I<cuda>/include -I<cuda>/include/cccl. The one NVRTC loader of the tool
/// (dlopen, bound from NvrtcFunctions.def): safe to call from several threads
/// and from the verifier's child process. Runs in a child process unless
/// nvrtcCompileInThisProcess(true) or Opts.InProcess (see above).
NvrtcResult compileWithNvrtc(llvm::StringRef Source, llvm::StringRef FileName,
                             llvm::ArrayRef<std::string> NameExpressions,
                             const NvrtcOptions &Opts);

/// NVRTC initialises the CUDA driver while it compiles, and a process that
/// has done so cannot use the GPU from children it forks later (the
/// verifier's way of running GPU jobs). compileWithNvrtc therefore compiles
/// in a short-lived child process by default; a process that uses the GPU
/// itself (the verifier's job child) calls this with true once, and then
/// compiles in place.
void nvrtcCompileInThisProcess(bool InProcess);

/// The options compileWithNvrtc passes (for logs and reproducibility).
std::vector<std::string> nvrtcCommandOptions(const NvrtcOptions &Opts);

/// True when libnvrtc can be loaded; \p Where receives its path or, on
/// failure, why not.
bool nvrtcAvailable(llvm::StringRef CudaPath, std::string *Where = nullptr);

/// "13.0" (empty when NVRTC cannot be loaded).
std::string nvrtcVersion(llvm::StringRef CudaPath);

} // namespace cudal1

#endif
