//===- CudaApi.cpp - dlopen the CUDA libraries ----------------------------===//
#include "CudaApi.h"

#include <dlfcn.h>
#include <sys/stat.h>

namespace cudal1 {

template <typename T>
static bool sym(void *Lib, const char *Name, T &Out, std::string &Missing) {
  Out = reinterpret_cast<T>(dlsym(Lib, Name));
  if (!Out) {
    Missing += (Missing.empty() ? "" : ", ") + std::string(Name);
    return false;
  }
  return true;
}

static bool exists(const std::string &P) {
  struct stat St;
  return ::stat(P.c_str(), &St) == 0;
}

std::vector<std::string> cudaLibraryCandidates(const std::string &CudaPath,
                                               const std::string &Stem,
                                               const std::string &Major) {
  std::vector<std::string> Out;
  for (const char *Dir : {"/lib64/", "/extras/CUPTI/lib64/",
                          "/targets/x86_64-linux/lib/", "/lib/"}) {
    for (std::string Name : {Stem + ".so." + Major, Stem + ".so"}) {
      std::string P = CudaPath + Dir + Name;
      if (!CudaPath.empty() && exists(P))
        Out.push_back(P);
    }
  }
  Out.push_back(Stem + ".so." + Major);
  Out.push_back(Stem + ".so");
  return Out;
}

static void *openFirst(const std::vector<std::string> &Paths,
                       std::string &Used, std::string &Error) {
  for (const auto &P : Paths) {
    if (void *L = dlopen(P.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      Used = P;
      return L;
    }
    const char *E = dlerror();
    if (Error.empty() && E)
      Error = E;
  }
  return nullptr;
}

bool DriverApi::load(std::string &Error) {
  Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char *E = dlerror();
    Error = std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
            (E ? E : "not found") + ")";
    return false;
  }
  std::string Missing;
#define CUDAL1_DRV(Field, Sym) sym(Lib, #Sym, Field, Missing);
#include "DriverFunctions.def"
  if (!Missing.empty()) {
    Error = "CUDA driver too old: libcuda.so.1 lacks " + Missing;
    return false;
  }
  return true;
}

std::string DriverApi::errorText(CUresult R) const {
  const char *N = nullptr, *S = nullptr;
  if (GetErrorName)
    GetErrorName(R, &N);
  if (GetErrorString)
    GetErrorString(R, &S);
  return std::string(N ? N : "CUDA error " + std::to_string(int(R))) +
         (S ? std::string(" (") + S + ")" : "");
}

bool CuptiApi::load(const std::string &CudaPath, std::string &Error) {
  std::string E;
  Lib = openFirst(cudaLibraryCandidates(CudaPath, "libcupti",
                                        std::to_string(CUDA_VERSION / 1000)),
                  Path, E);
  if (!Lib) {
    Error = "CUPTI not found under " + CudaPath + " (" + E + ")";
    return false;
  }
  std::string Missing;
  sym(Lib, "cuptiActivityEnable", ActivityEnable, Missing);
  sym(Lib, "cuptiActivityDisable", ActivityDisable, Missing);
  sym(Lib, "cuptiActivityRegisterCallbacks", ActivityRegisterCallbacks,
      Missing);
  sym(Lib, "cuptiActivityFlushAll", ActivityFlushAll, Missing);
  sym(Lib, "cuptiActivityGetNextRecord", ActivityGetNextRecord, Missing);
  sym(Lib, "cuptiGetTimestamp", GetTimestamp, Missing);
  sym(Lib, "cuptiGetResultString", GetResultString, Missing);
  if (!Missing.empty()) {
    Error = Path + " lacks " + Missing;
    return false;
  }
  return true;
}

bool NvmlApi::load() {
  Lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib)
    return false;
  std::string Missing;
  sym(Lib, "nvmlInit_v2", Init, Missing);
  sym(Lib, "nvmlDeviceGetHandleByIndex_v2", DeviceGetHandleByIndex, Missing);
  sym(Lib, "nvmlDeviceGetClockInfo", DeviceGetClockInfo, Missing);
  sym(Lib, "nvmlSystemGetDriverVersion", SystemGetDriverVersion, Missing);
  return Missing.empty() && Init() == 0;
}

void NvmlApi::clocks(unsigned Index, int &SmMHz, int &MemMHz) {
  SmMHz = MemMHz = 0;
  void *Dev = nullptr;
  if (!Lib || DeviceGetHandleByIndex(Index, &Dev) != 0)
    return;
  unsigned C = 0;
  if (DeviceGetClockInfo(Dev, /*NVML_CLOCK_SM*/ 1, &C) == 0)
    SmMHz = C;
  if (DeviceGetClockInfo(Dev, /*NVML_CLOCK_MEM*/ 2, &C) == 0)
    MemMHz = C;
}

} // namespace cudal1
