// matvec_both: x1 = x1 + A * y1 and x2 = x2 + A^T * y2, the matrix-vector
// product in both orientations over one N x N matrix.
//
// Check: every element of x1 and x2 against a CPU reference accumulated in
// double; tolerance rtol 1e-3 + atol 1e-3 (float sums of N positive terms, in
// any order).
#include "../common/bench_common.h"
#include "matvec_both.h"

void init_array(int n, DATA_TYPE *A, DATA_TYPE *x1, DATA_TYPE *x2, DATA_TYPE *y1,
                DATA_TYPE *y2) {
  bench_srand(42);
  for (int i = 0; i < n; i++) {
    x1[i] = bench_rand_float(0, 1);
    x2[i] = bench_rand_float(0, 1);
    y1[i] = bench_rand_float(0, 1);
    y2[i] = bench_rand_float(0, 1);
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = bench_rand_float(0, 1);
}

// one thread per row i: walks row i of A
__global__ void matvec_row_kernel(DATA_TYPE *a, DATA_TYPE *x1, DATA_TYPE *y_1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j < n; j++) {
      x1[i] += a[i * n + j] * y_1[j];
    }
  }
}

// one thread per column i: walks column i of A (the transposed product)
__global__ void matvec_col_kernel(DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j < n; j++) {
      x2[i] += a[j * n + i] * y_2[j];
    }
  }
}

void matvec_cpu(int n, DATA_TYPE *A, DATA_TYPE *x1, DATA_TYPE *x2, DATA_TYPE *y1,
                DATA_TYPE *y2, double *x1_ref, double *x2_ref) {
  for (int i = 0; i < n; i++) {
    x1_ref[i] = x1[i];
    x2_ref[i] = x2[i];
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x1_ref[i] += (double)A[i * n + j] * y1[j];
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      x2_ref[i] += (double)A[j * n + i] * y2[j];
}

void run_matvec_both(int n, DATA_TYPE *A, DATA_TYPE *x1, DATA_TYPE *x2, DATA_TYPE *y1,
                     DATA_TYPE *y2) {
  DATA_TYPE *a_gpu, *x1_gpu, *x2_gpu, *y1_gpu, *y2_gpu;

  CUDA_CHECK(cudaMalloc((void **)&a_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&x1_gpu, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc((void **)&x2_gpu, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc((void **)&y1_gpu, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc((void **)&y2_gpu, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMemcpy(a_gpu, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(x1_gpu, x1, sizeof(DATA_TYPE) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(x2_gpu, x2, sizeof(DATA_TYPE) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y1_gpu, y1, sizeof(DATA_TYPE) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(y2_gpu, y2, sizeof(DATA_TYPE) * n, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid((size_t)ceil((float)n / ((float)DIM_THREAD_BLOCK_X)), 1);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  matvec_row_kernel<<<grid, block>>>(a_gpu, x1_gpu, y1_gpu, n);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  matvec_col_kernel<<<grid, block>>>(a_gpu, x2_gpu, y2_gpu, n);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(x1, x1_gpu, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(x2, x2_gpu, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));

  cudaFree(a_gpu);
  cudaFree(x1_gpu);
  cudaFree(x2_gpu);
  cudaFree(y1_gpu);
  cudaFree(y2_gpu);
}

int main() {
  int n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *x1 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  DATA_TYPE *x2 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  DATA_TYPE *y1 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  DATA_TYPE *y2 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  double *x1_ref = (double *)malloc(sizeof(double) * n);
  double *x2_ref = (double *)malloc(sizeof(double) * n);

  init_array(n, A, x1, x2, y1, y2);

  double t0 = wall_time();
  matvec_cpu(n, A, x1, x2, y1, y2, x1_ref, x2_ref);
  print_cpu_time(wall_time() - t0);

  run_matvec_both(n, A, x1, x2, y1, y2);

  long bad = check_close("x1", x1, x1_ref, n, 1e-3, 1e-3);
  bad += check_close("x2", x2, x2_ref, n, 1e-3, 1e-3);

  free(A);
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  free(x1_ref);
  free(x2_ref);
  return finish(bad);
}
