// Matrix transposes: naive, shared-memory without padding, and padded.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(const float *__restrict__ in,
                                float *__restrict__ out, int width,
                                int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[x * height + y] = in[y * width + x];
}

__global__ void transpose_smem(const float *__restrict__ in,
                               float *__restrict__ out, int width) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(const float *__restrict__ in,
                                 float *__restrict__ out, int width) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch(const float *in, float *out, int n) {
  dim3 grid(n / TILE_DIM, n / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  transpose_naive<<<grid, dim3(TILE_DIM, TILE_DIM)>>>(in, out, n, n);
  transpose_smem<<<grid, block>>>(in, out, n);
  transpose_padded<<<grid, block>>>(in, out, n);
}

// CHECK-MESSAGES: transpose.cu:13:5: warning: uncoalesced global store: consecutive threads are 'height' elements apart, so each lane of a warp touches its{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: transpose.cu:27:32: warning: 32-way shared memory bank conflict on load of 'tile': consecutive threads are 32 words apart, so a warp reques{{.*}} [memory-shared-bank-conflict]
// CHECK-MESSAGES: transpose.cu:27:50: note: index of 'tile' in elements: j + 32*threadIdx.x + threadIdx.y
// CHECK-MESSAGES: transpose.cu:49:3: note: block shape 32x8x1 from this launch
