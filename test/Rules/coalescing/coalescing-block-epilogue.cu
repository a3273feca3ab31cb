// coalescing-uncoalesced-access on a block's counters copied out after (or
// in before) its loop over the data: `for (b = threadIdx.x; b < 1024; b +=
// 512) counts[b * gridDim.x + blockIdx.x] = hist[b]` runs twice per thread,
// bin-major so that one exclusive scan gives every (bin, block) pair its
// offset. Beside a grid-stride loop over the keys it is a small share of
// the traffic: not reported, like an access in no loop. The same copy of
// 16 bins per thread is reported.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kThreads = 512;

template <int Bins>
__global__ void __launch_bounds__(kThreads)
    count_bins(const uint32_t *__restrict__ keys, int n,
               uint32_t *__restrict__ counts) {
  __shared__ uint32_t hist[Bins];
  for (int b = threadIdx.x; b < Bins; b += kThreads)
    hist[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n;
       i += gridDim.x * kThreads)
    atomicAdd(&hist[keys[i] % Bins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < Bins; b += kThreads)
    counts[b * gridDim.x + blockIdx.x] = hist[b];
}

// Silent: the offsets read back in before the scatter loop, 2 per thread.
__global__ void __launch_bounds__(kThreads)
    scatter_keys(const uint32_t *__restrict__ keys, int n,
                 const uint32_t *__restrict__ offsets,
                 uint32_t *__restrict__ out) {
  __shared__ uint32_t cursor[1024];
  for (int b = threadIdx.x; b < 1024; b += kThreads)
    cursor[b] = offsets[b * gridDim.x + blockIdx.x];
  __syncthreads();
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n;
       i += gridDim.x * kThreads) {
    uint32_t k = keys[i];
    out[atomicAdd(&cursor[k % 1024], 1u)] = k;
  }
}

// Reported: 8192 bins are 16 stores per thread, bin-major.
__global__ void __launch_bounds__(kThreads)
    count_many_bins(const uint32_t *__restrict__ keys, int n,
                    uint32_t *__restrict__ counts) {
  __shared__ uint32_t hist[8192];
  for (int b = threadIdx.x; b < 8192; b += kThreads)
    hist[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n;
       i += gridDim.x * kThreads)
    atomicAdd(&hist[keys[i] & 8191u], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 8192; b += kThreads)
    counts[b * gridDim.x + blockIdx.x] = hist[b];
  // CHECK: :[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'gridDim.x' elements apart{{.*}} [coalescing-uncoalesced-access]
}

void run(const uint32_t *keys, int n, uint32_t *counts, uint32_t *offsets,
         uint32_t *out) {
  count_bins<1024><<<264, kThreads>>>(keys, n, counts);
  scatter_keys<<<264, kThreads>>>(keys, n, offsets, out);
  count_many_bins<<<264, kThreads>>>(keys, n, counts);
}
