// memory-const-pointer, memory-restrict, memory-ldg, launch-bounds.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-const-pointer,memory-restrict,memory-ldg,launch-bounds' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-const-pointer,memory-restrict,memory-ldg,launch-bounds' --fix %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Every kernel of the rewritten file, extracted with its context, compiles with NVRTC.
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// Proven: every launch passes separate cudaMalloc allocations.
__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK: t.cu:[[@LINE-5]]:17: warning: every launch uses a constant block of at most 256 threads{{.*}} [launch-bounds]
// CHECK: t.cu:[[@LINE-6]]:{{[0-9]+}}: warning: pointer parameter 'x' is only read; declare it 'const float *'{{.*}} [memory-const-pointer]
// CHECK: t.cu:[[@LINE-7]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void __launch_bounds__(256) saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {

// Not proven: the same buffer is passed twice at a launch.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
// CHECK: t.cu:[[@LINE-5]]:17: warning: every launch uses a constant block of at most 128 threads{{.*}} [launch-bounds]
// CHECK: t.cu:[[@LINE-6]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b', 'c' are not __restrict__{{.*}} [memory-restrict]
// CHECK: t.cu:[[@LINE-4]]:12: warning: 1 load through read-only 'a' could use the read-only data path (__ldg) [memory-ldg]
// CHECK: t.cu:[[@LINE-5]]:19: warning: 1 load through read-only 'b' could use the read-only data path (__ldg) [memory-ldg]
// CHECK-FIXES: __global__ void __launch_bounds__(128) add(const float *a, const float *b, float *c, int n) {
// CHECK-FIXES: c[i] = a[i] + b[i];

// Written through: no const; already restrict: only the launch bounds.
__global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
  p[threadIdx.x] *= q[0];
}
// CHECK: t.cu:[[@LINE-3]]:17: warning: every launch uses a constant block of at most 32 threads{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(32) scale(float *__restrict__ p, const float *__restrict__ q) {

int main() {
  int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  dim3 block(128);
  add<<<n / 128, block>>>(x, x, z, n);
  scale<<<1, 32>>>(z, x);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
