// algebraic-division-constant: floating division by a power of two becomes a multiply by its exact reciprocal.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-division-constant' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-division-constant' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void divide(const float *in, float *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i] / 4.0f;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: division by 4.0f {{.*}} [algebraic-division-constant]
  // CHECK-FIXES: out[i] = in[i] * 0.25f;
  dout[i] = dout[i] / 2;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: division by 2 {{.*}} [algebraic-division-constant]
  // CHECK-FIXES: dout[i] = dout[i] * 0.5;
  out[i] = in[i] / 3.0f;
  // CHECK-FIXES: out[i] = in[i] / 3.0f;
}
