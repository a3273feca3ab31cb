// cholesky: A = L * L^T for a symmetric positive definite matrix, in place in
// the lower triangle, one column at a time: a single-thread kernel for the
// square root on the diagonal, one kernel scaling the column, one updating
// the trailing lower triangle (three launches per column).
//
// Check: the lower triangle against the same algorithm on the CPU in double;
// tolerance rtol 1e-3 + atol 1e-5.
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__global__ void chol_diag_kernel(DATA_TYPE *A, int k, int n) {
  A[k * n + k] = sqrt(A[k * n + k]);
}

__global__ void chol_column_kernel(DATA_TYPE *A, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k && i < n)
    A[i * n + k] = A[i * n + k] / A[k * n + k];
}

__global__ void chol_update_kernel(DATA_TYPE *A, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n && i > k && j > k && j <= i)
    A[i * n + j] = A[i * n + j] - A[i * n + k] * A[j * n + k];
}

void make_spd(int n, DATA_TYPE *A) {
  bench_srand(77);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      A[i * n + j] = bench_rand_float(-1, 1);
      A[j * n + i] = A[i * n + j];
    }
    A[i * n + i] = n + bench_rand_float(0, 1);
  }
}

void cholesky_cpu(int n, const DATA_TYPE *A, double *L) {
  for (long i = 0; i < (long)n * n; i++)
    L[i] = A[i];
  for (int k = 0; k < n; k++) {
    L[k * n + k] = sqrt(L[k * n + k]);
    for (int i = k + 1; i < n; i++)
      L[i * n + k] /= L[k * n + k];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j <= i; j++)
        L[i * n + j] -= L[i * n + k] * L[j * n + k];
  }
}

void run_cholesky(int n, DATA_TYPE *A) {
  DATA_TYPE *d_A;
  CUDA_CHECK(cudaMalloc(&d_A, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(d_A, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block(256);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  dim3 block2(32, 8);
  dim3 grid2((size_t)ceil(((float)n) / ((float)block2.x)), (size_t)ceil(((float)n) / ((float)block2.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int k = 0; k < n; k++) {
    chol_diag_kernel<<<1, 1>>>(d_A, k, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    chol_column_kernel<<<grid, block>>>(d_A, k, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    chol_update_kernel<<<grid2, block2>>>(d_A, k, n);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(A, d_A, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_A));
}

int main() {
  int n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *L = (double *)malloc(sizeof(double) * n * n);
  make_spd(n, A);

  double t0 = wall_time();
  cholesky_cpu(n, A, L);
  print_cpu_time(wall_time() - t0);

  run_cholesky(n, A);

  // compare the lower triangle (row by row)
  long bad = 0;
  for (int i = 0; i < n; i++) {
    long row_bad = 0;
    for (int j = 0; j <= i; j++) {
      double d = fabs((double)A[i * n + j] - L[i * n + j]);
      if (!(d <= 1e-5 + 1e-3 * fabs(L[i * n + j]))) {
        if (bad + row_bad < 5)
          printf("  L[%d][%d]: gpu %.8g, reference %.8g\n", i, j, A[i * n + j], L[i * n + j]);
        row_bad++;
      }
    }
    bad += row_bad;
  }
  printf("check L: %ld values, %ld outside rtol 1e-3 + atol 1e-5\n", (long)n * (n + 1) / 2, bad);

  free(A);
  free(L);
  return finish(bad);
}
