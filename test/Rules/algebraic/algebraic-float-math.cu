// algebraic-float-math: a double math function on float data becomes the float version (sqrtf).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-math' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-math' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Default (no GPU, no --allow-unverified): only the bitwise fixes.
// RUN: cp %s %t/b.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-math' --fix %t/b.cu 2>/dev/null
// RUN: grep -v '// CHECK' %t/b.cu | FileCheck --check-prefix=BITWISE %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void math(const float *in, float *out) {
  float x = in[threadIdx.x];
  double dx = x;
  out[0] = sqrt(dx);
  out[1] = sqrt(x * 2.0);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'sqrt' computes in double on a float value {{.*}} [algebraic-float-math]
  // CHECK-FIXES: out[1] = sqrtf(x * 2.0f);
  out[3] = exp(x + 1.0);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'exp' computes in double {{.*}} [algebraic-float-math]
  // CHECK-FIXES: out[3] = expf(x + 1.0f);
  // BITWISE: out[3] = exp(x + 1.0);
  // Negative: the float overloads are already used.
  out[2] = sqrtf(x) + expf(x) + sqrt(x);
  // CHECK-FIXES: out[2] = sqrtf(x) + expf(x) + sqrt(x);
}

// Taken over from algebraic-double-math: reported without a fix.
__global__ void no_fix(const float *in, double *dout, float *out, double d) {
  float x = in[threadIdx.x];
  out[0] = sqrt(x + 1e-5);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'sqrt' computes in double on a float value{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: an argument is not float data alone{{.*}}
  out[1] = exp(x * 2.0) * d;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'exp' computes in double on a float value{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: the double result is used as a double{{.*}}
  // Negative: the code asks for double.
  dout[0] = sqrt((double)x);
  // CHECK-FIXES: out[0] = sqrt(x + 1e-5);
}
