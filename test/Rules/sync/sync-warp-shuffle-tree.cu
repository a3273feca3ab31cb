// sync-warp-shuffle-tree: a block's halving shared-memory tree (a barrier per
// step) becomes warp shuffles, one element per warp through the array, and
// a shuffle reduction of those in the first warp: two barriers before the
// total in X[0], one after.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-shuffle-tree' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent, and silent on its own output (the original loop it keeps for
// other blocks included).
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-shuffle-tree' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | grep -c 'warning: shared-memory tree' | FileCheck %s --check-prefix=AGAIN
// The 8 refused kernels only:
// AGAIN: {{^}}8{{$}}
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-shuffle-tree' --format=json %s | FileCheck --check-prefix=FIX %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// The original and the rewritten program print the same on the CPU
// emulation: integer sums, an integer maximum and float sums of quarters of
// small integers (exact in any order; the values printed were computed apart
// in Python from the same generator).
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: sum: 6141.00 6036.00 6129.75 5575.25
// RUNS: max: 1995 1976 1993 1974
// RUNS: first: 6397.00 6292.00
// RUNS: double: 24354.00 24658.50
// RUNS: extern: 119914 117129
// RUNS: addr: 6141.00 6036.00 1
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 256

// The tree as sync-sequential-reduction writes it, one partial per block.
__global__ void tree_sum(const float *in, float *out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = 0;
  if (i < n)
    sdata[tid] = in[i];
  __syncthreads();
  for (unsigned int s = (blockDim.x) / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata' waits at a barrier at every halving step{{.*}} [sync-warp-shuffle-tree]
// FIX: "description": "warp-shuffle sum of each warp's sdata elements, then of the 8 warps' results in the first warp: two barriers instead of 8 loop steps' barriers"
// FIX: "exactness": "reassociating"
// CHECK-FIXES:      __syncthreads();
// CHECK-FIXES-NEXT:   { // cuda-l1 sync-warp-shuffle-tree
// CHECK-FIXES-NEXT:     float cudal1_r = sdata[tid];
// CHECK-FIXES-NEXT:     for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:       cudal1_r += __shfl_down_sync(0xffffffffu, cudal1_r, cudal1_o);
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:     if ((tid & 31u) == 0u)
// CHECK-FIXES-NEXT:       sdata[tid >> 5] = cudal1_r;
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:     if (tid < 32) {
// CHECK-FIXES-NEXT:       cudal1_r = sdata[tid < 8 ? tid : 0];
// CHECK-FIXES-NEXT:       for (int cudal1_o = 4; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:         cudal1_r += __shfl_down_sync(0xffffffffu, cudal1_r, cudal1_o);
// CHECK-FIXES-NEXT:       if (tid == 0)
// CHECK-FIXES-NEXT:         sdata[0] = cudal1_r;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   if (tid == 0)

// An integer maximum through max(), a constant start, `s /= 2`, braces,
// threadIdx.x itself as the index; blocks of 128.
__global__ void tree_max(const int *in, int *out) {
  __shared__ int m[128];
  m[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  for (int s = 64; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      m[threadIdx.x] = max(m[threadIdx.x], m[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = m[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:3: warning: shared-memory tree reduction of 'm'
// FIX: "exactness": "bitwise"
// CHECK-FIXES:      int cudal1_r = m[threadIdx.x];
// CHECK-FIXES-NEXT: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:   cudal1_r = max(cudal1_r, __shfl_down_sync(0xffffffffu, cudal1_r, cudal1_o));
// CHECK-FIXES:      cudal1_r = m[threadIdx.x < 4 ? threadIdx.x : 0];
// CHECK-FIXES-NEXT: for (int cudal1_o = 2; cudal1_o > 0; cudal1_o >>= 1)

// The barrier first in the loop (no barrier before it), `x = x + y`, and a
// block whose size is read at run time: the kernel
// tests blockDim and keeps the original loop for other blocks.
__global__ void tree_first(const float *in, float *out) {
  __shared__ float acc[BLOCK];
  int t = threadIdx.x;
  acc[t] = in[blockIdx.x * BLOCK + t] + 1.0f;
  for (int d = BLOCK / 2; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d)
      acc[t] = acc[t] + acc[t + d];
  }
  if (t == 0)
    out[blockIdx.x] = acc[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'acc'
// CHECK-FIXES:      if (blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1) { // cuda-l1 sync-warp-shuffle-tree
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   float cudal1_r = acc[t];
// CHECK-FIXES:      } else for (int d = BLOCK / 2; d > 0; d >>= 1) {
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   if (t < d)

// double, `s = s >> 1`, a start of blockDim.x >> 1, blocks of 512.
__global__ void tree_double(const float *in, double *out) {
  __shared__ double sd[512];
  unsigned int tid = threadIdx.x;
  sd[tid] = 2.0 * in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x >> 1; s >= 1; s = s >> 1) {
    if (tid < s)
      sd[tid] += sd[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sd[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sd'
// CHECK-FIXES:      double cudal1_r = sd[tid];
// CHECK-FIXES:      cudal1_r = sd[tid < 16 ? tid : 0];
// CHECK-FIXES-NEXT: for (int cudal1_o = 8; cudal1_o > 0; cudal1_o >>= 1)

// Refused: an element other than X[0] is read after the loop.
__global__ void ng_reads(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  out[blockIdx.x * 2] = sdata[0];
  out[blockIdx.x * 2 + 1] = sdata[1];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the kernel reads 'sdata[1]' after the loop; only element 0 keeps its value

// Refused: the loop under a branch (not every thread reaches it).
__global__ void ng_nested(const float *in, float *out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  if (blockIdx.x < n) {
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
      if (tid < s)
        sdata[tid] += sdata[tid + s];
      __syncthreads();
    }
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:5: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the loop is not a statement of the kernel's body

// Refused: no barrier between the stores and the loop.
__global__ void ng_nobarrier(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the statement before the loop is not '__syncthreads()'

// Refused: launched with 2-D blocks.
__global__ void ng_block2d(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the block is not one-dimensional with a power of two from 64 to 1024 threads

// Refused: the tree covers 128 of the 256 threads' elements.
__global__ void ng_half(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = 64; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the tree starts at 64, not half the block (128)

// Refused: a short has no shuffle.
__global__ void ng_short(const short *in, short *out) {
  __shared__ short sh[BLOCK];
  unsigned int tid = threadIdx.x;
  sh[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sh[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sh'
// CHECK-MESSAGES: note: no fix: 'sh' is not a one-dimensional array of int, unsigned, long long, float or double

// Refused: the kernel has shuffles of its own.
__global__ void ng_shfl(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  float v = in[blockIdx.x * BLOCK + tid];
  sdata[tid] = v + __shfl_xor_sync(0xffffffffu, v, 1);
  __syncthreads();
  for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: the kernel already uses warp shuffles

// Not reported: the tree stops at 32 and a warp finishes it (already the
// fast form).
__global__ void good_tail(const float *in, float *out) {
  __shared__ volatile float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = BLOCK / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// Dynamic shared memory (`extern __shared__`, the CUDA samples' form).
__global__ void tree_extern(const int *in, int *out) {
  extern __shared__ int dyn[];
  unsigned int tid = threadIdx.x;
  dyn[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      dyn[tid] += dyn[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = dyn[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'dyn'
// CHECK-FIXES:      int cudal1_r = dyn[tid];

// The kernel's address is taken (a launch elsewhere could use another
// block): the kernel tests blockDim and keeps the original loop.
__global__ void tree_addr(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-FIXES:      if (blockDim.x >= 64 && (blockDim.x & (blockDim.x - 1)) == 0 && blockDim.y == 1 && blockDim.z == 1) { // cuda-l1 sync-warp-shuffle-tree
// CHECK-FIXES:      cudal1_r = sdata[tid < (blockDim.x >> 5) ? tid : 0];
// CHECK-FIXES-NEXT: for (int cudal1_o = (blockDim.x >> 6); cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES:      } else for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {

// Refused: a pointer to the array reads other elements after the loop.
__global__ void ng_alias(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  float *p = sdata;
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0] + p[1];
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:3: warning: shared-memory tree reduction of 'sdata'
// CHECK-MESSAGES: note: no fix: 'sdata' is used other than as 'X[k]'

// Not reported: a program's own function named fmax (it computes |a - b|,
// not a maximum).
__device__ int fmax(int a, int b) { return a > b ? a - b : b - a; }
__global__ void own_fmax(const int *in, int *out) {
  __shared__ int m[BLOCK];
  m[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = m[0];
}

// A block size read at run time (a configuration the file does not fix).
static volatile unsigned configured_block = BLOCK;

int main() {
  const int n = 1000, nb = (n + BLOCK - 1) / BLOCK; // 4 blocks, the last partial
  float hin[4 * 512];
  int hi[4 * 128];
  unsigned long long S = 5;
  for (int i = 0; i < 4 * 512; ++i) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    hin[i] = float((S >> 40) % 200) / 4.0f; // 0, 0.25, ..., 49.75
  }
  for (int i = 0; i < 4 * 128; ++i) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    hi[i] = int((S >> 33) % 2000);
  }
  float *in, *out;
  int *iin, *iout;
  double *dout;
  cudaMalloc((void **)&in, sizeof(hin));
  cudaMalloc((void **)&out, 8 * sizeof(float));
  cudaMalloc((void **)&iin, sizeof(hi));
  cudaMalloc((void **)&iout, 4 * sizeof(int));
  cudaMalloc((void **)&dout, 4 * sizeof(double));
  cudaMemcpy(in, hin, sizeof(hin), cudaMemcpyHostToDevice);
  cudaMemcpy(iin, hi, sizeof(hi), cudaMemcpyHostToDevice);
  float h[8];
  int hm[4];
  double hd[4];

  tree_sum<<<nb, 256>>>(in, out, n);
  cudaMemcpy(h, out, 4 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("sum: %.2f %.2f %.2f %.2f\n", h[0], h[1], h[2], h[3]);

  tree_max<<<4, 128>>>(iin, iout);
  cudaMemcpy(hm, iout, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("max: %d %d %d %d\n", hm[0], hm[1], hm[2], hm[3]);

  dim3 fb;
  fb.x = configured_block;
  tree_first<<<2, fb>>>(in, out);
  cudaMemcpy(h, out, 2 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("first: %.2f %.2f\n", h[0], h[1]);

  tree_double<<<2, 512>>>(in, dout);
  cudaMemcpy(hd, dout, 2 * sizeof(double), cudaMemcpyDeviceToHost);
  printf("double: %.2f %.2f\n", hd[0], hd[1]);

  tree_extern<<<2, 128, 128 * sizeof(int)>>>(iin, iout);
  cudaMemcpy(hm, iout, 2 * sizeof(int), cudaMemcpyDeviceToHost);
  printf("extern: %d %d\n", hm[0], hm[1]);
  void *where = (void *)tree_addr;
  tree_addr<<<2, 256>>>(in, out);
  cudaMemcpy(h, out, 2 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("addr: %.2f %.2f %d\n", h[0], h[1], where != nullptr);
  ng_alias<<<nb, 256>>>(in, out);
  own_fmax<<<nb, 256>>>(iin, iout);

  // The refused kernels, launched so that their launches are in view.
  ng_reads<<<nb, 256>>>(in, out);
  ng_nested<<<nb, 256>>>(in, out, n);
  ng_nobarrier<<<nb, 256>>>(in, out);
  ng_block2d<<<nb, dim3(32, 8)>>>(in, out);
  ng_half<<<nb, 256>>>(in, out);
  ng_short<<<nb, 256>>>((const short *)iin, (short *)iout);
  ng_shfl<<<nb, 256>>>(in, out);
  good_tail<<<nb, 256>>>(in, out);
  cudaDeviceSynchronize();
  return 0;
}
