// jacobi2d: 5-point Jacobi relaxation on an N x N grid, TSTEPS time steps;
// each step computes B from A, then copies B back into A (two launches).
//
// Check: the final grid against the same steps on the CPU in double;
// tolerance rtol 1e-3 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef N
#define N 4096
#endif
#ifndef TSTEPS
#define TSTEPS 40
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void jacobi_step_kernel(int n, DATA_TYPE *A, DATA_TYPE *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1))) {
    B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] +
                          A[(1 + i) * n + j] + A[(i - 1) * n + j]);
  }
}

__global__ void jacobi_copy_kernel(int n, DATA_TYPE *A, DATA_TYPE *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1))) {
    A[i * n + j] = B[i * n + j];
  }
}

void init_grid(int n, DATA_TYPE *A) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = ((DATA_TYPE)i * (j + 2) + 10) / n;
  // a hot border on one side
  for (int j = 0; j < n; j++)
    A[j] = 100.0f;
}

void jacobi_cpu(int n, int tsteps, const DATA_TYPE *A0, double *A) {
  double *B = (double *)malloc(sizeof(double) * n * n);
  for (long i = 0; i < (long)n * n; i++)
    A[i] = B[i] = A0[i];
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                              A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i * n + j] = (float)B[i * n + j];
  }
  free(B);
}

void run_jacobi(int n, int tsteps, DATA_TYPE *A) {
  DATA_TYPE *A_gpu, *B_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B_gpu, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid((unsigned int)ceil(((float)n) / ((float)block.x)),
            (unsigned int)ceil(((float)n) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int t = 0; t < tsteps; t++) {
    jacobi_step_kernel<<<grid, block>>>(n, A_gpu, B_gpu);
    CUDA_CHECK(cudaDeviceSynchronize());
    jacobi_copy_kernel<<<grid, block>>>(n, A_gpu, B_gpu);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(A, A_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(B_gpu);
}

int main() {
  int n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *A_ref = (double *)malloc(sizeof(double) * n * n);
  init_grid(n, A);

  double t0 = wall_time();
  jacobi_cpu(n, TSTEPS, A, A_ref);
  print_cpu_time(wall_time() - t0);

  run_jacobi(n, TSTEPS, A);

  long bad = check_close("A", A, A_ref, (long)n * n, 1e-3, 1e-4);
  free(A);
  free(A_ref);
  return finish(bad);
}
