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
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'sqrt' computes in double: its argument is float data made double by the double constant '2.0' (FP64 runs at 1/2 to 1/64 of the FP32 rate); with float constants it is 'sqrtf' [algebraic-float-math]
  // CHECK-FIXES: out[1] = sqrtf(x * 2.0f);
  out[3] = exp(x + 1.0);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'exp' computes in double{{.*}} [algebraic-float-math]
  // CHECK-FIXES: out[3] = expf(x + 1.0f);
  // BITWISE: out[3] = exp(x + 1.0);
  // Negative: the float overloads are already used.
  out[2] = sqrtf(x) + expf(x) + sqrt(x);
  // CHECK-FIXES: out[2] = sqrtf(x) + expf(x) + sqrt(x);
}

// Double literals float cannot hold, written or from a macro of their own,
// and results that reach float through double arithmetic on float data:
// fixed, checked within tolerance (the verifier's reassociating class).
#define PI 3.14159265358979
#define HALF 0.5
#define STORE(dst, v) dst = (v)
__global__ void tolerance(const float *x, const float *y, float *a, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = sin(x[i] * PI) * cos(y[i] * PI) + 1.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:10: warning: 'sin' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: a double literal of the arguments is rounded to float: the fix is checked within tolerance, not an ulp bound
  // CHECK-MESSAGES: t.cu:[[@LINE-3]]:27: warning: 'cos' computes in double{{.*}} [algebraic-float-math]
  // CHECK-FIXES: a[i] = sinf(x[i] * (float)PI) * cosf(y[i] * (float)PI) + 1.0;
  c[i] = sqrt(x[i] + HALF) + powf(y[i], 2.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:10: warning: 'sqrt' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: the result reaches float through double arithmetic, which can amplify the float function's error: the fix is checked within tolerance, not an ulp bound
  // CHECK-FIXES: c[i] = sqrtf(x[i] + (float)HALF) + powf(y[i], 2.0f);
  // In a macro's argument: rewritten where it is written.
  STORE(c[i + 2], sqrt(x[i] * 0.1));
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'sqrt' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: a double literal of the arguments is rounded to float{{.*}}
  // CHECK-FIXES: STORE(c[i + 2], sqrtf(x[i] * 0.1f));
  c[i + 1] = -exp(x[i] + 1e-5) / 3.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: 'exp' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: a double literal of the arguments is rounded to float{{.*}}
  // CHECK-FIXES: c[i + 1] = -expf(x[i] + 1e-5f) / 3.0;
}
// BITWISE: a[i] = sin(x[i] * PI) * cos(y[i] * PI) + 1.0;
// BITWISE: c[i] = sqrt(x[i] + HALF) + powf(y[i], 2.0f);
// FORMAT: "rule": "algebraic-float-math"
// FORMAT: "exactness": "reassociating"
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-math' --format=json %s 2>/dev/null | FileCheck --check-prefix=FORMAT %s

// Taken over from algebraic-double-math: reported without a fix.
#define TWO_PI (2.0 * 3.14159265358979)
__global__ void no_fix(const float *in, double *dout, float *out, double d) {
  float x = in[threadIdx.x];
  out[0] = sqrt(x + d);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'sqrt' computes in double on an argument that mixes float data with double values (FP64 runs at 1/2 to 1/64 of the FP32 rate); with the argument in float it is 'sqrtf' [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: an argument is not float data alone{{.*}}
  out[1] = exp(x * 2.0) * d;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'exp' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: the double result is used as a double{{.*}}
  out[2] = sin(x * TWO_PI);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'sin' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: a double literal of the arguments is spelled in a macro that is more than the literal
  dout[1] = exp(x + 1.0) * 2.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: 'exp' computes in double{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: the double result is used as a double{{.*}}
  out[3] = log(x + 1e-300);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'log' computes in double on an argument that mixes float data with double values{{.*}} [algebraic-float-math]
  // CHECK-MESSAGES: note: no fix: an argument is not float data alone{{.*}}
  // Negative: the code asks for double.
  dout[0] = sqrt((double)x);
  // CHECK-FIXES: out[0] = sqrt(x + d);
  // CHECK-FIXES: out[2] = sin(x * TWO_PI);
  // CHECK-FIXES: out[3] = log(x + 1e-300);
}
