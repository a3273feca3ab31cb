//===- DeviceProps.h - device properties a program may ask the runtime -----===//
//
// Programs size their launches from the GPU (`cudaGetDeviceProperties(&p, 0);
// grid = p.multiProcessorCount * 4`). The harness inference answers those
// reads with the values of the GPU class the tool targets by default (sm_90:
// an H100/H200 SXM), listed in docs/harness.md. Only properties that shape
// launches and shared memory are known; memory sizes and clocks are not.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_DEVICEPROPS_H
#define CUDAL1_MODEL_DEVICEPROPS_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace cudal1 {

/// The GPU the values describe, for notes: "an sm_90 GPU (H100/H200 SXM,
/// 132 SMs)".
extern const char *const DevicePropsGpu;

/// A member of cudaDeviceProp (`multiProcessorCount`), or nothing.
std::optional<int64_t> devicePropField(llvm::StringRef Member);

/// A cudaDeviceAttr enumerator (`cudaDevAttrMultiProcessorCount`) or its
/// driver-API twin (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`), or nothing.
std::optional<int64_t> deviceAttribute(llvm::StringRef Enumerator);

} // namespace cudal1

#endif
