// algebraic-fast-rsqrt (YAML, exactness fast-math): applied only with
// --allow-fast-math (and, without a GPU, --allow-unverified).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-fast-rsqrt' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=NOFAST %s
// RUN: diff %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-fast-rsqrt' --fix --allow-unverified --allow-fast-math %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-fast-rsqrt' --fix --allow-unverified --allow-fast-math %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

__global__ void normalize(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * (1.0f / sqrtf(in[i] * in[i] + 1.0f));
  // CHECK: t.cu:[[@LINE-1]]:23: warning: 1.0f / sqrtf(in[i] * in[i] + 1.0f) is a square root and a division{{.*}} [algebraic-fast-rsqrt]
  // CHECK-FIXES: out[i] = in[i] * (rsqrtf(in[i] * in[i] + 1.0f));
  // Negative: double, and another numerator.
  double d = 1.0 / sqrt((double)n);
  out[0] = 2.0f / sqrtf(in[0]) + (float)d;
}

// NOFAST: fix not applied: it changes results like fast math; needs --allow-fast-math
