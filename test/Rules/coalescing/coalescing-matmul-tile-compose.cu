// coalescing-matmul-tile by composition: a product accumulated in global
// memory (c *= beta, then c += alpha * a * b in the loop) is turned into a
// register sum by memory-register-accumulation in round 1 and tiled in
// round 2 of the same --fix run; the result is exact (same bits on the CPU
// emulation, utils/bench/cuemu) and compiles.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  coalescing-matmul-tile.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation,coalescing-matmul-tile' --config-file=%t/config.yaml \
// RUN:   --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=ROUNDS %s
// ROUNDS: warning: 'c[i * nj + j]' is loaded from and stored to global memory on every iteration {{.*}} [memory-register-accumulation]
// ROUNDS: cuda-l1: kernel 'gemm_rmw' combines memory-register-accumulation (round 1) + coalescing-matmul-tile (round 2): applied
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation,coalescing-matmul-tile' --config-file=%t/config.yaml \
// RUN:   --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Exact: same bits as the original on the CPU emulation.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: gemm_rmw 32x8: {{[0-9a-f]+}}
// RUNS: gemm_rmw 16x8 (fallback): {{[0-9a-f]+}}
// The rewritten file compiles with nvcc.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cstdio>
#include <cuda_runtime.h>

#define DATA_TYPE float

__global__ void gemm_rmw(int ni, int nj, int nk, DATA_TYPE alpha,
                         DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *b,
                         DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < ni) && (j < nj)) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++)
      c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
  }
}
// The launches disagree (32x8 and 16x8 blocks): the fast path is built for
// the default 256 threads and __launch_bounds__(1024) allows any block.
// CHECK-FIXES: __global__ void __launch_bounds__(1024) gemm_rmw(int ni, int nj, int nk, DATA_TYPE alpha,
// CHECK-FIXES: if (blockDim.x * blockDim.y * blockDim.z != 256u || blockDim.z != 1u || gridDim.z != 1u) {
// CHECK-FIXES:     c[i * nj + j] *= beta;
// CHECK-FIXES:     DATA_TYPE c_acc = c[i * nj + j];
// CHECK-FIXES:       c_acc += alpha * a[i * nk + k] * b[k * nj + j];
// CHECK-FIXES:     c[i * nj + j] = c_acc;
// CHECK-FIXES:   return;
// CHECK-FIXES: __shared__ __align__(16) DATA_TYPE cudal1_As[2][32][64 + 4];
// CHECK-FIXES: if (((i < ni) && (j < nj))) {
// CHECK-FIXES-NEXT: c[i * nj + j] *= beta;
// CHECK-FIXES-NEXT: DATA_TYPE c_acc = c[i * nj + j];
// CHECK-FIXES-NEXT: cudal1_acc[cudal1_r][cudal1_c] = c_acc;
// CHECK-FIXES: cudal1_ra[cudal1_u] = a[i * nk + k];
// CHECK-FIXES: cudal1_rb[cudal1_u] = b[k * nj + j];
// CHECK-FIXES: cudal1_acc[cudal1_r][cudal1_c] += alpha * cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
// CHECK-FIXES: DATA_TYPE c_acc = cudal1_acc[cudal1_r][cudal1_c];
// CHECK-FIXES-NEXT: c[i * nj + j] = c_acc;

static unsigned long long hashBytes(const void *P, size_t N) {
  const unsigned char *B = (const unsigned char *)P;
  unsigned long long H = 1469598103934665603ull;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 1099511628211ull;
  return H;
}

static void fill(float *H, size_t N, unsigned long long S) {
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    H[I] = float((S >> 40) % 2001) / 1000.0f - 1.0f;
  }
}

int main() {
  const int ni = 70, nj = 90, nk = 51;
  static float hA[ni * nk], hB[nk * nj], hC[ni * nj];
  fill(hA, ni * nk, 1);
  fill(hB, nk * nj, 2);
  fill(hC, ni * nj, 3);
  float *a, *b, *c;
  cudaMalloc((void **)&a, sizeof hA);
  cudaMalloc((void **)&b, sizeof hB);
  cudaMalloc((void **)&c, sizeof hC);
  cudaMemcpy(a, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hB, sizeof hB, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hC, sizeof hC, cudaMemcpyHostToDevice);
  dim3 block(32, 8), grid((nj + 31) / 32, (ni + 7) / 8);
  gemm_rmw<<<grid, block>>>(ni, nj, nk, 1.5f, 0.5f, a, b, c);
  static float out[ni * nj];
  cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost);
  printf("gemm_rmw 32x8: %016llx\n", hashBytes(out, sizeof out));
  cudaMemcpy(c, hC, sizeof hC, cudaMemcpyHostToDevice);
  dim3 block2(16, 8), grid2((nj + 15) / 16, (ni + 7) / 8);
  gemm_rmw<<<grid2, block2>>>(ni, nj, nk, 1.5f, 0.5f, a, b, c);
  cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost);
  printf("gemm_rmw 16x8 (fallback): %016llx\n", hashBytes(out, sizeof out));
  return 0;
}
