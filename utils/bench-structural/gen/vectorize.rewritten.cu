// Benchmark input for memory-vectorize-float4: an element-wise a*x + y.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void axpy(const float *x, const float *y, float *out, float a,
                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  { // cuda-l1 memory-vectorize-float4
    const long long cudal1_threads = (long long)gridDim.x * blockDim.x;
    const long long cudal1_m = (long long)(n) < cudal1_threads ? (long long)(n) : cudal1_threads;
    if (((reinterpret_cast<unsigned long long>(out) | reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15ull) == 0) {
      const long long cudal1_q = cudal1_m > 0 ? cudal1_m / 4 : 0;
      if (i < cudal1_q) {
        const float4 cudal1_x4 = reinterpret_cast<const float4 *>(x)[i];
        const float4 cudal1_y4 = reinterpret_cast<const float4 *>(y)[i];
        float4 cudal1_o4;
        cudal1_o4.x = a * cudal1_x4.x + cudal1_y4.x;
        cudal1_o4.y = a * cudal1_x4.y + cudal1_y4.y;
        cudal1_o4.z = a * cudal1_x4.z + cudal1_y4.z;
        cudal1_o4.w = a * cudal1_x4.w + cudal1_y4.w;
        reinterpret_cast<float4 *>(out)[i] = cudal1_o4;
      }
      if (i >= 4 * cudal1_q && i < cudal1_m)
        out[i] = a * x[i] + y[i];
    } else if (i < n) {
      out[i] = a * x[i] + y[i];
    }
  }
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
