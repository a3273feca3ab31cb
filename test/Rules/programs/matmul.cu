// Naive matrix products (one with the thread index in the slow dimension)
// and a tiled shared-memory product that must produce no finding.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>
#define TILE 16

// threadIdx.x picks the row: A and C are walked down columns.
__global__ void matmul_swapped(const float *A, const float *B, float *C,
                               int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < N && col < N) {
    for (int k = 0; k < N; ++k)
      C[row * N + col] += A[row * N + k] * B[k * N + col];
  }
}

// Conventional naive product: coalesced, register accumulator.
__global__ void matmul_naive(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// Tiled with shared memory: good.
__global__ void matmul_tiled(const float *__restrict__ A,
                             const float *__restrict__ B,
                             float *__restrict__ C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < N / TILE; ++t) {
    As[ty][tx] = A[row * N + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

void launch(const float *A, const float *B, float *C, int N) {
  dim3 block(TILE, TILE);
  dim3 grid(N / TILE, N / TILE);
  matmul_swapped<<<grid, block>>>(A, B, C, N);
  matmul_naive<<<grid, block>>>(A, B, C, N);
  matmul_tiled<<<grid, block>>>(A, B, C, N);
}

// CHECK-MESSAGES: matmul.cu:8:45: warning: pointer parameters 'A', 'B', 'C' are not __restrict__: the compiler must assume they alias, which blocks reord{{.*}} [memory-restrict]
// CHECK-MESSAGES: matmul.cu:14:7: warning: uncoalesced global read-modify-write: consecutive threads are 'N' elements apart, so each lane of a warp touch{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: matmul.cu:14:7: warning: 'C[row * N + col]' is loaded from and stored to global memory on every iteration of the loop although its inde{{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: matmul.cu:13:5: note: the loop
// CHECK-MESSAGES: matmul.cu:14:27: warning: uncoalesced global load: consecutive threads are 'N' elements apart, so each lane of a warp touches its own 32{{.*}} [coalescing-uncoalesced-access]
