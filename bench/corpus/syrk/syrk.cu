// syrk: symmetric rank-k update of the lower triangle,
// C = alpha * A * A^T + beta * C (j <= i); the upper triangle is left alone.
//
// Check: CHECK_ROWS rows of C (lower part against a CPU reference in double,
// tolerance rtol 1e-4 + atol 2e-3 (sums of M products of either sign); upper
// part must be unchanged, exactly).
#include "../common/bench_common.h"
#include "syrk.h"

__global__ void syrk_scale_kernel(int n, DATA_TYPE beta, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < n) && (j <= i)) {
    c[i * n + j] *= beta;
  }
}

__global__ void syrk_update_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE *a, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < n) && (j <= i)) {
    for (int k = 0; k < m; k++) {
      c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
  }
}

void init_arrays(int n, int m, DATA_TYPE *A, DATA_TYPE *C) {
  bench_srand(11);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      A[i * m + k] = bench_rand_float(-1, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i * n + j] = bench_rand_float(-1, 1);
}

static int check_row(int r, int n) { return (int)(((long)r * 389 + 7) % n); }

void syrk_cpu(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, const DATA_TYPE *A,
              const DATA_TYPE *C, double *ref) {
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, n);
    for (int j = 0; j < n; j++) {
      if (j > i) {
        ref[r * n + j] = C[i * n + j];
        continue;
      }
      double s = 0;
      for (int k = 0; k < m; k++)
        s += (double)A[i * m + k] * A[j * m + k];
      ref[r * n + j] = (double)beta * C[i * n + j] + (double)alpha * s;
    }
  }
}

void run_syrk(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *A, DATA_TYPE *C) {
  DATA_TYPE *A_gpu, *C_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * m));
  CUDA_CHECK(cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * n * m, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid((size_t)(ceil(((float)n) / ((float)DIM_THREAD_BLOCK_X))),
            (size_t)ceil(((float)n) / ((float)DIM_THREAD_BLOCK_Y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  syrk_scale_kernel<<<grid, block>>>(n, beta, C_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  syrk_update_kernel<<<grid, block>>>(n, m, alpha, A_gpu, C_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(C, C_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(C_gpu);
}

int main() {
  int n = N, m = M;
  DATA_TYPE alpha = 12435.0f / 32768, beta = 4546.0f / 8192;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * m);
  DATA_TYPE *C = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *ref = (double *)malloc(sizeof(double) * CHECK_ROWS * n);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * n);
  init_arrays(n, m, A, C);

  double t0 = wall_time();
  syrk_cpu(n, m, alpha, beta, A, C, ref);
  print_cpu_time(wall_time() - t0);

  run_syrk(n, m, alpha, beta, A, C);

  long bad = 0;
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, n);
    memcpy(got + (long)r * n, C + (long)i * n, sizeof(DATA_TYPE) * n);
    for (int j = i + 1; j < n; j++) {
      if ((double)C[i * n + j] != ref[(long)r * n + j]) {
        if (bad < 5)
          printf("  upper triangle changed at (%d, %d)\n", i, j);
        bad++;
      }
    }
  }
  bad += check_close("C (sampled rows)", got, ref, (long)CHECK_ROWS * n, 1e-4, 2e-3);

  free(A);
  free(C);
  free(ref);
  free(got);
  return finish(bad);
}
