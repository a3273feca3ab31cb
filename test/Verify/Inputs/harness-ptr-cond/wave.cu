// Ping-pong buffers chosen with `?:` at the launch (HeCBench iso2dfd's
// `(k % 2) ? d_prev : d_next`).
#include <cuda_runtime.h>
#include <cstdlib>

__global__ void step(float *next, const float *prev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    next[i] = 0.5f * (prev[i - 1] + prev[i + 1]);
}

__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

__global__ void clear(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0.0f;
}

int main(int argc, char **argv) {
  const int n = 1 << 16;
  float *d_a, *d_b, *d_small, *h = (float *)malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++)
    h[i] = float(i);
  cudaMalloc(&d_a, sizeof(float) * n);
  cudaMalloc(&d_b, sizeof(float) * n);
  cudaMalloc(&d_small, sizeof(float) * 1024);
  cudaMemcpy(d_a, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  for (int k = 0; k < 10; k++)
    step<<<n / 256, 256>>>((k % 2) ? d_a : d_b, (k % 2) ? d_b : d_a, n);
  // A condition the tool cannot evaluate: the smaller buffer stands for
  // both (the program passes either, so the kernel's accesses fit it).
  fill<<<4, 256>>>(argc > 1 ? d_a : d_small, 1024);
  // A side that is not an allocation the tool follows.
  float *d_lost = (float *)argv;
  clear<<<4, 256>>>(argc > 2 ? d_lost : d_a, 1024);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_small);
  free(h);
  return 0;
}
