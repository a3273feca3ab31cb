// A __host__ __device__ helper with double math on float data, called by a
// kernel and by host code: --verify=run verifies only the device side, so
// the fix is not a candidate.
#include <cmath>
#include <cstdio>

__host__ __device__ float damp(float v) { return v * exp(v * 0.5); }

__global__ void apply(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = damp(in[i]);
}

int main() {
  const int n = 1 << 20;
  float *din, *dout;
  cudaMalloc(&din, n * sizeof(float));
  cudaMalloc(&dout, n * sizeof(float));
  cudaMemset(din, 0, n * sizeof(float));
  apply<<<(n + 255) / 256, 256>>>(din, dout, n);
  printf("%f\n", damp(0.25f));
  return cudaDeviceSynchronize() != cudaSuccess;
}
