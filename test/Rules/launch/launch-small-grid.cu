// launch-small-grid: a grid with fewer blocks than the GPU has SMs, for a kernel that loops over
// its data.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-grid' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-grid' --fix --allow-unverified %t/t.cu
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
  axpy<<<16, 256>>>(2.0f, x, y, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: grid of 16 blocks keeps only 16 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  // Negative:
  axpy<<<264, 256>>>(2.0f, x, y, n);
  axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
}
// Finding only: the file is not changed.
// CHECK-FIXES: axpy<<<16, 256>>>(2.0f, x, y, n);
