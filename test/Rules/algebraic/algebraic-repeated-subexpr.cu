// algebraic-repeated-subexpr: silent by default (nvcc -O3 merges the
// repeats: identical PTX), reports and fixes with its option Report.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-repeated-subexpr' %t/t.cu > %t/quiet.txt 2>&1
// RUN: not grep warning %t/quiet.txt
// RUN: printf 'CheckOptions:\n  algebraic-repeated-subexpr.Report: true\n' > %t/.cuda-l1.yaml
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-repeated-subexpr' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-repeated-subexpr' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Every kernel of the rewritten file, extracted with its context, compiles with NVRTC.
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void stencil(const float *in, float *out, int n, int w) {
  int r = blockIdx.y, c = threadIdx.x;
  out[r * w + c + 1] = in[r * w + c + 1] * 2.0f + in[r * w + c + 1];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:7: warning: 'r * w + c + 1' is computed 3 times in this statement{{.*}} [algebraic-repeated-subexpr]
  // CHECK-FIXES:      const auto common = r * w + c + 1;
  // CHECK-FIXES-NEXT: out[common] = in[common] * 2.0f + in[common];
  float v = sqrtf(in[c] + 1.0f) + sqrtf(in[c] + 1.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: 'sqrtf(in[c] + 1.0f)' is computed 2 times{{.*}} [algebraic-repeated-subexpr]
  // CHECK-FIXES:      const auto common_2 = sqrtf(in[c] + 1.0f);
  // CHECK-FIXES-NEXT: float v = common_2 + common_2;
  out[c] = v;
  // Negative: a side effect between the uses; only under a condition;
  // the assigned variable is part of the expression.
  int k = c;
  out[k * w + 2] = out[k++ * w + 2];
  out[c] = c > 0 ? in[c * w + 1] : in[c * w + 1] + 1.0f;
  n = n * w + 3 + (n * w + 3);
  out[0] = n;
  // CHECK-FIXES: out[k * w + 2] = out[k++ * w + 2];
}

// Negative: the CUDA built-ins read special registers; reading one twice
// costs nothing, so a built-in alone is no repeated subexpression (a
// built-in used in larger repeated arithmetic still is: below).
__global__ void builtins(float *out, const float *in, int n) {
  out[threadIdx.x] = in[threadIdx.x] + in[threadIdx.x + blockDim.x];
  out[blockIdx.x * 2] = in[blockIdx.x] * gridDim.x + blockDim.y * gridDim.x;
  // CHECK-FIXES: out[threadIdx.x] = in[threadIdx.x] + in[threadIdx.x + blockDim.x];
  // CHECK-FIXES: out[blockIdx.x * 2] = in[blockIdx.x] * gridDim.x + blockDim.y * gridDim.x;
  out[n + blockIdx.x * blockDim.x] = in[n + blockIdx.x * blockDim.x];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:7: warning: 'n + blockIdx.x * blockDim.x' is computed 2 times{{.*}} [algebraic-repeated-subexpr]
}
