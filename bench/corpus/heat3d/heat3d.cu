// heat3d: explicit heat equation on an N x N x N grid, 7-point stencil,
// TSTEPS steps of A -> B then B -> A. A 2-D grid of threads covers (i, j);
// each thread walks the k line.
//
// Check: the final grid against the same steps on the CPU in double;
// tolerance rtol 1e-4 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef N
#define N 128
#endif
#ifndef TSTEPS
#define TSTEPS 50
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define IDX(i, j, k, n) ((i) * (n) * (n) + (j) * (n) + (k))

__global__ void heat3d_kernel(int n, DATA_TYPE *A, DATA_TYPE *B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
    for (int k = 1; k < n - 1; k++) {
      B[IDX(i, j, k, n)] =
          0.125 * (A[IDX(i + 1, j, k, n)] - 2.0 * A[IDX(i, j, k, n)] + A[IDX(i - 1, j, k, n)]) +
          0.125 * (A[IDX(i, j + 1, k, n)] - 2.0 * A[IDX(i, j, k, n)] + A[IDX(i, j - 1, k, n)]) +
          0.125 * (A[IDX(i, j, k + 1, n)] - 2.0 * A[IDX(i, j, k, n)] + A[IDX(i, j, k - 1, n)]) +
          A[IDX(i, j, k, n)];
    }
  }
}

void init(int n, DATA_TYPE *A) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        A[IDX(i, j, k, n)] = (DATA_TYPE)(i + j + (n - k)) * 10 / n;
}

void heat3d_cpu(int n, int tsteps, const DATA_TYPE *A0, double *A) {
  long total = (long)n * n * n;
  double *B = (double *)malloc(sizeof(double) * total);
  for (long x = 0; x < total; x++)
    A[x] = B[x] = A0[x];
  for (int t = 0; t < 2 * tsteps; t++) {
    double *src = (t % 2 == 0) ? A : B;
    double *dst = (t % 2 == 0) ? B : A;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++) {
          double c = src[IDX(i, j, k, n)];
          double v = 0.125 * (src[IDX(i + 1, j, k, n)] - 2.0 * c + src[IDX(i - 1, j, k, n)]) +
                     0.125 * (src[IDX(i, j + 1, k, n)] - 2.0 * c + src[IDX(i, j - 1, k, n)]) +
                     0.125 * (src[IDX(i, j, k + 1, n)] - 2.0 * c + src[IDX(i, j, k - 1, n)]) + c;
          dst[IDX(i, j, k, n)] = (float)v;
        }
  }
  free(B);
}

void run_heat3d(int n, int tsteps, DATA_TYPE *A) {
  size_t bytes = sizeof(DATA_TYPE) * n * n * n;
  DATA_TYPE *d_A, *d_B;
  CUDA_CHECK(cudaMalloc(&d_A, bytes));
  CUDA_CHECK(cudaMalloc(&d_B, bytes));
  CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, A, bytes, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), (size_t)ceil(((float)n) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int t = 1; t <= tsteps; t++) {
    heat3d_kernel<<<grid, block>>>(n, d_A, d_B);
    CUDA_CHECK(cudaDeviceSynchronize());
    heat3d_kernel<<<grid, block>>>(n, d_B, d_A);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(A, d_A, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_B));
}

int main() {
  int n = N;
  long total = (long)n * n * n;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  double *A_ref = (double *)malloc(sizeof(double) * total);
  init(n, A);

  double t0 = wall_time();
  heat3d_cpu(n, TSTEPS, A, A_ref);
  print_cpu_time(wall_time() - t0);

  run_heat3d(n, TSTEPS, A);

  long bad = check_close("A", A, A_ref, total, 1e-4, 1e-4);
  free(A);
  free(A_ref);
  CUDA_CHECK(cudaDeviceReset());
  return finish(bad);
}
