// gram_schmidt: QR factorisation of an M x N matrix (M >= N) by modified
// Gram-Schmidt. For every column k: a single-thread kernel computes its norm
// R[k][k], a kernel writes the column of Q, and a kernel (one thread per
// later column j) computes R[k][j] and removes the projection from column j.
//
// Check: on the CPU, Q^T Q = I (every pair of columns, atol 1e-4) and
// Q R = A (every element, rtol 1e-4 + atol 1e-4), in double.
#include "../common/bench_common.h"

#ifndef M
#define M 2048
#endif
#ifndef N
#define N 256
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

__global__ void gs_norm_kernel(DATA_TYPE *A, DATA_TYPE *R, int k, int m, int n) {
  DATA_TYPE nrm = 0.0;
  for (int i = 0; i < m; i++)
    nrm += A[i * n + k] * A[i * n + k];
  R[k * n + k] = sqrt(nrm);
}

__global__ void gs_normalize_kernel(DATA_TYPE *A, DATA_TYPE *R, DATA_TYPE *Q, int k, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    Q[i * n + k] = A[i * n + k] / R[k * n + k];
}

__global__ void gs_project_kernel(DATA_TYPE *A, DATA_TYPE *R, DATA_TYPE *Q, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((j > k) && (j < n)) {
    R[k * n + j] = 0.0;
    for (int i = 0; i < m; i++)
      R[k * n + j] += Q[i * n + k] * A[i * n + j];
    for (int i = 0; i < m; i++)
      A[i * n + j] = A[i * n + j] - Q[i * n + k] * R[k * n + j];
  }
}

void run_gram_schmidt(int m, int n, DATA_TYPE *A, DATA_TYPE *R, DATA_TYPE *Q) {
  DATA_TYPE *A_gpu, *R_gpu, *Q_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * m * n));
  CUDA_CHECK(cudaMalloc((void **)&R_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&Q_gpu, sizeof(DATA_TYPE) * m * n));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * m * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(R_gpu, 0, sizeof(DATA_TYPE) * n * n));

  dim3 block(256, 1);
  dim3 grid_m((size_t)ceil(((float)m) / ((float)block.x)), 1);
  dim3 grid_n((size_t)ceil(((float)n) / ((float)block.x)), 1);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int k = 0; k < n; k++) {
    gs_norm_kernel<<<1, 1>>>(A_gpu, R_gpu, k, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    gs_normalize_kernel<<<grid_m, block>>>(A_gpu, R_gpu, Q_gpu, k, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    gs_project_kernel<<<grid_n, block>>>(A_gpu, R_gpu, Q_gpu, k, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(R, R_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(Q, Q_gpu, sizeof(DATA_TYPE) * m * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(R_gpu);
  cudaFree(Q_gpu);
}

// Q^T Q - I and Q R - A, in double; returns the number of bad values.
long check_qr(int m, int n, const DATA_TYPE *A, const DATA_TYPE *Q, const DATA_TYPE *R) {
  long bad = 0;
  double worst_orth = 0, worst_res = 0;
  double *col = (double *)malloc(sizeof(double) * n);
  for (int a = 0; a < n; a++) {
    for (int b = 0; b < n; b++)
      col[b] = 0;
    for (int i = 0; i < m; i++) {
      double qa = Q[i * n + a];
      for (int b = a; b < n; b++)
        col[b] += qa * Q[i * n + b];
    }
    for (int b = a; b < n; b++) {
      double e = fabs(col[b] - (a == b ? 1.0 : 0.0));
      if (e > worst_orth)
        worst_orth = e;
      if (!(e <= 1e-4))
        bad++;
    }
  }
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k <= j; k++)
        s += (double)Q[i * n + k] * R[k * n + j];
      double e = fabs(s - A[i * n + j]);
      if (e > worst_res)
        worst_res = e;
      if (!(e <= 1e-4 + 1e-4 * fabs(A[i * n + j])))
        bad++;
    }
  }
  free(col);
  printf("check Q^T Q = I: max error %.3g; Q R = A: max error %.3g; %ld bad values\n", worst_orth,
         worst_res, bad);
  return bad;
}

int main() {
  int m = M, n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * m * n);
  DATA_TYPE *R = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *Q = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * m * n);
  bench_srand(8);
  for (long i = 0; i < (long)m * n; i++)
    A[i] = bench_rand_float(-1, 1);

  run_gram_schmidt(m, n, A, R, Q);

  double t0 = wall_time();
  long bad = check_qr(m, n, A, Q, R);
  print_cpu_time(wall_time() - t0);

  free(A);
  free(R);
  free(Q);
  return finish(bad);
}
