// sync-warp-atomic-reduction, grid-stride form: a guarded per-thread atomic
// `if (i < n) atomic(addr, v)` with i = blockIdx.x * blockDim.x +
// threadIdx.x (or along y, `i < n` one of a chain of `&&`), whose launches
// are all in the file, gets at most 2048 blocks,
// each summing the values of the original blocks blockIdx.x + k * gridDim.x
// in its register first: one atomic per block then covers many of the
// original blocks (measured on the H200: 65536 blocks of 256 threads do
// 65536 atomics on one address, about 63 us for a 64 MiB maximum, 32 us with
// 2048 blocks). The launch passes min(n, grid.x * block.x) for n: the
// elements the original's grid reached, so a grid that does not reach n
// keeps its meaning. Kernels that read blockIdx.x, gridDim.x, the index or
// n anywhere else, launches in macros and constant grids of at most 2048
// blocks keep the one-pass form.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the rewritten kernels have nothing left for the rule.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --format=json %s | FileCheck --check-prefix=FIX %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// The original and the rewritten program print the same, on the CPU
// emulation: the sums add quarters of small integers (exact in any order;
// the values printed were computed apart in Python from the same generator),
// for a grid that covers n (3125 blocks of 32: the loop runs twice in some
// blocks), one that does not reach n, and one larger than needed.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig 100000 > %t/orig.txt
// RUN: %t/new 100000 > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: sum 100000: 487488.00
// RUNS: max covering: 1101004800
// RUNS: max short: 1092354048
// RUNS: max long: 1101004800
// RUNS: block sum: 487488.00
// RUNS: count2d covering: 47479
// RUNS: count2d short: 1177
// RUNS: count2d long: 47479
// RUNS: count1d: 47479
// RUNS: flipped: 47479
// RUNS: others: 487488.00 487488.00 487488.00 3 487488.00
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void gs_sum(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "warp-shuffle sum, per-block through shared memory, then one atomicAdd per block; the launches keep at most 2048 blocks, each summing the values of the original blocks blockIdx.x + k * gridDim.x first"
// CHECK-FIXES:      __global__ void gs_sum(const float *x, float *sum, int n) {
// CHECK-FIXES-NEXT:   { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:     float cudal1_v = (float)0;
// CHECK-FIXES-NEXT:     for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:       int i = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:       if (i < n)
// CHECK-FIXES-NEXT:         cudal1_v += (float)(x[i]);
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)

// A maximum, launched with dim3 values three times (below).
__global__ void gs_max(const float *x, int *m, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n)
    atomicMax(m, __float_as_int(x[i]));
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicMax
// FIX: "exactness": "bitwise"
// CHECK-FIXES:      int cudal1_v = (int)(-2147483647 - 1);
// CHECK-FIXES-NEXT: for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:   int i = threadIdx.x + blockDim.x * cudal1_b;
// CHECK-FIXES-NEXT:   if (i < n)
// CHECK-FIXES-NEXT:     { int cudal1_t = (int)(__float_as_int(x[i])); if (cudal1_t > cudal1_v) cudal1_v = cudal1_t; }
// CHECK-FIXES-NEXT: }

