#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *out, const float *in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * a / 2.0 + 0.1;
}

int main() {
  const int n = 4096;
  float *h = new float[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d_out, d_in, 3.0f, n);
  cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", h[7]);
  cudaFree(d_in); cudaFree(d_out); delete[] h;
  return 0;
}
