// algebraic-float-literal: a double literal in float arithmetic becomes the float literal (0.5f).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Default (no GPU, no --allow-unverified): only the bitwise fixes.
// RUN: cp %s %t/b.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix %t/b.cu 2>/dev/null
// RUN: grep -v '// CHECK' %t/b.cu | FileCheck --check-prefix=BITWISE %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  out[i] = x * 0.5;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: double literal '0.5' promotes float arithmetic to double {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] = x * 0.5f;
  // BITWISE: out[i] = x * 0.5f;
  out[i] += x * 0.1;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] += x * 0.1f;
  // BITWISE: out[i] += x * 0.1;
  out[i] = 2.0 * x + 1.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '2.0' {{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:22: warning: double literal '1.0' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] = 2.0f * x + 1.0f;
  x *= 0.25;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:8: warning: double literal '0.25' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: x *= 0.25f;
  if (x < 0.5)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:11: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
    // CHECK-FIXES: if (x < 0.5f)
    x = 0.0f;
  out[i] = sqrt((double)x + 1.0f);
  out[i] = x;
  // Negative: double data stays double; float literals are fine.
  double d = x * 0.1;
  out[i] = (float)d + x * 2.0f;
  // CHECK-FIXES: double d = x * 0.1;
}

// Taken over from algebraic-double-literal: reported without a fix.
__global__ void no_fix(const float *in, int *out, double *dout) {
  float x = in[threadIdx.x];
  out[0] = x * 0.5;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: double literal '0.5' promotes float arithmetic to double{{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: note: no fix: the double result is used as a double, not converted back to float{{.*}}
  if (x < 0.1)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:11: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
    // CHECK-MESSAGES: note: no fix: the literal is not exactly representable as a float{{.*}}
    out[1] = 1;
  // Negative: double data the code asks for.
  dout[0] = x * 0.5;
  dout[1] += x * 0.25;
  // CHECK-FIXES: out[0] = x * 0.5;
  // CHECK-FIXES: dout[1] += x * 0.25;
}

// Macro body: no fix.
#define HALF(v) ((v) * 0.5)
__global__ void macro(float *out, float a) {
  out[0] = HALF(a);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = HALF(a);
}

// Template: the literal in the template's own text, once.
template <typename T> __global__ void tmpl(float *out, T v) {
  out[0] = out[1] * 0.5;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = out[1] * 0.5f;
}
template __global__ void tmpl<int>(float *, int);

// Host code is not changed.
float host_side(float x) { return x * 0.5; }
// CHECK-FIXES: float host_side(float x) { return x * 0.5; }
