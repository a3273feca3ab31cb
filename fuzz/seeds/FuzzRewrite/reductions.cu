// RUN: cuda-l1-structural --rules='sync-*' %s --fixed=%t.cu -- \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: grep -v "// CHECK" %t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
// RUN: cuda-l1-nvrtc-check %t.cu
// RUN: cuda-l1-structural --rules='sync-*' %t.cu -- | FileCheck --check-prefix=AGAIN %s --allow-empty
// AGAIN-NOT: note: fix (
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// Interleaved tree reduction (the classic "reduce0").
__global__ void reduce0(const float *in, float *out) {
  __shared__ float sdata[256];
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
// CHECK: reductions.cu:[[@LINE-7]]:9: warning: interleaved tree reduction: 'tid % (2 * s) == 0' {{.*}} [sync-sequential-reduction]
// CHECK: note: fix (reassociating): sequential addressing
// CHECK-FIXES:      for (unsigned int s = (blockDim.x) / 2; s > 0; s >>= 1) {
// CHECK-FIXES-NEXT:   if (tid < s)
// CHECK-FIXES-NEXT:     sdata[tid] += sdata[tid + s];

// Integers and a constant bound: bitwise.
__global__ void reduce_int(const int *in, int *out) {
  __shared__ int s_data[128];
  int t = threadIdx.x;
  s_data[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  for (int s = 1; s < 128; s <<= 1) {
    if (t % (2 * s) == 0) {
      s_data[t] = s_data[t] + s_data[t + s];
    }
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s_data[0];
}
// CHECK: reductions.cu:[[@LINE-8]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK: note: fix (bitwise): sequential addressing
// CHECK-FIXES:      for (int s = (128) / 2; s > 0; s >>= 1) {
// CHECK-FIXES-NEXT:   if (t < s) {

// Refused: other elements of the array are read after the loop.
__global__ void reads_partials(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + tid] = sdata[tid];
}
// CHECK: reductions.cu:[[@LINE-6]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK: note: no fix: the kernel reads 'sdata[tid]' after the loop; only element 0 keeps its value

// Refused: a block of 96 threads is not a power of two.
__global__ void odd_block(const float *in, float *out) {
  __shared__ float sdata[96];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK: reductions.cu:[[@LINE-7]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK: note: no fix: the block size is not a one-dimensional power of two

// Per-thread atomics to one address, under a bounds guard.
__global__ void total(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}
// CHECK: reductions.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// CHECK: note: fix (reassociating): warp-shuffle sum, then one atomicAdd per warp
// CHECK-FIXES:      { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   float cudal1_v = (i < n) ? (float)(in[i]) : (float)0;
// CHECK-FIXES-NEXT:   for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:     cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
// CHECK-FIXES-NEXT:   if ((threadIdx.x & 31u) == 0u)
// CHECK-FIXES-NEXT:     atomicAdd(sum, cudal1_v);
// CHECK-FIXES-NEXT: }

// Integer histogram-like count into a per-block slot: bitwise.
__global__ void count_positive(const float *in, unsigned int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counts[blockIdx.x], in[i] > 0.0f ? 1u : 0u);
}
// CHECK: reductions.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd to the same address '&counts[blockIdx.x]'{{.*}} [sync-warp-atomic-reduction]
// CHECK: note: fix (bitwise)
// CHECK-FIXES:      unsigned int cudal1_v = in[i] > 0.0f ? 1u : 0u;

// Refused: inside a grid-stride loop, lanes run different trip counts.
__global__ void total_stride(const float *in, float *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, in[i]);
}
// CHECK: reductions.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK: note: no fix: the atomic is inside a loop or nested control flow

// Refused: an earlier return may leave some lanes out.
__global__ void total_early(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(sum, in[i]);
}
// CHECK: reductions.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK: note: no fix: a statement before the atomic may return early

// Refused: 100-thread blocks have a partial warp.
__global__ void total_partial(const float *in, float *sum) {
  atomicAdd(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// CHECK: reductions.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK: note: no fix: the block has 100 threads, not a multiple of 32

// One atomic per block already (the guard picks one thread): no finding.
__global__ void once_per_block(const float *in, float *sum) {
  __shared__ float part[256];
  part[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(sum, part[0] + part[255]);
}

// Per-thread addresses (a histogram) are not this rule's: no finding.
__global__ void histogram(const int *keys, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&bins[keys[i]], 1);
}

#ifndef __CUDACC_RTC__
int main() {
  float *in, *out;
  int *iin, *iout;
  unsigned int *counts;
  cudaMalloc(&in, 1 << 20);
  cudaMalloc(&out, 1 << 20);
  cudaMalloc(&iin, 1 << 20);
  cudaMalloc(&iout, 1 << 20);
  cudaMalloc(&counts, 1 << 20);
  reduce0<<<64, 256>>>(in, out);
  reduce_int<<<64, 128>>>(iin, iout);
  reads_partials<<<64, 256>>>(in, out);
  odd_block<<<64, 96>>>(in, out);
  total<<<64, 256>>>(in, out, 1000);
  count_positive<<<64, 256>>>(in, counts);
  total_stride<<<64, 256>>>(in, out, 1000);
  total_early<<<64, 256>>>(in, out, 1000);
  total_partial<<<64, 100>>>(in, out);
  histogram<<<64, 256>>>(iin, iout);
  once_per_block<<<64, 256>>>(in, out);
  return 0;
}
#endif
