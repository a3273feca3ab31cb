// Benchmark input for coalescing-transpose-tile with a non-square block: the
// naive transpose launched with 32x8 blocks (the shape most hand-written
// transposes use), bounds checked by an early exit.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void transpose32x8(const float *in, float *out, int W, int H) {
  // cuda-l1 coalescing-transpose-tile: through a 32x8 shared-memory tile (+4 padding columns)
  __shared__ float cudal1_tile[8][32 + 4];
  { // load: coalesced along threadIdx.x
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (!(x >= W || y >= H))
      cudal1_tile[threadIdx.y][threadIdx.x] = in[y * W + x];
  }
  __syncthreads();
  { // store: thread l takes the role of thread (l / 8, l % 8): runs of 8 contiguous output elements
    const unsigned cudal1_lane = threadIdx.y * 32 + threadIdx.x;
    int x = blockIdx.x * blockDim.x + (cudal1_lane / 8);
    int y = blockIdx.y * blockDim.y + (cudal1_lane % 8);
    if (!(x >= W || y >= H))
      out[x * H + y] = cudal1_tile[(cudal1_lane % 8)][(cudal1_lane / 8)];
  }
}

#ifndef __CUDACC_RTC__
void app_transpose32x8() {
  float *in, *out;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  transpose32x8<<<dim3(4096 / 32, 4096 / 8), dim3(32, 8)>>>(in, out, 4096, 4096);
}
#endif
