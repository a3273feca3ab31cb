// Benchmark input for memory-vectorize-float4: an element-wise a*x + y.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void axpy(const float *x, const float *y, float *out, float a,
                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + y[i];
}

#ifndef __CUDACC_RTC__
void app_axpy() {
  float *x, *y, *out;
  cudaMalloc(&x, 4096 * 4096 * sizeof(float));
  cudaMalloc(&y, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  axpy<<<4096 * 4096 / 256, 256>>>(x, y, out, 2.0f, 4096 * 4096);
}
#endif
