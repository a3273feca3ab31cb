// launch-partial-warp: a launch whose constant block size is not a multiple of the warp size.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-partial-warp' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-partial-warp' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void axpy(float a, const float *__restrict__ x,
                     float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

void launch(const float *x, float *y, int n) {
  axpy<<<1024, 100>>>(2.0f, x, y, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: block of 100 threads is not a multiple of the warp size: its last warp runs 4 of 32 lanes{{.*}} [launch-partial-warp]
  axpy<<<1024, 228>>>(2.0f, x, y, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: block of 228 threads {{.*}} wasting 28 of 256 lanes (10%){{.*}} [launch-partial-warp]
  // Negative: whole warps; a single block (setup work); a block smaller
  // than a warp (launch-small-block's, whose fix folds such blocks); idle
  // lanes under 10% of the block's (400 threads: 16 of 416; 240: 16 of
  // 256).
  axpy<<<1024, 128>>>(2.0f, x, y, n);
  axpy<<<1024, dim3(32, 4)>>>(2.0f, x, y, n);
  axpy<<<1, 100>>>(2.0f, x, y, n);
  axpy<<<1024, 16>>>(2.0f, x, y, n);
  axpy<<<1024, 400>>>(2.0f, x, y, n);
  axpy<<<1024, 240>>>(2.0f, x, y, n);
}
// Finding only: the file is not changed.
// CHECK-FIXES: axpy<<<1024, 100>>>(2.0f, x, y, n);
