//===- CudaApi.h - CUDA driver, CUPTI, NVML through dlopen -*- C++ -*-===//
//
// Internal to lib/Verify. Only headers of the CUDA toolkit are used (for the
// types); every function is looked up at run time, so nothing links against
// libcuda, libnvrtc or libcupti, and the tool starts where they are absent.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_VERIFY_CUDAAPI_H
#define CUDAL1_LIB_VERIFY_CUDAAPI_H

#include <cuda.h>
#include <cupti.h>

#include <string>
#include <vector>

namespace cudal1 {

struct DriverApi {
  void *Lib = nullptr;
#define CUDAL1_DRV(Field, Sym) decltype(&::Sym) Field = nullptr;
#include "DriverFunctions.def"
  /// dlopen("libcuda.so.1") and look up every function; false with a
  /// message when missing.
  bool load(std::string &Error);
  std::string errorText(CUresult R) const;
};

struct CuptiApi {
  void *Lib = nullptr;
  std::string Path;
  decltype(&::cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&::cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&::cuptiGetResultString) GetResultString = nullptr;
  bool load(const std::string &CudaPath, std::string &Error);
};

/// NVML, for the current clocks and the driver's version string (optional).
struct NvmlApi {
  void *Lib = nullptr;
  int (*Init)() = nullptr;
  int (*DeviceGetHandleByIndex)(unsigned, void **) = nullptr;
  int (*DeviceGetClockInfo)(void *, int, unsigned *) = nullptr;
  int (*SystemGetDriverVersion)(char *, unsigned) = nullptr;
  bool load();
  /// Current SM and memory clocks of device \p Index (0 when unknown).
  void clocks(unsigned Index, int &SmMHz, int &MemMHz);
};

/// Candidate paths for a CUDA library under \p CudaPath, then the plain
/// soname (the loader's own search).
std::vector<std::string> cudaLibraryCandidates(const std::string &CudaPath,
                                               const std::string &Stem,
                                               const std::string &Major);

} // namespace cudal1

#endif
