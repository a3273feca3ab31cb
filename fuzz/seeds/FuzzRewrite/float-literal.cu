// algebraic-float-literal and algebraic-float-math.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-*' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-*' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Default (no GPU, no --allow-unverified): only the bitwise fixes.
// RUN: cp %s %t/b.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-*' --fix %t/b.cu 2>/dev/null
// RUN: grep -v '// CHECK' %t/b.cu | FileCheck --check-prefix=BITWISE %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Every kernel of the rewritten file, extracted with its context, compiles with NVRTC.
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  out[i] = x * 0.5;
  // CHECK: t.cu:[[@LINE-1]]:16: warning: double literal '0.5' promotes float arithmetic to double {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] = x * 0.5f;
  // BITWISE: out[i] = x * 0.5f;
  out[i] += x * 0.1;
  // CHECK: t.cu:[[@LINE-1]]:17: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] += x * 0.1f;
  // BITWISE: out[i] += x * 0.1;
  out[i] = 2.0 * x + 1.0;
  // CHECK: t.cu:[[@LINE-1]]:12: warning: double literal '2.0' {{.*}} [algebraic-float-literal]
  // CHECK: t.cu:[[@LINE-2]]:22: warning: double literal '1.0' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] = 2.0f * x + 1.0f;
  x *= 0.25;
  // CHECK: t.cu:[[@LINE-1]]:8: warning: double literal '0.25' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: x *= 0.25f;
  if (x < 0.5)
    // CHECK: t.cu:[[@LINE-1]]:11: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
    // CHECK-FIXES: if (x < 0.5f)
    x = 0.0f;
  out[i] = sqrt((double)x + 1.0f);
  out[i] = x;
  // Negative: double data stays double; float literals are fine.
  double d = x * 0.1;
  out[i] = (float)d + x * 2.0f;
  // CHECK-FIXES: double d = x * 0.1;
}

__global__ void math(const float *in, float *out) {
  float x = in[threadIdx.x];
  double dx = x;
  out[0] = sqrt(dx);
  out[1] = sqrt(x * 2.0);
  // CHECK: t.cu:[[@LINE-1]]:12: warning: 'sqrt' computes in double on a float value {{.*}} [algebraic-float-math]
  // CHECK-FIXES: out[1] = sqrtf(x * 2.0f);
  out[3] = exp(x + 1.0);
  // CHECK: t.cu:[[@LINE-1]]:12: warning: 'exp' computes in double {{.*}} [algebraic-float-math]
  // CHECK-FIXES: out[3] = expf(x + 1.0f);
  // BITWISE: out[3] = exp(x + 1.0);
  // Negative: the float overloads are already used.
  out[2] = sqrtf(x) + expf(x) + sqrt(x);
  // CHECK-FIXES: out[2] = sqrtf(x) + expf(x) + sqrt(x);
}

// Macro body: no fix.
#define HALF(v) ((v) * 0.5)
__global__ void macro(float *out, float a) {
  out[0] = HALF(a);
  // CHECK: t.cu:[[@LINE-1]]:12: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = HALF(a);
}

// Template: the literal in the template's own text, once.
template <typename T> __global__ void tmpl(float *out, T v) {
  out[0] = out[1] * 0.5;
  // CHECK: t.cu:[[@LINE-1]]:21: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = out[1] * 0.5f;
}
template __global__ void tmpl<int>(float *, int);

// Host code is not changed.
float host_side(float x) { return x * 0.5; }
// CHECK-FIXES: float host_side(float x) { return x * 0.5; }
