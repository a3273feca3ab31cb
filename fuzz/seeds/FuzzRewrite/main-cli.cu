// The structural rules inside cuda-l1-rewrite: --fix applies their proven
// bitwise fixes together with the other rules' fixes (launch bounds,
// restrict, unroll pragmas), and the result compiles. The shared-memory
// staging of the row walk is offered for GPU verification only (it measured
// slower on an H200), so --fix without a GPU leaves the row loop alone.
// RUN: cp %s %t.cu
// RUN: %cuda-l1-rewrite --fix %t.cu > %t.log 2>&1 || true
// RUN: grep -v "// CHECK" %t.cu | FileCheck %s --implicit-check-not=cudal1_tile[threadIdx.x][k
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
#include <cuda_runtime.h>

__global__ void matvec(const float *A, const float *x, float *y, int M,
                       int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}
// CHECK: if (row < M) {
// CHECK: sum += A[row * N + k] * x[k];

__global__ void transpose(const float *in, float *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[x * H + y] = in[y * W + x];
}
// CHECK: // cuda-l1 coalescing-transpose-tile
// CHECK: out[x * H + y] = cudal1_tile[threadIdx.x][threadIdx.y];

int main() {
  float *A, *x, *y, *t;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaMalloc(&y, 4096 * sizeof(float));
  cudaMalloc(&t, 4096 * 4096 * sizeof(float));
  matvec<<<(4096 + 255) / 256, 256>>>(A, x, y, 4096, 4096);
  transpose<<<dim3(256, 256), dim3(16, 16)>>>(A, t, 4096, 4096);
  return 0;
}
