// Well-written kernels: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

__global__ void saxpy_grid_stride(int n, float a, const float *__restrict__ x,
                                  float *__restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void copy_float4(const float4 *__restrict__ in,
                            float4 *__restrict__ out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}

__global__ void copy_float4_cast(const float *__restrict__ in,
                                 float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    float4 v = reinterpret_cast<const float4 *>(in)[i];
    reinterpret_cast<float4 *>(out)[i] = v;
  }
}

__inline__ __device__ float warp_reduce(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__global__ void block_sum(const float *__restrict__ in,
                          float *__restrict__ out, int n) {
  __shared__ float partial[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_reduce(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    v = warp_reduce(v);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}

template <int TILE>
__global__ void matmul_tiled(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < N; t += TILE) {
    As[ty][tx] = A[row * N + t + tx];
    Bs[ty][tx] = B[(t + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = acc;
}

__global__ void bias_relu_2d(const float *__restrict__ in,
                             const float *__restrict__ bias,
                             float *__restrict__ out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[r * cols + c] = fmaxf(in[r * cols + c] + bias[c], 0.0f);
}

void launch(const float *a, float *b, float *c, int n) {
  saxpy_grid_stride<<<528, 256>>>(n, 2.0f, a, b);
  copy_float4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)a, (float4 *)b,
                                           n / 4);
  copy_float4_cast<<<(n / 4 + 255) / 256, 256>>>(a, b, n);
  block_sum<<<528, 256>>>(a, b, n);
  matmul_tiled<32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(a, b, c, n);
  bias_relu_2d<<<dim3(n / 32, n / 8), dim3(32, 8)>>>(a, b, c, n, n);
}
