// unrolling-constant-trip, unrolling-param-bound.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-*' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-*' --fix %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Every kernel of the rewritten file, extracted with its context, compiles with NVRTC.
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void loops(const float *in, float *out, int k) {
  float acc = 0.0f;
  for (int j = 0; j < 8; ++j)
    acc += in[threadIdx.x * 8 + j];
  // CHECK: t.cu:[[@LINE-2]]:3: warning: loop with constant trip count 8 is not unrolled{{.*}} [unrolling-constant-trip]
  // CHECK-FIXES:      #pragma unroll
  // CHECK-FIXES-NEXT: for (int j = 0; j < 8; ++j)
  for (int j = 0; j < k; ++j) {
    acc += in[j];
  }
  // CHECK: t.cu:[[@LINE-3]]:3: warning: small loop bounded by parameter 'k' is not unrolled{{.*}} [unrolling-param-bound]
  // CHECK-FIXES:      #pragma unroll 4
  // CHECK-FIXES-NEXT: for (int j = 0; j < k; ++j) {
  // Negative: already unrolled; not innermost; too long; bound changes.
#pragma unroll
  for (int j = 0; j < 4; ++j)
    acc += in[j];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      acc += in[a * 4 + b];
  // CHECK: t.cu:[[@LINE-2]]:5: warning: loop with constant trip count 4 {{.*}} [unrolling-constant-trip]
  for (int j = 0; j < 1000; ++j)
    acc += in[j];
  int m = k;
  for (int j = 0; j < m; ++j)
    m -= 1;
  out[threadIdx.x] = acc;
}

// Template argument bound.
template <int N> __global__ void tmpl(const float *in, float *out) {
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) {
    acc += in[j];
  }
  // CHECK: t.cu:[[@LINE-3]]:3: warning: loop with constant trip count 'N' (a template argument){{.*}} [unrolling-constant-trip]
  // CHECK-FIXES: template <int N> __global__ void tmpl
  // CHECK-FIXES: #pragma unroll
  // CHECK-FIXES-NEXT: for (int j = 0; j < N; ++j) {
  out[0] = acc;
}
template __global__ void tmpl<16>(const float *, float *);

// Macro: the loop comes from a macro: finding without a fix.
#define SUM4(acc, p) for (int q = 0; q < 4; ++q) acc += (p)[q]
__global__ void macro(const float *in, float *out) {
  float acc = 0.0f;
  SUM4(acc, in);
  // CHECK: t.cu:[[@LINE-1]]:3: warning: loop with constant trip count 4 {{.*}} [unrolling-constant-trip]
  out[0] = acc;
}

// Host loops are not touched.
void host(float *p) {
  for (int j = 0; j < 8; ++j)
    p[j] = 0;
}
