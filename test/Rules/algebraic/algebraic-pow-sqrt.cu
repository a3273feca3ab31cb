// algebraic-pow-sqrt: YAML rule (rewrite-rules/algebraic): pow(x, 0.5) on a double becomes sqrt(x).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow-sqrt' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow-sqrt' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void powers(const float *in, float *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  dout[i] = pow((double)x, 0.5);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: {{.*}} [algebraic-pow-sqrt]
  // CHECK-FIXES: dout[i] = sqrt((double)x);
  // Negative: another exponent; host code.
  out[i] += powf(x, 2.5f);
  // CHECK-FIXES: out[i] += powf(x, 2.5f);
}

float host_side(float x) { return powf(x, 3.0f) + powf(x, 4.0f) + powf(x, 0.5f); }
// CHECK-FIXES: float host_side(float x) { return powf(x, 3.0f) + powf(x, 4.0f) + powf(x, 0.5f); }