// A block's shared accumulator, an unsigned index and bound, `n > gid`.
__global__ void gs_block(const float *array, float *result, unsigned int n) {
  __shared__ float partial;
  unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    partial = 0;
  __syncthreads();
  if (n > gid)
    atomicAdd(&partial, array[gid]);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(result, partial);
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: every thread does an atomicAdd to the same shared-memory address '&partial'
// CHECK-FIXES:      __shared__ float partial;
// CHECK-FIXES-NEXT: if (threadIdx.x == 0)
// CHECK-FIXES:      for (unsigned int cudal1_b = blockIdx.x; (unsigned long long)cudal1_b * blockDim.x < (unsigned long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:   unsigned int gid = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (n > gid)

// The index is also stored through: one pass.
__global__ void ng_store(const float *x, float *y, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// blockIdx.x read elsewhere (a per-block slot): one pass.
__global__ void ng_slot(const float *x, float *sum, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    seen[blockIdx.x] = 1;
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// gridDim.x read: one pass.
__global__ void ng_griddim(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = gridDim.x > 0 ? 1.0f : 0.0f;
  if (i < n)
    atomicAdd(sum, w * x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(w * x[i]) : (float)0;

// Launched through a macro: the launch cannot be edited; one pass.
__global__ void ng_macro(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// An unsigned index against a signed bound: a negative n passes every index
// in the original; one pass.
__global__ void ng_signed(const float *x, float *sum, int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// A constant grid of 16 blocks: nothing to gain; one pass.
__global__ void ng_small(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// Another effect outside the block (a count of blocks): fewer blocks would
// count fewer; one pass.
__global__ void ng_count(const float *x, float *sum, unsigned int *nblocks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
  if (threadIdx.x == 0)
    atomicAdd(nblocks, 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i]) : (float)0;

// A block's shared sum passed on by another operation (a maximum over the
// blocks' sums): merged blocks would change it; one pass.
__global__ void ng_blockmax(const int *x, int *best, int n) {
  __shared__ int part;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    part = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&part, x[i]);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicMax(best, part);
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: every thread does an atomicAdd to the same shared-memory address '&part'
// CHECK-FIXES: int cudal1_v = (i < n) ? (int)(x[i]) : (int)0;

// The whole block index read into a variable: one pass.
__global__ void ng_whole(const float *x, float *sum, int *where, int n) {
  uint3 b = blockIdx;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i] + 0.0f * b.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES: float cudal1_v = (i < n) ? (float)(x[i] + 0.0f * b.x) : (float)0;

// Along y: a 2-D count whose guard is a chain of `&&` (x < w, y < h, a
// test on the pixel); h is read only in its comparison, so the grid keeps
// its x extent and takes at most 2048 / (grid.x * grid.z) rows of blocks,
// and h is capped to the rows the original grid reached.
__global__ void gs_count2d(const float *img, int *count, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && img[y * w + x] > 5.0f)
    atomicAdd(count, 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES:      __global__ void gs_count2d(const float *img, int *count, int w, int h) {
// CHECK-FIXES-NEXT:   int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:     int cudal1_v = (int)0;
// CHECK-FIXES-NEXT:     for (unsigned int cudal1_b = blockIdx.y; (long long)cudal1_b * blockDim.y < (long long)(h); cudal1_b += gridDim.y) {
// CHECK-FIXES-NEXT:       int y = cudal1_b * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:       if (x < w && y < h && img[y * w + x] > 5.0f)
// CHECK-FIXES-NEXT:         cudal1_v += (int)(1);
// CHECK-FIXES-NEXT:     }

// Along x with a further test in the guard (`i < n && x[i] > t`).
__global__ void gs_count1d(const float *x, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 5.0f)
    atomicAdd(count, 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES:      for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:   int i = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (i < n && x[i] > 5.0f)

// A 2-D count whose bounds also index (h flips the rows, w is the row
// length): neither axis can take fewer blocks; one pass.
__global__ void ng_count2d(const float *img, int *count, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && img[(h - 1 - y) * w + x] > 5.0f)
    atomicAdd(count, 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd
// CHECK-FIXES:      __global__ void ng_count2d(const float *img, int *count, int w, int h) {
// CHECK-FIXES-NEXT:   int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   int y = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:   { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:     int cudal1_v = (x < w && y < h && img[(h - 1 - y) * w + x] > 5.0f) ? (int)(1) : (int)0;

#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  float *hx = new float[n];
  unsigned long long S = 11;
  for (int i = 0; i < n; ++i) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    hx[i] = float((S >> 40) % 40) / 4.0f; // 0, 0.25, ..., 9.75
  }
  hx[n - 1] = 20.0f; // beyond the short grid's reach
  float *x, *y, *sum;
  int *m, *seen;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc((void **)&sum, sizeof(float));
  cudaMalloc((void **)&m, sizeof(int));
  cudaMalloc((void **)&seen, 4096 * sizeof(int));
  cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
  float hs;
  int hm;

  cudaMemset(sum, 0, sizeof(float));
  gs_sum<<<(n + 31) / 32, 32>>>(x, sum, n);
// CHECK-FIXES: gs_sum<<<(((n + 31) / 32) < 2048 ? ((n + 31) / 32) : 2048), 32>>>(x, sum, ((int)(n) < 1ll * ((n + 31) / 32) * (32) ? (int)(n) : 1ll * ((n + 31) / 32) * (32)));
  cudaMemcpy(&hs, sum, sizeof(float), cudaMemcpyDeviceToHost);
  printf("sum %d: %.2f\n", n, hs);

  dim3 grid((n + 63) / 64), block(64), small(10), large((n + 63) / 64 + 7);
  const char *names[] = {"covering", "short", "long"};
  dim3 grids[] = {grid, small, large};
  for (int g = 0; g < 3; ++g) {
    cudaMemset(m, 0, sizeof(int));
    dim3 gg = grids[g];
    gs_max<<<gg, block>>>(x, m, n);
// CHECK-FIXES: gs_max<<<dim3((gg).x < 2048u ? (gg).x : 2048u, (gg).y, (gg).z), block>>>(x, m, ((int)(n) < 1ll * (gg).x * (block).x ? (int)(n) : 1ll * (gg).x * (block).x));
    cudaMemcpy(&hm, m, sizeof(int), cudaMemcpyDeviceToHost);
    printf("max %s: %d\n", names[g], hm);
  }

  cudaMemset(sum, 0, sizeof(float));
  gs_block<<<(n + 127) / 128, 128>>>(x, sum, (unsigned)n);
  cudaMemcpy(&hs, sum, sizeof(float), cudaMemcpyDeviceToHost);
  printf("block sum: %.2f\n", hs);

  // The 2-D counts over the data as an image of 100 columns.
  int w = 100, h = n / 100, *count, hc;
  cudaMalloc((void **)&count, sizeof(int));
  dim3 threads(32, 8);
  dim3 blocks2d((w + 31) / 32, (h + 7) / 8), short2d(4, 3), long2d(4, (h + 7) / 8 + 20);
  dim3 grids2d[] = {blocks2d, short2d, long2d};
  for (int g = 0; g < 3; ++g) {
    cudaMemset(count, 0, sizeof(int));
    dim3 g2 = grids2d[g];
    gs_count2d<<<g2, threads>>>(x, count, w, h);
// CHECK-FIXES: gs_count2d<<<dim3((g2).x, (g2).y < ((g2).x * (g2).z == 0u || (g2).x * (g2).z > 2048u ? 1u : 2048u / ((g2).x * (g2).z)) ? (g2).y : ((g2).x * (g2).z == 0u || (g2).x * (g2).z > 2048u ? 1u : 2048u / ((g2).x * (g2).z)), (g2).z), threads>>>(x, count, w, ((int)(h) < 1ll * (g2).y * (threads).y ? (int)(h) : 1ll * (g2).y * (threads).y));
    cudaMemcpy(&hc, count, sizeof(int), cudaMemcpyDeviceToHost);
    printf("count2d %s: %d\n", names[g], hc);
  }
  cudaMemset(count, 0, sizeof(int));
  gs_count1d<<<(n + 255) / 256, 256>>>(x, count, n);
  cudaMemcpy(&hc, count, sizeof(int), cudaMemcpyDeviceToHost);
  printf("count1d: %d\n", hc);
  cudaMemset(count, 0, sizeof(int));
  ng_count2d<<<blocks2d, threads>>>(x, count, w, h);
  cudaMemcpy(&hc, count, sizeof(int), cudaMemcpyDeviceToHost);
  printf("flipped: %d\n", hc);

  float o[5];
  int nb = (n + 255) / 256;
  cudaMemset(sum, 0, sizeof(float));
  ng_store<<<nb, 256>>>(x, y, sum, n);
  cudaMemcpy(&o[0], sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(sum, 0, sizeof(float));
  ng_slot<<<nb, 256>>>(x, sum, seen, n);
  cudaMemcpy(&o[1], sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(sum, 0, sizeof(float));
  ng_griddim<<<nb, 256>>>(x, sum, n);
  cudaMemcpy(&o[2], sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(sum, 0, sizeof(float));
  LAUNCH(ng_macro, nb, 256, x, sum, n);
  cudaMemcpy(&o[3], sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(sum, 0, sizeof(float));
  ng_signed<<<nb, 256>>>(x, sum, n);
  cudaMemcpy(&o[4], sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemset(sum, 0, sizeof(float));
  ng_small<<<16, 256>>>(x, sum, 16 * 256);
  unsigned int *cnt;
  int *ix, *best;
  cudaMalloc((void **)&cnt, sizeof(unsigned int));
  cudaMalloc((void **)&ix, n * sizeof(int));
  cudaMalloc((void **)&best, sizeof(int));
  ng_count<<<nb, 256>>>(x, sum, cnt, n);
  ng_whole<<<nb, 256>>>(x, sum, best, n);
  ng_blockmax<<<nb, 256>>>(ix, best, n);
  float hsmall;
  cudaMemcpy(&hsmall, sum, sizeof(float), cudaMemcpyDeviceToHost);
  printf("others: %.2f %.2f %.2f %d %.2f\n", o[0], o[1], o[2], hsmall > 0 ? 3 : 0, o[4]);
  return 0;
}
