// lu: LU factorisation without pivoting, in place (L below the diagonal with
// a unit diagonal, U on and above it), right-looking: for every k, scale
// column k below the diagonal, then update the trailing matrix. Two kernel
// launches per k, each over the whole matrix.
//
// Check: the whole factored matrix against the same algorithm on the CPU in
// double; tolerance rtol 1e-3 + atol 1e-4 (diagonally dominant matrix; U
// entries are O(1) and the diagonal O(N), so an entry that is nearly zero
// keeps the rounding of its O(1) terms).
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void lu_scale_kernel(DATA_TYPE *A, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k && i < n) {
    A[i * n + k] = A[i * n + k] / A[k * n + k];
  }
}

__global__ void lu_update_kernel(DATA_TYPE *A, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i > k) && (j > k) && (i < n) && (j < n)) {
    A[i * n + j] = A[i * n + j] - A[i * n + k] * A[k * n + j];
  }
}

void init_matrix(int n, DATA_TYPE *A) {
  bench_srand(123);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      A[i * n + j] = bench_rand_float(-1, 1);
    A[i * n + i] = n + bench_rand_float(0, 1);
  }
}

void lu_cpu(int n, const DATA_TYPE *A, double *LU) {
  for (long i = 0; i < (long)n * n; i++)
    LU[i] = A[i];
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++)
      LU[i * n + k] /= LU[k * n + k];
    for (int i = k + 1; i < n; i++) {
      double lik = LU[i * n + k];
      for (int j = k + 1; j < n; j++)
        LU[i * n + j] -= lik * LU[k * n + j];
    }
  }
}

void run_lu(int n, DATA_TYPE *A) {
  DATA_TYPE *A_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block1(256, 1);
  dim3 grid1((size_t)ceil(((float)n) / ((float)block1.x)), 1);
  dim3 block2(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid2((size_t)ceil(((float)n) / ((float)block2.x)), (size_t)ceil(((float)n) / ((float)block2.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  for (int k = 0; k < n; k++) {
    lu_scale_kernel<<<grid1, block1>>>(A_gpu, k, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    lu_update_kernel<<<grid2, block2>>>(A_gpu, k, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(A, A_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
}

int main() {
  int n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *LU = (double *)malloc(sizeof(double) * n * n);
  init_matrix(n, A);

  double t0 = wall_time();
  lu_cpu(n, A, LU);
  print_cpu_time(wall_time() - t0);

  run_lu(n, A);

  long bad = check_close("LU", A, LU, (long)n * n, 1e-3, 1e-4);
  free(A);
  free(LU);
  return finish(bad);
}
