// Benchmark input for coalescing-transpose-tile with a non-square block: the
// naive transpose launched with 32x8 blocks (the shape most hand-written
// transposes use), bounds checked by an early exit.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void transpose32x8(const float *in, float *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  out[x * H + y] = in[y * W + x];
}

#ifndef __CUDACC_RTC__
void app_transpose32x8() {
  float *in, *out;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  transpose32x8<<<dim3(4096 / 32, 4096 / 8), dim3(32, 8)>>>(in, out, 4096, 4096);
}
#endif
