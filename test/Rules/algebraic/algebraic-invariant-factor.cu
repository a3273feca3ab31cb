// algebraic-invariant-factor: acc += c * e with c loop-invariant: acc += e in the loop, acc *= c after it.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-factor' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-factor' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-factor' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// The fix asks the verifier to judge its error against the output's scale
// (a dot product can cancel to ~0; docs/verify.md).
// JSON: "exactness": "reassociating"
// JSON: "scale_rtol": 0.0001
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// A scaled dot product per row: alpha multiplies every term.
__global__ void dot_scaled(const float *a, const float *b, float *out,
                           float alpha, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += alpha * a[row * n + k] * b[k];
  out[row] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every term added to 'acc' is multiplied by 'alpha', which does not change in the loop; summing the terms and multiplying by 'alpha' once after the loop saves a multiply per iteration [algebraic-invariant-factor]
// CHECK-MESSAGES: note: the loop
// FIX: "description": "sum the terms in the loop and multiply 'acc' by 'alpha' once after it
// FIX: "exactness": "reassociating"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      float acc = 0.0f;
// CHECK-FIXES-NEXT: for (int k = 0; k < n; ++k)
// CHECK-FIXES-NEXT:   acc += a[row * n + k] * b[k];
// CHECK-FIXES-NEXT: acc *= alpha;
// CHECK-FIXES-NEXT: out[row] = acc;

// Factor on the right, '-=', a braced body with other statements, a local
// factor computed before the loop.
__global__ void damped(const double *x, double *out, double d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double scale = d * 0.5;
  double s = 0;
  for (int k = 0; k < n; ++k) {
    double v = x[k * 64 + i % 64];
    s -= (v + 1.0) * scale;
  }
  out[i] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every term added to 's' is multiplied by 'scale'{{.*}} [algebraic-invariant-factor]
// FIX: "exactness": "reassociating"
// FIX: "needsMeasurement": false
// CHECK-FIXES:        s -= (v + 1.0);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: s *= scale;

// Refused: the accumulator does not start at zero.
__global__ void biased(const float *a, float *out, float alpha, int n) {
  float acc = out[blockIdx.x];
  for (int k = 0; k < n; ++k)
    acc += alpha * a[k];
  out[blockIdx.x] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK-MESSAGES: note: no fix: 'acc' does not start at zero (its initial value would be multiplied by 'alpha' too)

// Refused: the loop reads the accumulator (it would see the unscaled sum).
__global__ void early_stop(const float *a, float *out, float alpha, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n && acc < 100.0f; ++k)
    acc += alpha * a[k];
  out[blockIdx.x] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK-MESSAGES: note: no fix: the loop uses 'acc' elsewhere too (it would see the sum without the factor)

// Refused: the accumulator is used between its declaration and the loop.
__global__ void touched(const float *a, float *out, float alpha, int n) {
  float acc = 0.0f;
  out[0] = acc;
  for (int k = 0; k < n; ++k)
    acc += alpha * a[k];
  out[1] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK-MESSAGES: note: no fix: 'acc' is used between its declaration and the loop

// Refused: the loop can return (the multiply after it would be skipped).
__global__ void bail(const float *a, float *out, float alpha, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    if (a[k] < 0.0f)
      return;
    acc += alpha * a[k];
  }
  out[0] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK-MESSAGES: note: no fix: the loop can leave the function (return or goto)

// Not reported: the factor changes in the loop; an integer sum (exact: no
// rounding to save, and the compiler strength-reduces it anyway).
__global__ void decaying(const float *a, float *out, int n) {
  float acc = 0.0f, w = 1.0f;
  for (int k = 0; k < n; ++k) {
    acc += w * a[k];
    w *= 0.5f;
  }
  out[0] = acc;
}
__global__ void int_sum(const int *a, int *out, int c, int n) {
  int acc = 0;
  for (int k = 0; k < n; ++k)
    acc += c * a[k];
  out[0] = acc;
}

// Not reported: a factor declared in the loop's body has a new value on
// every iteration, whether it is a load of the same loop (a dot product
// written with a temporary) or a value of the outer loop around an inner
// one that adds to the accumulator (attention's score times a row of V).
__global__ void temp_factor(const float *a, const float *b, float *out, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    float s = a[k];
    acc += s * b[k];
  }
  out[0] = acc;
}
__global__ void outer_factor(const float *q, const float *kmat,
                             const float *v, float *out, int n, int d) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    float score = q[i] * kmat[i];
    for (int j = 0; j < d; ++j)
      acc += score * v[i * d + j];
  }
  out[threadIdx.x] = acc;
}
