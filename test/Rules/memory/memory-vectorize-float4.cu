// memory-vectorize-float4: element-wise float kernels get float4 loads and stores.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  memory-vectorize-float4.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,memory-vectorize-float4' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-vectorize-float4' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,memory-vectorize-float4' --format=json %s | FileCheck --check-prefix=FIX %s
// Without the option the rewrite is left to --verify=run (it is not faster
// everywhere): plain --fix does not apply it.
// RUN: cp %s %t/m.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-vectorize-float4' --fix --allow-unverified %t/m.cu 2>&1 | FileCheck --check-prefix=MEASURE %s
// RUN: diff %s %t/m.cu
// MEASURE: fix not applied: offered for GPU verification only
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void saxpy(const float *x, const float *y, float *out, float a,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + y[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: element-wise float kernel{{.*}} [memory-vectorize-float4]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'out' and 'x'
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'out' and 'y'
// FIX: "description": "float4 loads/stores for aligned pointers, scalar tail, original code otherwise
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: { // cuda-l1 memory-vectorize-float4
// CHECK-FIXES-NEXT:   const long long cudal1_threads = (long long)gridDim.x * blockDim.x;
// CHECK-FIXES-NEXT:   const long long cudal1_m = (long long)(n) < cudal1_threads ? (long long)(n) : cudal1_threads;
// CHECK-FIXES-NEXT:   if (((reinterpret_cast<unsigned long long>(out) | reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0) {
// CHECK-FIXES-NEXT:     const long long cudal1_q = cudal1_m > 0 ? cudal1_m / 4 : 0;
// CHECK-FIXES-NEXT:     if (i < cudal1_q) {
// CHECK-FIXES-NEXT:       const float4 cudal1_x4 = reinterpret_cast<const float4 *>(x)[i];
// CHECK-FIXES-NEXT:       const float4 cudal1_y4 = reinterpret_cast<const float4 *>(y)[i];
// CHECK-FIXES-NEXT:       float4 cudal1_o4;
// CHECK-FIXES-NEXT:       cudal1_o4.x = a * cudal1_x4.x + cudal1_y4.x;
// CHECK-FIXES-NEXT:       cudal1_o4.y = a * cudal1_x4.y + cudal1_y4.y;
// CHECK-FIXES-NEXT:       cudal1_o4.z = a * cudal1_x4.z + cudal1_y4.z;
// CHECK-FIXES-NEXT:       cudal1_o4.w = a * cudal1_x4.w + cudal1_y4.w;
// CHECK-FIXES-NEXT:       reinterpret_cast<float4 *>(out)[i] = cudal1_o4;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     if (i >= 4 * cudal1_q && i < cudal1_m)
// CHECK-FIXES-NEXT:       out[i] = a * x[i] + y[i];
// CHECK-FIXES-NEXT:   } else if (i < n) {
// CHECK-FIXES-NEXT:     out[i] = a * x[i] + y[i];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// In place (same element, same thread): no aliasing proof needed.
__global__ void relu_inplace(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i] = fmaxf(v[i], 0.0f);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: element-wise float kernel{{.*}} [memory-vectorize-float4]
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES: cudal1_o4.w = fmaxf(cudal1_v4.w, 0.0f);

// Refused: no launch site: 'out' may alias 'x'.
__global__ void scale_unlaunched(const float *x, float *out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: element-wise float kernel{{.*}} [memory-vectorize-float4]
// CHECK-MESSAGES: note: no fix: 'out' and 'x' may alias: they are not __restrict__ and no launch site of 'scale_unlaunched' is visible in this file

// Not element-wise (the index itself is used as a value, or a neighbour is
// read): no finding.
__global__ void ramp(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] * i;
}
__global__ void diff(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i + 1] - x[i];
}

#ifndef __CUDACC_RTC__
int main() {
  float *x, *y, *out;
  int n = 1 << 20;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(x, y, out, 2.0f, n);
  relu_inplace<<<(n + 255) / 256, 256>>>(out, n);
  return 0;
}
#endif
