// An original with a launch site whose values are constants: the harness is
// inferred from it (grid 4, block 256, a = 2.0f, n = 1024).
#include <cuda_runtime.h>
__global__ void saxpy(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  saxpy<<<4, 256>>>(x, y, 2.0f, 1024);
  cudaDeviceSynchronize();
  return 0;
}
