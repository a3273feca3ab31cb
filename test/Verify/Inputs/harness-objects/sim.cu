// The methods that launch: their sizes are the members of the object they
// are called on in main.cu.
#include "sim.h"

__global__ void step(float *x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = s * x[i] + 1.0f;
}

__global__ void grow(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 0.0f;
}

void Sim::Start() {
  int n = get_n();
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  step<<<(n + 255) / 256, 256>>>(x, n, get_scale());
  cudaFree(x);
}

void Sim::Grow() {
  set_n(2 * get_n());
  int n = get_n();
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  grow<<<(n + 255) / 256, 256>>>(x, n);
  cudaFree(x);
}
