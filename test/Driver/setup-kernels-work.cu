// Setup kernels (setup-kernels.cu): a kernel launched once is setup code
// only if its loop nest is shallower than that of a kernel launched in a
// loop plus the host loops around that launch (grid-stride loops not
// counted). A triangular solve's forward substitution, launched once with
// two nested loops per thread, is half the work next to a host loop of
// back-substitution rows (one loop per thread, n launches): it is reported.
// The clearing kernel launched once, without a loop, is setup code. A
// kernel launched <<<1, 1>>> runs its loops serially: one level more (the
// one-thread sum is reported; the one-thread flag, without a loop, is not).
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

__global__ void forward(const float *L, const float *B, float *Y, int n, int m) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= m)
    return;
  for (int i = 0; i < n; i++) {
    float s = B[i * m + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * powf(Y[k * m + c], 2.0f);
// CHECK: setup-kernels-work.cu:[[@LINE-1]]:27: warning: {{.*}}[algebraic-powf-square]
    Y[i * m + c] = s / L[i * n + i];
  }
}

__global__ void backward_row(const float *U, float *X, int row, int n, int m) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= m)
    return;
  float s = X[row * m + c];
  for (int k = row + 1; k < n; k++)
    s -= U[row * n + k] * powf(X[k * m + c], 2.0f);
// CHECK: setup-kernels-work.cu:[[@LINE-1]]:27: warning: {{.*}}[algebraic-powf-square]
  X[row * m + c] = s / U[row * n + row];
}

__global__ void clear(float *X, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total)
    X[i] = powf(X[i], 2.0f) * 0.0f;
}

__global__ void total(const float *X, float *out, int count) {
  float s = 0.0f;
  for (int i = 0; i < count; i++)
    s += powf(X[i], 2.0f);
// CHECK: setup-kernels-work.cu:[[@LINE-1]]:10: warning: {{.*}}[algebraic-powf-square]
  *out = s;
}

__global__ void flag(float *out) { *out = powf(out[1], 2.0f); }

int main() {
  const int n = 2048, m = 2048;
  float *L, *U, *B, *X;
  cudaMalloc(&L, n * n * sizeof(float));
  cudaMalloc(&U, n * n * sizeof(float));
  cudaMalloc(&B, n * m * sizeof(float));
  cudaMalloc(&X, n * m * sizeof(float));
  clear<<<(n * m + 255) / 256, 256>>>(X, n * m);
  forward<<<(m + 255) / 256, 256>>>(L, B, X, n, m);
  for (int row = n - 1; row >= 0; row--)
    backward_row<<<(m + 255) / 256, 256>>>(U, X, row, n, m);
  total<<<1, 1>>>(X, B, n * m);
  flag<<<dim3(1), dim3(1)>>>(B);
  cudaDeviceSynchronize();
  return 0;
}
