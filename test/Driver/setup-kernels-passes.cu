// Setup kernels (setup-kernels.cu): loops of passes whose count halves
// or doubles each time (a reduction's `n = (n + 255) / 256`, a scan's
// `offset *= 2`) do not make a kernel launched once beside them setup
// code: the heavy kernel here runs once and the passes a logarithmic
// number of times.
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

__global__ void heavy(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = powf(a[i], 2.0f);
// CHECK: setup-kernels-passes.cu:[[@LINE-1]]:12: warning: {{.*}}[algebraic-powf-square]
}

__global__ void reduce(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[i / 256], powf(in[i], 2.0f));
// CHECK: setup-kernels-passes.cu:[[@LINE-1]]:30: warning: {{.*}}[algebraic-powf-square]
}

__global__ void scan_step(const float *in, float *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i >= offset ? in[i] + powf(in[i - offset], 2.0f) : in[i];
// CHECK: setup-kernels-passes.cu:[[@LINE-1]]:36: warning: {{.*}}[algebraic-powf-square]
}

int main() {
  int n = 1 << 20;
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  heavy<<<(n + 255) / 256, 256>>>(a, n);
  while (n > 1) {
    reduce<<<(n + 255) / 256, 256>>>(a, b, n);
    float *t = a; a = b; b = t;
    n = (n + 255) / 256;
  }
  for (int offset = 1; offset < (1 << 20); offset *= 2)
    scan_step<<<4096, 256>>>(a, b, offset, 1 << 20);
  cudaDeviceSynchronize();
  return 0;
}
