// Row-wise softmax and layer normalisation: one thread per row (naive),
// and one block per row (good).
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_row_per_thread(const float *in, float *out,
                                       int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float m = -INFINITY;
  for (int j = 0; j < cols; ++j)
    m = fmaxf(m, in[row * cols + j]);
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j)
    sum += expf(in[row * cols + j] - m);
  for (int j = 0; j < cols; ++j)
    out[row * cols + j] = expf(in[row * cols + j] - m) / sum;
}

__global__ void layernorm_naive(const float *x, const float *mean,
                                const float *var, float *y, int cols) {
  int row = blockIdx.x;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[row * cols + j] = (x[row * cols + j] - mean[row]) /
                        sqrt(var[row] + 1e-5);
}

__global__ void softmax_block_per_row(const float *__restrict__ in,
                                      float *__restrict__ out, int cols) {
  __shared__ float red[32];
  const float *x = in + (size_t)blockIdx.x * cols;
  float *y = out + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    m = fmaxf(m, x[j]);
  for (int off = 16; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  if (threadIdx.x % 32 == 0)
    red[threadIdx.x / 32] = m;
  __syncthreads();
  m = red[0];
  for (int w = 1; w < blockDim.x / 32; ++w)
    m = fmaxf(m, red[w]);
  float s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += __expf(x[j] - m);
  for (int off = 16; off > 0; off >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, off);
  __syncthreads();
  if (threadIdx.x % 32 == 0)
    red[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < blockDim.x / 32; ++w)
    s += red[w];
  const float inv = 1.0f / s;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    y[j] = __expf(x[j] - m) * inv;
}

void launch(const float *in, float *out, const float *mean, const float *var,
            int rows, int cols) {
  softmax_row_per_thread<<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
  layernorm_naive<<<rows, 256>>>(in, mean, var, out, cols);
  softmax_block_per_row<<<rows, 256>>>(in, out, cols);
}

// CHECK-MESSAGES: softmax.cu:7:53: warning: pointer parameters 'in', 'out' are not __restrict__: the compiler must assume they alias, which blocks reorder{{.*}} [memory-restrict]
// CHECK-MESSAGES: softmax.cu:14:18: warning: uncoalesced global load: consecutive threads are 'cols' elements apart, so each lane of a warp touches its own{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: softmax.cu:19:5: warning: uncoalesced global store: consecutive threads are 'cols' elements apart, so each lane of a warp touches its ow{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: softmax.cu:19:56: warning: division by loop-invariant 'sum' inside a loop (1 division); a reciprocal computed once before the loop turns{{.*}} [algebraic-reciprocal-hoist]
// CHECK-MESSAGES: softmax.cu:18:3: note: the loop in which 'sum' does not change
// CHECK-MESSAGES: softmax.cu:26:46: warning: 'mean[row]' is loaded from global memory in every iteration of the loop although its index does not change; on{{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: softmax.cu:25:3: note: the loop
// CHECK-MESSAGES: softmax.cu:27:25: warning: 'sqrt' computes in double: its argument is float data made double by the double constant '1e-5' (FP64 runs at 1/2 to 1/64 of the FP32 rate); with float constants it is 'sqrtf' [algebraic-float-math]
// CHECK-MESSAGES: softmax.cu:27:30: warning: 'var[row]' is loaded from global memory in every iteration of the loop although its index does not change; one{{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: softmax.cu:25:3: note: the loop
