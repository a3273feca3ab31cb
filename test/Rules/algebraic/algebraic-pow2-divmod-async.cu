// algebraic-pow2-divmod in copy loops: an asynchronous copy from global
// memory (`__pipeline_memcpy_async`, `cuda::memcpy_async`) moves its bytes
// like a load, which hides the sign fix-up of a signed division by a power
// of two (the loop's memory traffic, docs/rules/algebraic-pow2-divmod.md);
// a step that is a named constant (`constexpr int kThreads = 128`) is as
// non-negative as the literal. A loop that moves no global memory is still
// reported.
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow2-divmod' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
constexpr int kThreads = 128, kChunks = 256;

// Silent: a step the compiler sees as non-negative.
__global__ void constexpr_step(const float4 *__restrict__ A,
                               float *__restrict__ C, int ntiles) {
  __shared__ __align__(16) float tile[64][16];
  float acc = 0.0f;
  for (int t = 0; t < ntiles; ++t) {
    for (int c = threadIdx.x; c < kChunks; c += kThreads) {
      const int r = c / 4, k = (c % 4) * 4;
      __pipeline_memcpy_async(&tile[r][k], A + (size_t)t * kChunks + c, 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    acc += tile[threadIdx.x % 64][threadIdx.x / 64];
    __syncthreads();
  }
  C[blockIdx.x * kThreads + threadIdx.x] = acc;
}

// Silent: the start is a parameter (the sign is not known), but each
// iteration copies 16 bytes from global memory.
__global__ void async_from(const float4 *__restrict__ A, float *__restrict__ C,
                           int first) {
  __shared__ __align__(16) float tile[64][16];
  for (int c = first + (int)threadIdx.x; c < kChunks; c += kThreads) {
    const int r = c / 4, k = (c % 4) * 4;
    __pipeline_memcpy_async(&tile[r][k], A + c, 16);
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  C[blockIdx.x * kThreads + threadIdx.x] = tile[threadIdx.x % 64][0];
}

// Reported: the same loop clearing shared memory moves no global memory.
__global__ void clear_from(float *__restrict__ C, int first) {
  __shared__ float tile[64][16];
  for (int c = first + (int)threadIdx.x; c < kChunks; c += kThreads) {
    const int r = c / 4, k = (c % 4) * 4;
    tile[r][k] = 0.0f;
  }
  // CHECK: :[[@LINE-3]]:21: warning: signed division by 4
  // CHECK: :[[@LINE-4]]:33: warning: signed modulo by 4
  __syncthreads();
  C[blockIdx.x * kThreads + threadIdx.x] = tile[threadIdx.x % 64][0];
}

void run(const float4 *A, float *C, int ntiles, int blocks, int first) {
  constexpr_step<<<blocks, kThreads>>>(A, C, ntiles);
  async_from<<<blocks, kThreads>>>(A, C, first);
  clear_from<<<blocks, kThreads>>>(C, first);
}
