// Setup kernels: in a program that launches a kernel in a loop, a kernel
// launched once (outside every loop, in functions not called in one) is
// setup code, and no rule reports it or the device functions only it
// calls (docs/advise.md, "Setup kernels"). The option IncludeSetupKernels
// (per rule, or `*.` for all) reports them again.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square,launch-small-grid' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning}}:'
// RUN: printf 'CheckOptions:\n  "*.IncludeSetupKernels": true\n' > %t/all.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/all.yaml --rules='-*,algebraic-powf-square,launch-small-grid' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,ALL --implicit-check-not='{{warning}}:'
// Per rule: only that rule's setup findings come back.
// RUN: printf 'CheckOptions:\n  launch-small-grid.IncludeSetupKernels: true\n' > %t/grid.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/grid.yaml --rules='-*,algebraic-powf-square,launch-small-grid' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GRID --implicit-check-not='{{warning}}:'
// RUN: printf 'CheckOptions:\n  algebraic-powf-square.IncludeSetupKernels: true\n' > %t/square.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/square.yaml --rules='-*,algebraic-powf-square,launch-small-grid' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SQUARE --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

// Called only by the setup kernel: setup code too.
__device__ float init_value(float x) { return powf(x, 2.0f); }
// ALL: t.cu:[[@LINE-1]]:47: warning: {{.*}}[algebraic-powf-square]
// SQUARE: t.cu:[[@LINE-2]]:47: warning: {{.*}}[algebraic-powf-square]

// Called by both kernels: reported.
__device__ float shared_value(float x) { return powf(x, 2.0f); }
// CHECK: t.cu:[[@LINE-1]]:49: warning: {{.*}}[algebraic-powf-square]

__global__ void init(float *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    a[i] = powf(a[i], 2.0f) + init_value(a[i]) + shared_value(a[i]);
// ALL: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
// SQUARE: t.cu:[[@LINE-2]]:12: warning: {{.*}}[algebraic-powf-square]
}

__global__ void step(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f) * 0.5f + shared_value(a[i]);
// CHECK: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
}

// Launched once, from a function main calls once: setup.
__global__ void finish(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f);
// ALL: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
// SQUARE: t.cu:[[@LINE-2]]:12: warning: {{.*}}[algebraic-powf-square]
}

void run_finish(float *a, int n) { finish<<<(n + 255) / 256, 256>>>(a, n); }

// Launched once per call of a function that main calls in a loop: not
// setup.
__global__ void update(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f) - 1.0f;
// CHECK: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
}

void run_update(float *a, int n) { update<<<(n + 255) / 256, 256>>>(a, n); }

// Its address is taken: it may be launched anywhere, so it is not setup.
__global__ void by_pointer(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f) + 2.0f;
// CHECK: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
}

// Launched once here, and in a loop by a template whose call of it is not
// resolved in the template's own text (an overload set): not setup.
__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f) + 3.0f;
// CHECK: t.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
}
__global__ void fill(double *a, int n) {}

template <typename T> void run_fill(T *a, int n) {
  for (int r = 0; r < 10; ++r)
    fill<<<(n + 255) / 256, 256>>>(a, n);
}

int main() {
  const int n = 1 << 20;
  float *a;
  cudaMalloc(&a, n * sizeof(float));
  void (*kernel)(float *, int) = by_pointer;
  kernel<<<1024, 256>>>(a, n);
  // A launch of the setup kernel: its launch finding goes too.
  init<<<8, 256>>>(a, n);
// GRID: t.cu:[[@LINE-1]]:3: warning: grid of 8 blocks{{.*}}[launch-small-grid]
// ALL: t.cu:[[@LINE-2]]:3: warning: grid of 8 blocks{{.*}}[launch-small-grid]
  for (int t = 0; t < 100; ++t) {
    step<<<(n + 255) / 256, 256>>>(a, n);
    run_update(a, n);
  }
  run_finish(a, n);
  fill<<<(n + 255) / 256, 256>>>(a, n);
  run_fill(a, n);
  cudaDeviceSynchronize();
  cudaFree(a);
  return 0;
}
