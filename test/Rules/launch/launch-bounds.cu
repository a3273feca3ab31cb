// launch-bounds: a kernel launched only with constant blocks of N > 256
// threads whose compiled register count (NVRTC) exceeds what such a block can
// have gets __launch_bounds__(N); a kernel that already fits is not reported.
// REQUIRES: nvrtc
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context; ptxas keeps the bounded kernels within their budget.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -cubin -Xptxas -v %t/t.cu -o %t/t.cubin 2>&1 | FileCheck --check-prefix=PTXAS %s %}
// With nvcc's register cap in the compile command (kept by the command
// translation), the kernels fit and nothing is reported.
// RUN: cp %s %t/cap.cu
// RUN: printf '[{"directory": "%t", "file": "cap.cu", "command": "nvcc -arch=sm_90 -maxrregcount=64 -c cap.cu"}]' > %t/compile_commands.json
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --format=json -p %t %t/cap.cu | FileCheck %s --check-prefix=CAP
// CAP: "findings": []
// RUN: %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// LIVE values live at once: for sm_90, LIVE = 96 needs about 158
// registers per thread, 72 about 120, 48 about 72.
template <int LIVE>
__device__ __forceinline__ void churn(const float *in, float *out, int n,
                                      int t) {
  float r[LIVE];
#pragma unroll
  for (int k = 0; k < LIVE; ++k)
    r[k] = in[t + k * n];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < LIVE; ++k)
    s += r[k] * r[LIVE - 1 - k];
#pragma unroll
  for (int k = 0; k < LIVE; ++k)
    out[t + k * n] = r[k] * s + r[(k * 7) % LIVE];
}

