// algebraic-pow-small-exponent: pow/powf with a small constant exponent that no shipped YAML rule rewrites
// (the YAML rules algebraic-powf-* and algebraic-pow-sqrt take the literal
// exponents 2, 3, 4 and 0.5 on a pure base).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow-small-exponent' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow-small-exponent' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void powers(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  out[i] = powf(x, -1.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: 'powf' with the constant exponent -1.0f runs the general exp2(y*log2(x)) sequence{{.*}}; use 1.0f / (x) instead [algebraic-pow-small-exponent]
  out[i] += powf(x, -0.5f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: 'powf' with the constant exponent -0.5f {{.*}}; use rsqrtf(x) instead [algebraic-pow-small-exponent]
  const float two = 2.0f;
  out[i] += powf(x, two);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: 'powf' with the constant exponent two {{.*}}; use (x) * (x) instead [algebraic-pow-small-exponent]
  int j = i;
  out[i] += powf(in[j++], 3.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: 'powf' with the constant exponent 3.0f {{.*}}; use (b) * (b) * (b) with a local b = in[j++] (the base has side effects: evaluate it once) instead [algebraic-pow-small-exponent]
  // Negative: what the YAML rules rewrite; exponents that are not small.
  out[i] += powf(x, 2.0f) + powf(x, 0.5f) + powf(x, 2.5f) + powf(x, n);
}
// Finding only: the file is not changed.
// CHECK-FIXES: out[i] = powf(x, -1.0f);
