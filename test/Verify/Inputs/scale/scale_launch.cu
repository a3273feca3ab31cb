// A launch site with constant values: the harness is inferred from it.
#include <cuda_runtime.h>
__global__ void scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}
int main() {
  float *x, *y;
  cudaMalloc(&x, (1 << 22) * sizeof(float));
  cudaMalloc(&y, (1 << 22) * sizeof(float));
  scale<<<16384, 256>>>(x, y, 2.0f, 1 << 22);
  cudaDeviceSynchronize();
  return 0;
}
