// launch-coarsen-rows composed with launch-copy-back-pingpong: a time loop
// that steps a Jacobi stencil and copies the result back with a kernel.
// Round 1 applies the host rewrite (proven exact, it has priority); round 2
// finds the step kernel again inside the new loop and coarsens it. The two
// are one composed fix, named after the step kernel (with --verify=run it
// is verified as that kernel's: launch-coarsen-rows-pingpong-gpu.test).
// The rewritten program gives the original's bits (CPU emulation).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  launch-coarsen-rows.MeasureFirst: false\n' > %t/cfg.yaml
// RUN: %cuda-l1-rewrite --rules='-*,launch-copy-back-pingpong,launch-coarsen-rows' --config-file=%t/cfg.yaml --fix --allow-unverified %t/t.cu > %t/run.txt 2>&1
// RUN: FileCheck --check-prefix=SUMMARY %s < %t/run.txt
// SUMMARY: kernel 'step' combines launch-copy-back-pingpong (round 1) + launch-coarsen-rows (round 2): applied
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: 70 steps=5: {{[0-9a-f]+}}
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void step(int n, float *A, float *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
// CHECK-FIXES:      // cuda-l1 launch-coarsen-rows: 4 rows of the original block per thread

__global__ void copy_back(int n, float *A, const float *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    A[i * n + j] = B[i * n + j];
}

int main() {
  const int n = 70, steps = 5;
  size_t bytes = sizeof(float) * n * n;
  float *h = (float *)malloc(bytes);
  for (int i = 0; i < n * n; i++)
    h[i] = (float)((i * 37) % 101) / 7;
  float *A, *B;
  cudaMalloc(&A, bytes);
  cudaMalloc(&B, bytes);
  cudaMemcpy(A, h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(B, h, bytes, cudaMemcpyHostToDevice);
  dim3 block(32, 8);
  dim3 grid((n + 31) / 32, (n + 7) / 8);
  for (int t = 0; t < steps; t++) {
    step<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
    copy_back<<<grid, block>>>(n, A, B);
    cudaDeviceSynchronize();
  }
// CHECK-FIXES: step<<<grid, dim3((block).x, (block).y / 4, (block).z)>>>(n, cudal1_src, cudal1_dst);
  cudaMemcpy(h, A, bytes, cudaMemcpyDeviceToHost);
  unsigned long long x = 1469598103934665603ull;
  const unsigned char *c = (const unsigned char *)h;
  for (size_t i = 0; i < bytes; i++)
    x = (x ^ c[i]) * 1099511628211ull;
  printf("%d steps=%d: %016llx\n", n, steps, x);
  return 0;
}