// Blocks of 512 threads have 128 registers per thread: the kernel needs
// more, so its launches fail until the bound makes ptxas fit it.
__global__ void heavy(const float *in, float *out, int n) {
  churn<96>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:17: warning: compiled for sm_90, the kernel needs {{1[3-9][0-9]|2[0-5][0-9]}} registers per thread, but a block of 512 threads can have at most 128: its launches with 512 threads fail ('too many resources requested for launch'); '__launch_bounds__(512)' makes the compiler fit it [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(512) heavy(const float *in, float *out, int n) {
// PTXAS: Compiling entry function '_Z5heavyPKfPfi'
// PTXAS-NEXT: Function properties
// PTXAS: Used {{[0-9]|[0-9][0-9]|1[01][0-9]|12[0-8]}} registers

// A dim3 block of 16 x 48 = 768 threads: 24 warps, 80 registers each
// (registers go to warps in units of 256).
__global__ void heavy2d(const float *in, float *out, int n) {
  churn<96>(in, out, n, blockIdx.x * 768 + threadIdx.y * 16 + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:17: warning: compiled for sm_90, the kernel needs {{[0-9]+}} registers per thread, but a block of 768 threads can have at most 80{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(768) heavy2d(const float *in, float *out, int n) {

// Not reported: blocks of 512 threads, and a kernel that needs far fewer
// than 128 registers. Every launch already runs; the bound would only move
// ptxas's heuristics, which nothing here can show to help.
__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK-FIXES: __global__ void saxpy(int n, float a, float *x, float *y) {

// Not reported: blocks of at most 256 threads. __launch_bounds__(256)
// allows 256 registers per thread, more than a thread can have: the bound
// changes nothing.
__global__ void small(const float *in, float *out, int n) {
  churn<96>(in, out, n, threadIdx.x);
}
// CHECK-FIXES: __global__ void small(const float *in, float *out, int n) {

// Blocks whose warp count is not a multiple of 4: 544 threads are 17
// warps, counted as 20 (one group per SM sub-partition), 96 registers each,
// not 120.
__global__ void mid544(const float *in, float *out, int n) {
  churn<72>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:17: warning: compiled for sm_90, the kernel needs {{9[7-9]|1[0-9][0-9]}} registers per thread, but a block of 544 threads can have at most 96{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(544) mid544(const float *in, float *out, int n) {

// A block of 1024 threads has 64 registers per thread; without the bound
// ptxas may use up to 255.
__global__ void full_heavy(const float *in, float *out, int n) {
  churn<48>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:17: warning: compiled for sm_90, the kernel needs {{6[5-9]|[7-9][0-9]|1[0-9][0-9]}} registers per thread, but a block of 1024 threads can have at most 64{{.*}} [launch-bounds]
// CHECK-FIXES: __global__ void __launch_bounds__(1024) full_heavy(const float *in, float *out, int n) {

// Each instantiation of a template against its own launches: the heavy
// one launched with 256 threads and the light one with 512 both run (not
// reported); the heavy one launched with 512 threads is named.
template <int L> __global__ void tinst(const float *in, float *out, int n) {
  churn<L>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
template <int L> __global__ void tfail(const float *in, float *out, int n) {
  churn<L>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:34: warning: compiled for sm_90, 'tfail<96>' needs {{1[3-9][0-9]|2[0-5][0-9]}} registers per thread, but a block of 512 threads can have at most 128{{.*}} [launch-bounds]
// CHECK-FIXES: template <int L> __global__ void tinst(const float *in, float *out, int n) {
// CHECK-FIXES: template <int L> __global__ void __launch_bounds__(512) tfail(const float *in, float *out, int n) {
// CHECK-FIXES: static __global__ void __launch_bounds__(512) stinst(const float *in, float *out, int n) {

// A static template: clang and NVRTC mangle its instantiations differently,
// so a launch is checked against the most any instantiation needs, and a
// note says so.
template <int L>
static __global__ void stinst(const float *in, float *out, int n) {
  churn<L>(in, out, n, blockIdx.x * blockDim.x + threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:24: warning: compiled for sm_90, 'stinst<96>' needs {{[0-9]+}} registers per thread, but a block of 512 threads can have at most 128{{.*}} [launch-bounds]
// CHECK-MESSAGES: note: the instantiation this launch runs could not be matched to the compiled ones; the count is the most any instantiation needs

// Not reported: a light kernel with blocks of 1024, and a block that is not
// constant.
__global__ void full(float *p) { p[threadIdx.x] = 2.0f; }
__global__ void dynamic(const float *in, float *out, int n) {
  churn<96>(in, out, n, threadIdx.x);
}
// CHECK-FIXES: __global__ void full(float *p) {
// CHECK-FIXES: __global__ void dynamic(const float *in, float *out, int n) {

// A kernel whose address escapes: not every launch is known.
__global__ void escaped(const float *in, float *out, int n) {
  churn<96>(in, out, n, threadIdx.x);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:17: warning: compiled for sm_90, the kernel needs {{[0-9]+}} registers per thread, but a block of 640 threads can have at most 96{{.*}} [launch-bounds]
// CHECK-MESSAGES: note: no fix: not every launch of the kernel is known: the kernel's address is used other than in <<<>>> launches
void (*kernel_pointer)(const float *, float *, int) = escaped;
void run_escaped(const float *in, float *out, int n) {
  escaped<<<1, 640>>>(in, out, n);
}

int main() {
  int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  cudaMalloc(&x, 96 * n * sizeof(float));
  cudaMalloc((void **)&y, 96 * n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  heavy<<<n / 512, 512>>>(x, y, n);
  dim3 block(16, 48);
  heavy2d<<<n / 768, block>>>(x, y, n);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  saxpy<<<(n + 511) / 512, 512>>>(n, 2.0f, x, y);
  small<<<n / 256, 256>>>(x, y, n);
  full<<<n / 1024, 1024>>>(z);
  mid544<<<n / 544, 544>>>(x, y, n);
  full_heavy<<<n / 1024, 1024>>>(x, y, n);
  tinst<96><<<n / 256, 256>>>(x, y, n);
  tinst<2><<<n / 512, 512>>>(x, y, n);
  tfail<96><<<n / 512, 512>>>(x, y, n);
  tfail<2><<<n / 256, 256>>>(x, y, n);
  stinst<96><<<n / 512, 512>>>(x, y, n);
  stinst<2><<<n / 256, 256>>>(x, y, n);
  dynamic<<<1, n / 4096>>>(x, y, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
