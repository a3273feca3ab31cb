// sync-sequential-reduction: interleaved shared-memory tree reductions get sequential addressing.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-sequential-reduction' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-sequential-reduction' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,sync-sequential-reduction' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
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
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:9: warning: interleaved tree reduction: 'tid % (2 * s) == 0' {{.*}} [sync-sequential-reduction]
// FIX: "description": "sequential addressing
// FIX: "exactness": "reassociating"
// FIX: "needsMeasurement": false
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
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// FIX: "description": "sequential addressing
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
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
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: note: no fix: the kernel reads 'sdata[tid]' after the loop; only element 0 keeps its value

// Refused: a pointer to the array reads other partial sums after the loop.
__global__ void alias_reads_partials(const float *in, float *out) {
  __shared__ float sdata[256];
  float *p = sdata;
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0] + p[4];
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: note: no fix: 'sdata' is used other than as 'X[k]' (a pointer to it could read other elements)

// Refused: the address of an element is a pointer into the array too.
__device__ float first_two(const float *p) { return p[0] + p[1]; }
__global__ void addr_reads_partials(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = first_two(&sdata[0]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: note: no fix: 'sdata' is used other than as 'X[k]' (a pointer to it could read other elements)

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
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:9: warning: interleaved tree reduction:{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: note: no fix: the block size is not a one-dimensional power of two

// Taken over from sync-divergent-reduction: a divergent tree the rewrite
// does not handle (a mask test, in a device function): no fix.
__device__ void tree(float *sdata, unsigned n) {
  unsigned tid = threadIdx.x;
  for (unsigned s = 1; s < n; s *= 2) {
    if ((tid & (2 * s - 1)) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:9: warning: divergent interleaved reduction: '(tid & (2 * s - 1)) == 0'{{.*}} [sync-sequential-reduction]
// CHECK-MESSAGES: note: reduction loop over 's'
// CHECK-MESSAGES: note: no fix: the rewrite handles the tree{{.*}}
// CHECK-FIXES: if ((tid & (2 * s - 1)) == 0)

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
  alias_reads_partials<<<64, 256>>>(in, out);
  addr_reads_partials<<<64, 256>>>(in, out);
  odd_block<<<64, 96>>>(in, out);
  return 0;
}
#endif
