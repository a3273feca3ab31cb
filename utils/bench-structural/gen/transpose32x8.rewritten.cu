// Benchmark input for coalescing-transpose-tile with a non-square block: the
// naive transpose launched with 32x8 blocks (the shape most hand-written
// transposes use), bounds checked by an early exit.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void transpose32x8(const float *in, float *out, int W, int H) {
  // cuda-l1 coalescing-transpose-tile: through a 32x32 shared-memory tile (+1 padding column), 4 of the 32x8 blocks along y in each block
  __shared__ float cudal1_tile[32][32 + 1];
  // rows of the original threads per block: 32 with 32x8 blocks, 8 with 32x2 blocks (the launch's choice)
  const unsigned cudal1_tshift = blockDim.y == 8 ? 5 : 3;
  #pragma unroll
  for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // load: coalesced along threadIdx.x
    const unsigned cudal1_q = threadIdx.y + cudal1_k * blockDim.y;
    const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = cudal1_by * 8u + cudal1_ty;
    if (!(x >= W || y >= H))
      cudal1_tile[cudal1_q][threadIdx.x] = in[y * W + x];
  }
  __syncthreads();
  #pragma unroll
  for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // store: consecutive lanes take consecutive output elements of a tile column
    const unsigned cudal1_e = (threadIdx.y + cudal1_k * blockDim.y) * 32 + threadIdx.x;
    const unsigned cudal1_q = cudal1_e & ((1u << cudal1_tshift) - 1u), cudal1_c = cudal1_e >> cudal1_tshift;
    const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
    int x = blockIdx.x * blockDim.x + cudal1_c;
    int y = cudal1_by * 8u + cudal1_ty;
    if (!(x >= W || y >= H))
      out[x * H + y] = cudal1_tile[cudal1_q][cudal1_c];
  }
}

#ifndef __CUDACC_RTC__
void app_transpose32x8() {
  float *in, *out;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  transpose32x8<<<dim3((dim3(4096 / 32, 4096 / 8)).x, ((dim3(4096 / 32, 4096 / 8)).y % 4 == 0) ? (dim3(4096 / 32, 4096 / 8)).y / 4 : (dim3(4096 / 32, 4096 / 8)).y, (dim3(4096 / 32, 4096 / 8)).z), dim3((dim3(32, 8)).x, ((dim3(4096 / 32, 4096 / 8)).y % 4 == 0) ? (dim3(32, 8)).y : (dim3(32, 8)).y / 4, (dim3(32, 8)).z)>>>(in, out, 4096, 4096);
}
#endif
