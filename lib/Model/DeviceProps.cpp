//===- DeviceProps.cpp - device properties a program may ask the runtime ---===//
#include "DeviceProps.h"

#include "llvm/ADT/StringSwitch.h"

namespace cudal1 {

const char *const DevicePropsGpu =
    "an sm_90 GPU (H100/H200 SXM: 132 SMs, 60 MiB L2 on the H200)";

// One table for both spellings: cudaDeviceProp member, runtime attribute,
// driver attribute.
namespace {
struct Prop {
  const char *Member, *Attr, *DrvAttr;
  int64_t Value;
};
constexpr Prop Props[] = {
    {"multiProcessorCount", "cudaDevAttrMultiProcessorCount",
     "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", 132},
    {"maxThreadsPerBlock", "cudaDevAttrMaxThreadsPerBlock",
     "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", 1024},
    {"warpSize", "cudaDevAttrWarpSize", "CU_DEVICE_ATTRIBUTE_WARP_SIZE", 32},
    {"maxThreadsPerMultiProcessor", "cudaDevAttrMaxThreadsPerMultiProcessor",
     "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR", 2048},
    {"maxBlocksPerMultiProcessor", "cudaDevAttrMaxBlocksPerMultiprocessor",
     "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR", 32},
    {"sharedMemPerBlock", "cudaDevAttrMaxSharedMemoryPerBlock",
     "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK", 49152},
    {"sharedMemPerBlockOptin", "cudaDevAttrMaxSharedMemoryPerBlockOptin",
     "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", 232448},
    {"sharedMemPerMultiprocessor",
     "cudaDevAttrMaxSharedMemoryPerMultiprocessor",
     "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 233472},
    {"regsPerBlock", "cudaDevAttrMaxRegistersPerBlock",
     "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK", 65536},
    {"regsPerMultiprocessor", "cudaDevAttrMaxRegistersPerMultiprocessor",
     "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR", 65536},
    {"major", "cudaDevAttrComputeCapabilityMajor",
     "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", 9},
    {"minor", "cudaDevAttrComputeCapabilityMinor",
     "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", 0},
    {"l2CacheSize", "cudaDevAttrL2CacheSize",
     "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", 62914560},
    {"concurrentKernels", "cudaDevAttrConcurrentKernels",
     "CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS", 1},
};
} // namespace

std::optional<int64_t> devicePropField(llvm::StringRef Member) {
  for (const Prop &P : Props)
    if (Member == P.Member)
      return P.Value;
  return std::nullopt;
}

std::optional<int64_t> deviceAttribute(llvm::StringRef Enumerator) {
  for (const Prop &P : Props)
    if (Enumerator == P.Attr || Enumerator == P.DrvAttr)
      return P.Value;
  return std::nullopt;
}

} // namespace cudal1
