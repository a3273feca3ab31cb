// Two kernels with one bitwise fix each: the project's "test" (a grep in
// app-test.test) rejects the second, as a real test suite would reject a
// wrong fix.
#include <cuda_runtime.h>
__global__ void half(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] > 0.1 ? x[i] : 0.0f;
}
__global__ void quarter(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] > 0.3 ? y[i] : 0.0f;
}
