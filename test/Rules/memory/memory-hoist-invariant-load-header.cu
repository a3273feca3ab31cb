// memory-hoist-invariant-load on loops in a header included by the .cu:
// the fixes edit the header (brace-less bodies get braces, a pragma stays on
// its loop, the type is the header's macro) and the result compiles.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %S/Inputs/hoist-loops.cuh %t/
// RUN: %cuda-l1-rewrite --rules='-*,memory-hoist-invariant-load' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{hoist-loops.cuh:[0-9]+:[0-9]+: warning}}'
// RUN: FileCheck --check-prefix=CHECK-FIXES %s < %t/hoist-loops.cuh
// Idempotent: a second run changes nothing.
// RUN: cp %t/hoist-loops.cuh %t/once.cuh
// RUN: %cuda-l1-rewrite --rules='-*,memory-hoist-invariant-load' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cuh %t/hoist-loops.cuh
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// The header compiles with the macro type changed to double: every local
// the fixes declared uses the macro.
// RUN: %if nvcc %{ sed 's/^#define REAL float/#define REAL double/' %t/hoist-loops.cuh > %t/hoist-loops-d.cuh && %nvcc -arch=sm_90 -x cu -c %t/hoist-loops-d.cuh -o %t/d.o %}
#include "hoist-loops.cuh"
#include <cuda_runtime.h>

int main() {
  int n = 64;
  float *s, *out;
  int *idx;
  cudaMalloc(&s, n * sizeof(float));
  cudaMalloc(&out, n * n * n * sizeof(float));
  cudaMalloc(&idx, n * sizeof(int));
  hdr_rows<<<n, 1>>>(s, out, n);
  hdr_unrolled<<<n, 1>>>(s, out, n);
  hdr_gather<<<1, 32>>>(idx, s, out, n);
  return 0;
}

// CHECK-MESSAGES: hoist-loops.cuh:11:34: warning: 's[r]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: hoist-loops.cuh:18:33: warning: 's[blockIdx.x]' is loaded {{.*}} [memory-hoist-invariant-load]

// CHECK-FIXES:      for (int i = 0; i < n; ++i) {
// CHECK-FIXES-NEXT:   const REAL s_inv = ((0) < n) ? s[r] : REAL();
// CHECK-FIXES-NEXT:   for (int k = 0; k < n; ++k)
// CHECK-FIXES-NEXT:     out[(r * n + i) * n + k] = s_inv * k;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES:      if (n > 0) {
// CHECK-FIXES-NEXT:   const float s_inv = ((0) < n) ? s[blockIdx.x] : float();
// CHECK-FIXES-NEXT: #pragma unroll 2
// CHECK-FIXES-NEXT:   for (int k = 0; k < n; ++k)
// CHECK-FIXES-NEXT:     out[blockIdx.x * n + k] = s_inv * k;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: out[threadIdx.x] += 1.0f;
// The gather's index is declared in the loop: untouched.
// CHECK-FIXES:      const int e = idx[i];
// CHECK-FIXES-NEXT: acc += f[e];
