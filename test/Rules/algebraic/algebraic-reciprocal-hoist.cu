// algebraic-reciprocal-hoist: a division by a loop-invariant value in a loop uses a reciprocal computed once before it.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-reciprocal-hoist' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-reciprocal-hoist' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void divide(const float *in, float *out, float s, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < m; ++k) {
    out[i] += in[k] / s;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: division by loop-invariant 's' inside a loop (2 divisions){{.*}} [algebraic-reciprocal-hoist]
    out[i] -= in[k + 1] / s;
  }
  // CHECK-FIXES:      const float inv_s = 1.0f / s;
  // CHECK-FIXES-NEXT: for (int k = 0; k < m; ++k) {
  // CHECK-FIXES-NEXT:   out[i] += in[k] * inv_s;
  // CHECK-FIXES-NEXT:   out[i] -= in[k + 1] * inv_s;
  // Negative: the divisor changes in the loop.
  float t = s;
  for (int k = 0; k < m; ++k) {
    out[i] += in[k] / t;
    t += 1.0f;
  }
  // CHECK-FIXES: out[i] += in[k] / t;
}

// Taken over from algebraic-division-invariant: reported without a fix.
__global__ void no_fix(const float *in, float *out, int *iout, float a,
                       float b, int groups, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    iout[j] = j % groups;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: integer modulo by the loop-invariant 'groups' on every iteration{{.*}} [algebraic-reciprocal-hoist]
    // CHECK-MESSAGES: note: no fix: an integer division by a run-time value has no exact multiply-by-reciprocal form
    out[j] = in[j] / (a * b);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:20: warning: floating-point division by the loop-invariant '(a * b)'{{.*}} [algebraic-reciprocal-hoist]
    // CHECK-MESSAGES: note: no fix: only '/' by a variable of the division's type{{.*}}
  }
  // CHECK-FIXES: out[j] = in[j] / (a * b);
}

// Not reported: the division is in a loop that holds another (a tile loop
// around its k loop): it runs once per inner loop, not where the time goes.
__global__ void tile_loop(const float *in, float *out, int tileCols, int tiles, int k) {
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int r0 = t / tileCols * 64, c0 = t % tileCols * 64;
    float acc = 0;
    for (int kk = 0; kk < k; ++kk)
      acc += in[r0 * k + kk] * in[c0 * k + kk];
    out[t] = acc;
  }
}
