// Vector kernels launched through host wrappers that take the size as a
// parameter; sizes, element type and the error check come from config.h.
#include "config.h"
#include <cmath>

// 'in' is not const, but the kernel only reads it: an input.
__global__ void scale(REAL *out, REAL *in, REAL alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = alpha * in[i] / 4.0f;
}

// 'acc' is read and written: in/out.
__global__ void accumulate(REAL *acc, const REAL *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += x[i];
}

// 'flags' is only written: an output.
__global__ void mark_positive(int *flags, const REAL *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    flags[i] = x[i] > 0 ? 1 : 0;
}

void run_scale(REAL *d_out, REAL *d_in, REAL alpha, int n) {
  dim3 block(THREADS);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), 1);
  scale<<<grid, block>>>(d_out, d_in, alpha, n);
  CHECK(cudaGetLastError());
}

static void run_accumulate(REAL *acc, const REAL *x, int count) {
  int blocks = (count + THREADS - 1) / THREADS;
  accumulate<<<blocks, THREADS>>>(acc, x, count);
}

int main() {
  const int n = NUM_ELEMS;
  size_t bytes = n * sizeof(REAL);
  REAL *h_x = (REAL *)std::malloc(bytes);
  for (int i = 0; i < n; ++i)
    h_x[i] = std::sin(i * 0.001f);
  REAL *d_x, *d_y, *d_acc;
  int *d_flags;
  CHECK(cudaMalloc((void **)&d_x, bytes));
  CHECK(cudaMalloc(&d_y, bytes));
  CHECK(cudaMalloc((void **) &d_acc, bytes));
  CHECK(cudaMalloc(&d_flags, n * sizeof(int)));
  CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_acc, 0, bytes));
  run_scale(d_y, d_x, 0.5f, n);
  run_accumulate(d_acc, d_y, n);
  mark_positive<<<n / THREADS, THREADS>>>(d_flags, d_acc, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_acc));
  CHECK(cudaFree(d_flags));
  std::free(h_x);
  return 0;
}
