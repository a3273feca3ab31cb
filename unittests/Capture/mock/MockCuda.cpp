//===- MockCuda.cpp - a CPU stand-in for libcuda.so.1 (capture tests) -----===//
//
// Just the driver calls the capture library makes, over host memory: a
// "device allocation" is a host buffer registered with
// mockcuda_add_alloc, copies are memcpy, and the test decides what the
// parameter-info, module and synchronisation calls answer. Built as
// libcuda.so.1 so that the injection library, loaded after it, binds to it.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {
struct Alloc {
  uintptr_t Base;
  size_t Size;
  int Kind; // 1 device, 2 managed, 3 host (registered/mapped)
};
struct State {
  std::vector<Alloc> Allocs;
  std::vector<std::pair<size_t, size_t>> ParamInfo;
  bool FuncParamInfo = false, KernelParamInfo = true;
  bool FuncModule = false, KernelLibrary = true;
  CUresult SyncResult = CUDA_SUCCESS;
  int Syncs = 0, Capturing = 0;
  std::map<std::string, std::pair<void *, size_t>> Globals;
};
State &S() {
  static State St;
  return St;
}
const Alloc *find(uintptr_t P) {
  for (const auto &A : S().Allocs)
    if (P >= A.Base && P < A.Base + A.Size)
      return &A;
  return nullptr;
}
} // namespace

extern "C" {

__attribute__((visibility("default"))) void mockcuda_reset() { S() = State(); }
__attribute__((visibility("default"))) void mockcuda_add_alloc(void *P, size_t Size, int Kind) {
  S().Allocs.push_back({reinterpret_cast<uintptr_t>(P), Size, Kind});
}
__attribute__((visibility("default"))) void
mockcuda_set_param_info(const size_t *Off, const size_t *Size, int N, int FuncWorks,
                        int KernelWorks) {
  S().ParamInfo.clear();
  for (int I = 0; I < N; ++I)
    S().ParamInfo.push_back({Off[I], Size[I]});
  S().FuncParamInfo = FuncWorks;
  S().KernelParamInfo = KernelWorks;
}
__attribute__((visibility("default"))) void mockcuda_set_sync_result(int R) {
  S().SyncResult = static_cast<CUresult>(R);
}
__attribute__((visibility("default"))) int mockcuda_syncs() { return S().Syncs; }
__attribute__((visibility("default"))) void mockcuda_set_capturing(int C) { S().Capturing = C; }
__attribute__((visibility("default"))) void mockcuda_add_global(const char *Name, void *P,
                                                                size_t Size) {
  S().Globals[Name] = {P, Size};
}

CUresult CUDAAPI cuGetErrorName(CUresult E, const char **Str) {
  switch (E) {
  case CUDA_SUCCESS: *Str = "CUDA_SUCCESS"; break;
  case CUDA_ERROR_INVALID_VALUE: *Str = "CUDA_ERROR_INVALID_VALUE"; break;
  case CUDA_ERROR_INVALID_HANDLE: *Str = "CUDA_ERROR_INVALID_HANDLE"; break;
  case CUDA_ERROR_ILLEGAL_ADDRESS: *Str = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
  case CUDA_ERROR_NOT_FOUND: *Str = "CUDA_ERROR_NOT_FOUND"; break;
  default: *Str = "CUDA_ERROR_MOCK"; break;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetName(const char **, CUfunction) { return CUDA_ERROR_INVALID_HANDLE; }
CUresult CUDAAPI cuKernelGetName(const char **Name, CUkernel) {
  *Name = "_Z9unnamed_kv";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *D) {
  *D = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *Name, int Len, CUdevice) {
  std::strncpy(Name, "Mock GPU", Len);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *V, CUdevice_attribute A, CUdevice) {
  *V = A == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *B, CUdevice) {
  *B = size_t(1) << 30;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *U, CUdevice) {
  std::memset(U, 0xab, sizeof(*U));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDriverGetVersion(int *V) {
  *V = 13000;
  return CUDA_SUCCESS;
}
static CUresult paramInfo(bool Works, size_t I, size_t *Off, size_t *Size) {
  if (!Works)
    return CUDA_ERROR_INVALID_HANDLE;
  if (I >= S().ParamInfo.size())
    return CUDA_ERROR_INVALID_VALUE;
  *Off = S().ParamInfo[I].first;
  *Size = S().ParamInfo[I].second;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction, size_t I, size_t *Off, size_t *Size) {
  return paramInfo(S().FuncParamInfo, I, Off, Size);
}
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel, size_t I, size_t *Off, size_t *Size) {
  return paramInfo(S().KernelParamInfo, I, Off, Size);
}
CUresult CUDAAPI cuPointerGetAttributes(unsigned N, CUpointer_attribute *Attrs, void **Data,
                                        CUdeviceptr P) {
  const Alloc *A = find(static_cast<uintptr_t>(P));
  for (unsigned I = 0; I < N; ++I) {
    switch (Attrs[I]) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(Data[I]) =
          !A ? 0 : A->Kind == 3 ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<bool *>(Data[I]) = A && A->Kind == 2;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr *>(Data[I]) = A ? A->Base : 0;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t *>(Data[I]) = A ? A->Size : 0;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int *>(Data[I]) = A ? 0 : -2;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *Base, size_t *Size, CUdeviceptr P) {
  const Alloc *A = find(static_cast<uintptr_t>(P));
  if (!A || A->Kind == 3)
    return CUDA_ERROR_NOT_FOUND;
  *Base = A->Base;
  *Size = A->Size;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetModule(CUmodule *M, CUfunction) {
  if (!S().FuncModule)
    return CUDA_ERROR_INVALID_HANDLE;
  *M = reinterpret_cast<CUmodule>(0x4d4f44);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *L, CUkernel) {
  if (!S().KernelLibrary)
    return CUDA_ERROR_INVALID_HANDLE;
  *L = reinterpret_cast<CUlibrary>(0x4c4942);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuLibraryGetModule(CUmodule *M, CUlibrary) {
  *M = reinterpret_cast<CUmodule>(0x4d4f44);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr *P, size_t *Size, CUmodule, const char *Name) {
  auto It = S().Globals.find(Name);
  if (It == S().Globals.end())
    return CUDA_ERROR_NOT_FOUND;
  *P = reinterpret_cast<CUdeviceptr>(It->second.first);
  *Size = It->second.second;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoH(void *Dst, CUdeviceptr Src, size_t N) {
  std::memcpy(Dst, reinterpret_cast<const void *>(Src), N);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *St) {
  *St = S().Capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize() {
  ++S().Syncs;
  return S().SyncResult;
}

} // extern "C"
