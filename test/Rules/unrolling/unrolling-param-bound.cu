// unrolling-param-bound: small innermost loops bounded by an unchanged
// parameter get an unroll pragma with a factor.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void loops(const float *in, const float *w, float *out, int k) {
  float acc = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  int r = blockIdx.x, c = threadIdx.x;
  for (int j = 0; j < k; ++j) {
    acc += in[(r * 4 + 0) * k + j] * w[j * k + c] + in[j] * w[j];
    a1 += in[(r * 4 + 1) * k + j] * w[j * k + c] + in[j + k] * w[j];
    a2 += in[(r * 4 + 2) * k + j] * w[j * k + c] + in[j + 2 * k] * w[j];
    a3 += in[(r * 4 + 3) * k + j] * w[j * k + c] + in[j + 3 * k] * w[j];
  }
  // CHECK-MESSAGES: t.cu:[[@LINE-6]]:3: warning: small loop bounded by parameter 'k' is not unrolled{{.*}} [unrolling-param-bound]
  // CHECK-MESSAGES: t.cu:[[@LINE-7]]:3: note: the body is about {{1[2-9][0-9]}} nodes of code; nvcc unrolls a loop with a runtime trip count 4 times by itself only while 4 copies fit in about 480 (option CompilerUnrollSize)
  // CHECK-FIXES:      #pragma unroll 4
  // CHECK-FIXES-NEXT: for (int j = 0; j < k; ++j) {
  // Negative: nvcc 13 -O3 unrolls these small bodies 4 times or more by
  // itself (their SASS is the same with '#pragma unroll 4', or the pragma
  // unrolls less): a sum, four products, a libdevice call.
  for (int j = 0; j < k; ++j) {
    acc += in[j];
  }
  for (int j = 0; j < k; ++j) {
    acc += in[j * 4] * w[j];
    a1 += in[j * 4 + 1] * w[j];
    a2 += in[j * 4 + 2] * w[j];
    a3 += in[j * 4 + 3] * w[j];
  }
  for (int j = 0; j < k; ++j)
    acc += expf(in[j]) + sqrtf(w[j]);
  // CHECK-FIXES: for (int j = 0; j < k; ++j) {
  // CHECK-FIXES-NEXT: acc += in[j];
  // Negative: the bound changes in the loop; a constant bound
  // (unrolling-constant-trip's); already unrolled.
  int m = k;
  for (int j = 0; j < m; ++j)
    m -= 1;
  for (int j = 0; j < 8; ++j)
    acc += in[j];
#pragma unroll 2
  for (int j = 0; j < k; ++j)
    acc += in[2 * j];
  // CHECK-FIXES: for (int j = 0; j < m; ++j)
  out[threadIdx.x] = acc + a1 + a2 + a3;
}

// Negative: nine expression statements are more than MaxBodyStatements (8);
// a barrier in the body makes each iteration a phase of the block.
__global__ void big_or_phased(const float *in, float *out, int k) {
  __shared__ float s[256];
  float a = 0.0f, b = 0.0f, c = 0.0f;
  for (int j = 0; j < k; ++j) {
    a += in[j];
    b += in[j + 1];
    c += in[j + 2];
    a *= 0.5f;
    b *= 0.5f;
    c *= 0.5f;
    a += b;
    b += c;
    c += a;
  }
  for (int j = 0; j < k; ++j) {
    s[threadIdx.x] = in[j * 256 + threadIdx.x];
    __syncthreads();
    a += s[255 - threadIdx.x];
    __syncthreads();
  }
  out[threadIdx.x] = a + b + c;
}

// Host loops are not touched.
void host(float *p, int n) {
  for (int j = 0; j < n; ++j)
    p[j] = 0;
}
// CHECK-FIXES: for (int j = 0; j < n; ++j)
