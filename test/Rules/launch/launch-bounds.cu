// launch-bounds: kernels launched only with constant blocks of at most N > 256 threads get __launch_bounds__(N).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// The largest block has 512 threads: 65536/512 = 128 registers per thread,
// below the 255 the compiler may otherwise use.
__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:17: warning: every launch uses a constant block of at most 512 threads; '__launch_bounds__(512)' keeps the kernel within the 128 registers per thread{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(512) saxpy(int n, float a, float *x, float *y) {

// A dim3 block of 16 x 48 = 768 threads.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:17: warning: every launch uses a constant block of at most 768 threads{{.*}} 85 registers per thread{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(768) add(const float *a, const float *b, float *c, int n) {

// Not reported: blocks of at most 256 threads. __launch_bounds__(256)
// allows 256 registers per thread, more than a thread can have: the bound
// changes nothing.
__global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
  p[threadIdx.x] *= q[0];
}
__global__ void small(float *p) { p[threadIdx.x] = 1.0f; }
// CHECK-FIXES: __global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
// CHECK-FIXES: __global__ void small(float *p) { p[threadIdx.x] = 1.0f; }

// Not reported: a block of 1024 (the bound the compiler assumes anyway) and
// a block that is not constant.
__global__ void full(float *p) { p[threadIdx.x] = 2.0f; }
__global__ void dynamic(float *p) { p[threadIdx.x] = 3.0f; }
// CHECK-FIXES: __global__ void full(float *p) {
// CHECK-FIXES: __global__ void dynamic(float *p) {

// A kernel whose address escapes: not every launch is known.
__global__ void escaped(float *p) { p[threadIdx.x] = 0.0f; }
// CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: every launch uses a constant block of at most 640 threads{{.*}} [launch-bounds]
// CHECK-MESSAGES: note: no fix: not every launch of the kernel is known: the kernel's address is used other than in <<<>>> launches
void (*kernel_pointer)(float *) = escaped;
void run_escaped(float *p) { escaped<<<1, 640>>>(p); }

int main() {
  int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  saxpy<<<(n + 511) / 512, 512>>>(n, 2.0f, x, y);
  dim3 block(16, 48);
  add<<<n / 768, block>>>(x, x, z, n);
  scale<<<1, 32>>>(z, x);
  small<<<n / 256, 256>>>(z);
  full<<<n / 1024, 1024>>>(z);
  dynamic<<<1, n / 4096>>>(z);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
