// memory-const-pointer: a kernel pointer parameter only read through gets a const pointee.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-const-pointer' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-const-pointer' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameter 'x' is only read; declare it 'const float *'{{.*}} [memory-const-pointer]
// CHECK-FIXES: __global__ void saxpy(int n, float a, const float *x, float *y) {

// The element type from a macro (the corpus's DATA_TYPE): `const` before
// the macro's name, the macro unchanged (redefined as double, still right).
#define ELEM float
#define ELEM_PTR float *
__global__ void macro_scale(int n, ELEM *src, ELEM *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = 2.0f * src[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameter 'src' is only read{{.*}} [memory-const-pointer]
// CHECK-FIXES: __global__ void macro_scale(int n, const ELEM *src, ELEM *dst) {
// The whole pointer type from a macro: no fix (the `*` is inside it).
__global__ void macro_ptr(int n, ELEM_PTR src, float *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameter 'src' is only read{{.*}} [memory-const-pointer]
// CHECK-MESSAGES: note: no fix: the code comes from the body of macro 'ELEM_PTR'
// CHECK-FIXES: __global__ void macro_ptr(int n, ELEM_PTR src, float *dst) {

// Already const, or written through: no finding.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
// CHECK-FIXES: __global__ void add(const float *a, const float *b, float *c, int n) {
__global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
  p[threadIdx.x] *= q[0];
}

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
  macro_scale<<<(n + 255) / 256, 256>>>(n, x, z);
  macro_ptr<<<(n + 255) / 256, 256>>>(n, x, z);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
