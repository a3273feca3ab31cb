// Naive transpose: reads coalesced, writes strided.
#include <cuda_runtime.h>
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

void run(const float *in, float *out, int n, cudaStream_t s) {
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  dim3 block(TILE, ROWS);
  transpose<<<grid, block, 0, s>>>(in, out, n);
}
