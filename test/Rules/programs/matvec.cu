// Naive and good matrix-vector products.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

// One thread per row: lanes walk rows N floats apart (uncoalesced), the
// output element is re-read and re-written every iteration.
__global__ void matvec_row_per_thread(const float *A, const float *x, float *y,
                                      int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N) {
    y[row] = 0.0f;
    for (int k = 0; k < N; ++k)
      y[row] += A[row * N + k] * x[k];
  }
}

// Column-major matrix, one thread per row, register accumulator: good.
__global__ void matvec_colmajor(const float *__restrict__ A,
                                const float *__restrict__ x,
                                float *__restrict__ y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= N)
    return;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[k * N + row] * x[k];
  y[row] = sum;
}

// One warp per row, lanes stride the row, shuffle reduction: good.
__global__ void matvec_warp_per_row(const float *__restrict__ A,
                                    const float *__restrict__ x,
                                    float *__restrict__ y, int N) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= N)
    return;
  float sum = 0.0f;
  for (int k = lane; k < N; k += 32)
    sum += A[row * N + k] * x[k];
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0)
    y[row] = sum;
}

void launch(const float *A, const float *x, float *y, int N) {
  matvec_row_per_thread<<<(N + 255) / 256, 256>>>(A, x, y, N);
  matvec_colmajor<<<(N + 255) / 256, 256>>>(A, x, y, N);
  matvec_warp_per_row<<<(N + 7) / 8, 256>>>(A, x, y, N);
}

// CHECK-MESSAGES: matvec.cu:7:52: warning: pointer parameters 'A', 'x', 'y' are not __restrict__: the compiler must assume they alias, which blocks reord{{.*}} [memory-restrict]
// CHECK-MESSAGES: matvec.cu:13:7: warning: 'y[row]' is loaded from and stored to global memory on every iteration of the loop although its index does not{{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: matvec.cu:12:5: note: the loop
// CHECK-MESSAGES: matvec.cu:13:17: warning: uncoalesced global load: consecutive threads are 'N' elements apart, so each lane of a warp touches its own 32{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: matvec.cu:13:19: note: index of 'A' in elements: 256*blockIdx.x*N + k + N*threadIdx.x; the sector count holds when 'N' elements span{{.*}}
// CHECK-MESSAGES: matvec.cu:48:3: note: block shape 256x1x1 from this launch
