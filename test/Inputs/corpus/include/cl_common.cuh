// Common helpers shared by the corpus kernels: indexing macros and warp
// reductions.
#pragma once
#include <cuda_runtime.h>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define IDX2(row, col, ld) ((row) * (ld) + (col))
#define GLOBAL_TID() (blockIdx.x * blockDim.x + threadIdx.x)
#define GRID_STRIDE() (gridDim.x * blockDim.x)

namespace cl {
namespace detail {

template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

template <typename T>
__device__ __forceinline__ T warp_reduce_max(T v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    v = max(v, __shfl_xor_sync(FULL_MASK, v, offset));
  return v;
}

/// Sum over the whole block; \p scratch holds one value per warp.
template <typename T>
__device__ T block_reduce_sum(T v, T *scratch) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  v = warp_reduce_sum(v);
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  const int nwarps = CEIL_DIV(blockDim.x, WARP_SIZE);
  v = (threadIdx.x < nwarps) ? scratch[lane] : T(0);
  if (warp == 0)
    v = warp_reduce_sum(v);
  return v;
}

// Host-side helper: never needed on the device.
inline int blocks_for(int n, int block) { return CEIL_DIV(n, block); }

} // namespace detail
} // namespace cl
