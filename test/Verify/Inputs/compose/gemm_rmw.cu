// A matrix product accumulated in global memory, one output per thread:
// memory-register-accumulation rewrites it in round 1, coalescing-matmul-tile
// tiles the register form in round 2; --verify=run verifies the composition.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 512

__global__ void gemm_rmw(int n, float alpha, float beta, const float *a,
                         const float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    c[i * n + j] *= beta;
    for (int k = 0; k < n; k++)
      c[i * n + j] += alpha * a[i * n + k] * b[k * n + j];
  }
}

int main() {
  size_t bytes = sizeof(float) * N * N;
  float *ha = (float *)malloc(bytes), *hb = (float *)malloc(bytes),
        *hc = (float *)malloc(bytes);
  for (int i = 0; i < N * N; i++) {
    ha[i] = (float)(i % 7) - 3.0f;
    hb[i] = (float)(i % 5) - 2.0f;
    hc[i] = 1.0f;
  }
  float *a, *b, *c;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMalloc(&c, bytes);
  cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc, bytes, cudaMemcpyHostToDevice);
  dim3 block(32, 8);
  dim3 grid((N + block.x - 1) / block.x, (N + block.y - 1) / block.y);
  gemm_rmw<<<grid, block>>>(N, 1.0f, 0.5f, a, b, c);
  cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost);
  // Small integers: the sums are exact in float.
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i += 61)
    for (int j = 0; j < N; j += 37) {
      double s = 0.5;
      for (int k = 0; k < N; k++)
        s += (double)ha[i * N + k] * hb[k * N + j];
      if (hc[i * N + j] != (float)s)
        bad++;
    }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
