//===- CaptureFormat.h - names shared by capture writer and readers -*- C++ -*-===//
//
// Plain C++ (no LLVM, no CUDA): included by the injection library and the
// launcher of cuda-l1-capture (which must build where no LLVM is installed),
// by the standalone replay checker, and by lib/Capture (the reader the
// verifier uses). The format itself is described in docs/capture.md.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_CAPTURE_CAPTUREFORMAT_H
#define CUDAL1_CAPTURE_CAPTUREFORMAT_H

#include <string>

namespace cudal1 {

/// "format" of manifest.json.
constexpr const char *CaptureFormatName = "cuda-l1-capture";
/// "version" of manifest.json; readers refuse any other.
constexpr int CaptureFormatVersion = 1;
constexpr const char *CaptureManifestFile = "manifest.json";

/// Environment variables through which the launcher configures the
/// injection library (documented in docs/capture.md).
constexpr const char *CaptureEnvDir = "CUDAL1_CAPTURE_DIR";
constexpr const char *CaptureEnvKernel = "CUDAL1_CAPTURE_KERNEL";
constexpr const char *CaptureEnvLaunches = "CUDAL1_CAPTURE_LAUNCHES";
constexpr const char *CaptureEnvSkip = "CUDAL1_CAPTURE_SKIP";
constexpr const char *CaptureEnvMaxBytes = "CUDAL1_CAPTURE_MAX_BYTES";
constexpr const char *CaptureEnvModel = "CUDAL1_CAPTURE_MODEL";
constexpr const char *CaptureEnvTool = "CUDAL1_CAPTURE_TOOL";
/// Set by the launcher to "1": the library found CUDA_INJECTION64_PATH set
/// by cuda-l1-capture (not by hand).
constexpr const char *CaptureEnvLauncher = "CUDAL1_CAPTURE_LAUNCHER";

/// The kernel name used to compare a captured launch with a kernel of the
/// model or of a module compiled elsewhere (NVRTC, nvcc -cubin). Mangled
/// names are compared as they are, except for anonymous namespaces: EDG
/// (nvcc, NVRTC) names them `_GLOBAL__N__<hash>_<n>_<file>_<hash>`, with a
/// hash that differs per compilation, and Clang `_GLOBAL__N_1`; every such
/// component becomes Clang's `12_GLOBAL__N_1`. And for internal linkage:
/// Clang mangles `static __global__ void k(float*)` as `_ZL1kPf`, nvcc's
/// module as `_Z1kPf`; the `L` is dropped.
std::string normalizeKernelName(const std::string &Mangled);

/// True when \p Path is a relative path that stays inside the directory it
/// is relative to (no leading '/', no ".." component, not empty). Manifest
/// paths must be such paths: a reader never opens anything outside the
/// capture directory.
bool isContainedRelativePath(const std::string &Path);

} // namespace cudal1

#endif
