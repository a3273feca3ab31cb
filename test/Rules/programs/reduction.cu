// Reductions: interleaved (divergent), per-element atomics on one address,
// and good ones (sequential addressing + shuffles, one atomic per block).
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

__global__ void reduce_interleaved(const float *__restrict__ in,
                                   float *__restrict__ out) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = in[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

__global__ void reduce_atomic(const float *__restrict__ in,
                              float *__restrict__ sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}

__device__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__global__ void reduce_shuffle(const float *__restrict__ in,
                               float *__restrict__ sum, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum(v);
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
      atomicAdd(sum, v);
  }
}

__global__ void reduce_sequential(const float *__restrict__ in,
                                  float *__restrict__ out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int s = 128; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

void launch(const float *in, float *out, int n) {
  reduce_interleaved<<<n / 256, 256, 256 * sizeof(float)>>>(in, out);
  reduce_atomic<<<(n + 255) / 256, 256>>>(in, out, n);
  reduce_shuffle<<<264, 256>>>(in, out, n);
  reduce_sequential<<<n / 256, 256>>>(in, out);
}

// CHECK-MESSAGES: reduction.cu:14:9: warning: interleaved tree reduction: 'tid % (2 * s) == 0' leaves most threads of every warp idle at every step (diverge{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: reduction.cu:13:3: note: the reduction loop
// CHECK-MESSAGES: reduction.cu:26:5: warning: every thread of a warp performs an atomic on the same global address ('sum'): the 32 atomics are serialized; r{{.*}} [memory-atomic-contention]
