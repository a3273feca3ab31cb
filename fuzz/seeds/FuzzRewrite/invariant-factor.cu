// RUN: cuda-l1-structural --rules=algebraic-invariant-factor %s --fixed=%t.cu -- \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: grep -v "// CHECK" %t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
// RUN: cuda-l1-nvrtc-check %t.cu
// Idempotence: nothing more to fix in the rewritten file.
// RUN: cuda-l1-structural --rules=algebraic-invariant-factor %t.cu -- | FileCheck --check-prefix=AGAIN %s --allow-empty
// AGAIN-NOT: note: fix (
// The fix asks the verifier to judge its error against the output's scale
// (a dot product can cancel to ~0; docs/verify.md).
// RUN: cuda-l1-rewrite --rules='-*,algebraic-invariant-factor' --format=json %s | FileCheck --check-prefix=JSON %s
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
// CHECK: invariant-factor.cu:[[@LINE-3]]:5: warning: every term added to 'acc' is multiplied by 'alpha', which does not change in the loop; summing the terms and multiplying by 'alpha' once after the loop saves a multiply per iteration [algebraic-invariant-factor]
// CHECK: note: the loop
// CHECK: note: fix (reassociating): sum the terms in the loop and multiply 'acc' by 'alpha' once after it
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
// CHECK: invariant-factor.cu:[[@LINE-4]]:5: warning: every term added to 's' is multiplied by 'scale'{{.*}} [algebraic-invariant-factor]
// CHECK: note: fix (reassociating)
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
// CHECK: invariant-factor.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK: note: no fix: 'acc' does not start at zero (its initial value would be multiplied by 'alpha' too)

// Refused: the loop reads the accumulator (it would see the unscaled sum).
__global__ void early_stop(const float *a, float *out, float alpha, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n && acc < 100.0f; ++k)
    acc += alpha * a[k];
  out[blockIdx.x] = acc;
}
// CHECK: invariant-factor.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK: note: no fix: the loop uses 'acc' elsewhere too (it would see the sum without the factor)

// Refused: the accumulator is used between its declaration and the loop.
__global__ void touched(const float *a, float *out, float alpha, int n) {
  float acc = 0.0f;
  out[0] = acc;
  for (int k = 0; k < n; ++k)
    acc += alpha * a[k];
  out[1] = acc;
}
// CHECK: invariant-factor.cu:[[@LINE-3]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK: note: no fix: 'acc' is used between its declaration and the loop

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
// CHECK: invariant-factor.cu:[[@LINE-4]]:5: warning: every term added to 'acc'{{.*}} [algebraic-invariant-factor]
// CHECK: note: no fix: the loop can leave the function (return or goto)

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
