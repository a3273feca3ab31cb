// Benchmark input for coalescing-transpose-tile: the naive transpose, 16x16
// blocks (coalesced reads, column-strided writes).
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void transpose(const float *in, float *out, int W, int H) {
  // cuda-l1 coalescing-transpose-tile: through a 16x16 shared-memory tile (+1 padding column)
  __shared__ float cudal1_tile[16][16 + 1];
  { // load: coalesced along threadIdx.x
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H)
      cudal1_tile[threadIdx.y][threadIdx.x] = in[y * W + x];
  }
  __syncthreads();
  { // store: each thread takes its transposed partner's element
    int x = blockIdx.x * blockDim.x + threadIdx.y;
    int y = blockIdx.y * blockDim.y + threadIdx.x;
    if (x < W && y < H)
      out[x * H + y] = cudal1_tile[threadIdx.x][threadIdx.y];
  }
}

#ifndef __CUDACC_RTC__
void app_transpose() {
  float *in, *out;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  transpose<<<dim3(4096 / 16, 4096 / 16), dim3(16, 16)>>>(in, out, 4096, 4096);
}
#endif
