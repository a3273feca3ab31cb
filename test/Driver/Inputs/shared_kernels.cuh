// A header included by two translation units.
#pragma once
#include <cuda_runtime.h>

template <typename T>
__global__ void row_sums(const T *__restrict__ m, T *__restrict__ out,
                         int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  T acc = 0;
  for (int c = 0; c < cols; ++c)
    acc += m[r * cols + c];
  out[r] = acc;
}

template <int TILE>
__global__ void transpose_tile(const float *__restrict__ in,
                               float *__restrict__ out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
