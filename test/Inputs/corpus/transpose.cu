// Matrix transposes: naive and shared-memory tiled (padded against bank
// conflicts).
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

namespace layout {

__global__ void transpose_naive(float *odata, const float *idata, int width,
                                int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transpose_tiled(float *odata, const float *idata, int width,
                                int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

} // namespace layout

void transpose(float *out, const float *in, int w, int h) {
  dim3 grid((w + TILE_DIM - 1) / TILE_DIM, (h + TILE_DIM - 1) / TILE_DIM);
  dim3 block(TILE_DIM, BLOCK_ROWS);
  layout::transpose_naive<<<grid, block>>>(out, in, w, h);
  layout::transpose_tiled<<<grid, block>>>(out, in, w, h);
}
