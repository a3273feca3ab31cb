// Naive CUDA kernels as they are often first written: correct, but slow.
// `cuda-l1-rewrite` lists, diagnoses and (where it can prove it) rewrites them.
#include <cuda_runtime.h>
#include <cmath>

// y = A x, one thread per row: each thread walks its own row of a row-major
// matrix, so a warp touches 32 different rows per load (uncoalesced).
__global__ void matvec_rows(const float *A, const float *x, float *y, int rows,
                            int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    y[row] = 0.0f;
    for (int c = 0; c < cols; ++c)
      y[row] += A[row * cols + c] * x[c];
  }
}

// Column sums of a row-major matrix, thread per column: coalesced.
__global__ void column_sums(const float *A, float *sums, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + col];
    sums[col] = s;
  }
}

// Element-wise with a general power function and double-precision literals.
__global__ void energy(const float *v, float *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = 0.5 * powf(v[i], 2.0f) + 1.0 / 3.0;
}

// Tree reduction with a divergent modulo test.
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0)
      s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}

int main() {
  const int rows = 4096, cols = 4096;
  float *A, *x, *y, *sums, *e, *part;
  cudaMalloc(&A, sizeof(float) * rows * cols);
  cudaMalloc(&x, sizeof(float) * cols);
  cudaMalloc(&y, sizeof(float) * rows);
  cudaMalloc(&sums, sizeof(float) * cols);
  cudaMalloc(&e, sizeof(float) * rows * cols);
  cudaMalloc(&part, sizeof(float) * rows * cols / 256);
  matvec_rows<<<rows / 128, 128>>>(A, x, y, rows, cols);
  column_sums<<<cols / 256, 256>>>(A, sums, rows, cols);
  energy<<<rows * cols / 256, 256>>>(A, e, rows * cols);
  block_sum<<<rows * cols / 256, 256>>>(A, part, rows * cols);
  cudaDeviceSynchronize();
  return 0;
}
