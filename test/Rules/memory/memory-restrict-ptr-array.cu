// memory-restrict with arguments that are elements of a host array of device
// pointers (`float *d[4]; for (...) cudaMalloc(&d[f], ...)`, as nbody-style
// programs keep their fields): different constant elements are different
// allocations; the same element twice aliases (no finding); an array whose elements are
// also assigned proves nothing.
// The kernels are loop-free: RequireLoop is off (memory-restrict-loop.cu).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  memory-restrict.RequireLoop: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

__global__ void axpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void axpy(const float *__restrict__ x, float *__restrict__ y, float a, int n) {

__global__ void mix(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2 * x[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void mix(const float *__restrict__ x, float *__restrict__ y, int n) {

__global__ void twice(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1;
}
// The launch passes 'd[2]' for both: the qualifier would be undefined
// behaviour, no finding.
// CHECK-FIXES: __global__ void twice(const float *x, float *y, int n) {

__global__ void copied(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
// CHECK-MESSAGES: note: no fix: no-aliasing is not proven: the elements of 'e' are assigned or used other than by cudaMalloc and reads
// CHECK-FIXES: __global__ void copied(const float *x, float *y, int n) {

int main() {
  const int n = 1 << 20;
  float *d[4];
  for (int f = 0; f < 4; f++)
    cudaMalloc(&d[f], n * sizeof(float));
  float *z = nullptr;
  cudaMalloc(&z, n * sizeof(float));
  axpy<<<n / 256, 256>>>(d[0], d[1], 2.0f, n);
  mix<<<n / 256, 256>>>(d[3], z, n);
  twice<<<n / 256, 256>>>(d[2], d[2], n);
  float *e[2];
  cudaMalloc(&e[0], n * sizeof(float));
  e[1] = e[0];
  copied<<<n / 256, 256>>>(e[0], e[1], n);
  for (int f = 0; f < 4; f++)
    cudaFree(d[f]);
  cudaFree(z);
  cudaFree(e[0]);
  return 0;
}
