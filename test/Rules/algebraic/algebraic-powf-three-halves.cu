// algebraic-powf-three-halves: YAML rule (rewrite-rules/algebraic): powf(x, 1.5f) becomes x * sqrtf(x).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-three-halves' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// The fix's tolerances (JSON): 4 ulp, or 1e-5 of the output's largest value.
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-three-halves' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "ulp"
// FIX: "scale_rtol": 1.0000000000000001e-05
// FIX: "ulp": 4
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-three-halves' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>
#define EPS2 1e-4f

// n-body: the distance cubed from the squared distance.
__global__ void accel(const float *x, const float *m, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int j = 0; j < n; j++) {
    float dx = x[j] - x[i];
    float dist2 = dx * dx + EPS2;
    acc += dx * m[j] / powf(dist2, 1.5f);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:24: warning: powf(dist2, 1.5f) takes the general exp/log path{{.*}} [algebraic-powf-three-halves]
    // CHECK-FIXES: acc += dx * m[j] / ((dist2) * sqrtf(dist2));
  }
  a[i] = acc;
}

// A normalised third moment; a base with side effects and other exponents
// stay.
__global__ void skew(const float *m2, const float *m3, float *s, double *d, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n)
    return;
  s[r] = m3[r] / powf(m2[r] + 1.0f, 1.5f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: powf(m2[r] + 1.0f, 1.5f){{.*}} [algebraic-powf-three-halves]
  // CHECK-FIXES: s[r] = m3[r] / ((m2[r] + 1.0f) * sqrtf(m2[r] + 1.0f));
  float t = m2[r];
  s[r] += powf(t++, 1.5f) + powf(t, 2.5f);
  // CHECK-FIXES: s[r] += powf(t++, 1.5f) + powf(t, 2.5f);
  // A double pow: not this rule (sqrtf would lose precision).
  d[r] = pow((double)m2[r], 1.5);
  // CHECK-FIXES: d[r] = pow((double)m2[r], 1.5);
}

float host_side(float x) { return powf(x, 1.5f); }
// CHECK-FIXES: float host_side(float x) { return powf(x, 1.5f); }
