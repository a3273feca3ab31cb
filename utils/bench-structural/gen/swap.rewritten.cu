// Benchmark input for coalescing-thread-mapping-swap: a 2-D element-wise
// kernel whose rows are indexed by threadIdx.x (column-strided accesses).
// The launch configuration is rewritten too, so the driver launches through
// launch_scale2d() of the original and of the rewritten file.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void scale2d(const float *in, float *out, int W, int H, float a) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < H && c < W)
    out[r * W + c] = a * in[r * W + c] + 1.0f;
}

#ifndef __CUDACC_RTC__
void launch_scale2d(const float *in, float *out) {
  dim3 block(32, 8);
  dim3 grid(4096 / 32, 4096 / 8);
  scale2d<<<dim3(((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (grid).y * (block).y / (block).x : (grid).y, ((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (grid).x * (block).x / (block).y : (grid).x, (grid).z), dim3(((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (block).x : (block).y, ((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (block).y : (block).x, (block).z)>>>(in, out, 4096, 4096, 3.0f);
}
#endif
