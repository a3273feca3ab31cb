// algebraic-division-constant, algebraic-reciprocal-hoist, algebraic-pow2-divmod.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-division-constant,algebraic-reciprocal-hoist,algebraic-pow2-divmod' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-division-constant,algebraic-reciprocal-hoist,algebraic-pow2-divmod' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Every kernel of the rewritten file, extracted with its context, compiles with NVRTC.
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void divide(const float *in, float *out, double *dout, float s,
                       int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i] / 4.0f;
  // CHECK: t.cu:[[@LINE-1]]:18: warning: division by 4.0f {{.*}} [algebraic-division-constant]
  // CHECK-FIXES: out[i] = in[i] * 0.25f;
  dout[i] = dout[i] / 2;
  // CHECK: t.cu:[[@LINE-1]]:21: warning: division by 2 {{.*}} [algebraic-division-constant]
  // CHECK-FIXES: dout[i] = dout[i] * 0.5;
  out[i] = in[i] / 3.0f;
  // CHECK-FIXES: out[i] = in[i] / 3.0f;
  for (int k = 0; k < m; ++k) {
    out[i] += in[k] / s;
    // CHECK: t.cu:[[@LINE-1]]:21: warning: division by loop-invariant 's' inside a loop (2 divisions){{.*}} [algebraic-reciprocal-hoist]
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

__global__ void indices(int *out, unsigned u, int n) {
  int tid = threadIdx.x;
  int lane = tid % 32;
  // CHECK: t.cu:[[@LINE-1]]:18: warning: modulo by 32 of a signed value proven >= 0{{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: int lane = tid & 31;
  int warp = tid / 32 + 1;
  // CHECK: t.cu:[[@LINE-1]]:18: warning: division by 32 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: int warp = (tid >> 5) + 1;
  out[tid / 4] = lane + warp;
  // CHECK: t.cu:[[@LINE-1]]:11: warning: division by 4 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[tid >> 2] = lane + warp;
  if (tid % 2 == 0)
    // CHECK: t.cu:[[@LINE-1]]:11: warning: modulo by 2 {{.*}} [algebraic-pow2-divmod]
    // CHECK-FIXES: if ((tid & 1) == 0)
    out[0] = 1;
  // Negative: n may be negative; global index may overflow int; unsigned
  // (the compiler shifts already); not a power of two.
  out[1] = n / 8 + (blockIdx.x * blockDim.x + threadIdx.x) / 2 + u / 16 + tid / 3;
  // CHECK-FIXES: out[1] = n / 8 + (blockIdx.x * blockDim.x + threadIdx.x) / 2 + u / 16 + tid / 3;
}

// Macro body: finding without a fix.
#define LANE(x) ((x) % 32)
__global__ void macro(int *out) {
  int t = threadIdx.x;
  out[t] = LANE(t);
  // CHECK: t.cu:[[@LINE-1]]:12: warning: modulo by 32 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[t] = LANE(t);
}

// Template: the constant is a template argument: left alone; the literal
// division in the template's own text is fixed.
template <int D> __global__ void tmpl(int *out) {
  int t = threadIdx.x;
  out[t] = t / D + t % 8;
  // CHECK: t.cu:[[@LINE-1]]:22: warning: modulo by 8 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[t] = t / D + (t & 7);
}
template __global__ void tmpl<4>(int *);
