// Row softmax (one warp per row) and layer normalization.
#include <cuda_runtime.h>
#include <cfloat>
#include <cmath>
#include "include/cl_common.cuh"

struct LayerNormParams {
  int rows, cols;
  float eps;
  const float *gamma;
  const float *beta;
};

constexpr int kRowsPerBlock = 4;

__global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ y,
                             int rows, int cols) {
  int row = blockIdx.x * kRowsPerBlock + threadIdx.y;
  if (row >= rows)
    return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += WARP_SIZE)
    m = fmaxf(m, xr[c]);
  m = cl::detail::warp_reduce_max(m);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += WARP_SIZE)
    s += __expf(xr[c] - m);
  s = cl::detail::warp_reduce_sum(s);
  float inv = 1.0f / fmaxf(s, FLT_MIN);
  for (int c = threadIdx.x; c < cols; c += WARP_SIZE)
    yr[c] = __expf(xr[c] - m) * inv;
}

__global__ void layernorm(const float *__restrict__ x, float *__restrict__ y,
                          LayerNormParams p) {
  __shared__ float scratch[WARP_SIZE];
  __shared__ float stats[2];
  int row = blockIdx.x;
  const float *xr = x + (size_t)row * p.cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x)
    sum += xr[c];
  sum = cl::detail::block_reduce_sum(sum, scratch);
  if (threadIdx.x == 0)
    stats[0] = sum / p.cols;
  __syncthreads();
  float mean = stats[0], var = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) {
    float d = xr[c] - mean;
    var += d * d;
  }
  __syncthreads();
  var = cl::detail::block_reduce_sum(var, scratch);
  if (threadIdx.x == 0)
    stats[1] = rsqrtf(var / p.cols + p.eps);
  __syncthreads();
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x)
    y[(size_t)row * p.cols + c] = (xr[c] - mean) * stats[1] * p.gamma[c] + p.beta[c];
}

void normalize(const float *x, float *y, const float *g, const float *b, int rows, int cols) {
  softmax_rows<<<CEIL_DIV(rows, kRowsPerBlock), dim3(WARP_SIZE, kRowsPerBlock)>>>(x, y, rows, cols);
  LayerNormParams p{rows, cols, 1e-5f, g, b};
  layernorm<<<rows, 256>>>(x, y, p);
}
