// memory-shared-bank-conflict: shared-memory accesses whose threads collide in the same bank.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-shared-bank-conflict' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-shared-bank-conflict' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// Reads a column of a [32][32] tile: 32-way bank conflict. The padded tile
// ([32][33]) has none.
__global__ void transpose_tile(const float *__restrict__ in,
                               float *__restrict__ out, int n) {
  __shared__ float tile[32][32];
  __shared__ float padded[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  padded[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:22: warning: 32-way shared memory bank conflict on load of 'tile': consecutive threads are 32 words apart{{.*}} [memory-shared-bank-conflict]
  out[ty * n + tx] += padded[threadIdx.x][threadIdx.y];
}

void launch(const float *in, float *out, int n) {
  transpose_tile<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
}
// Finding only: the file is not changed.
// CHECK-FIXES: out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
