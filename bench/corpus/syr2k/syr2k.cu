// syr2k: symmetric rank-2k update of the lower triangle,
// C = alpha * (A * B^T + B * A^T) + beta * C for j <= i; A and B are N x M.
//
// Check: CHECK_ROWS rows of C against a CPU reference in double (lower part:
// rtol 1e-4 + atol 2e-3, sums of 2M products of either sign; upper part must
// be unchanged, exactly).
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#ifndef M
#define M 1024
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define CHECK_ROWS 32

__global__ void syr2k_kernel(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a,
                             DATA_TYPE *b, DATA_TYPE *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < n) && (j < n) && (j <= i)) {
    c[i * n + j] = c[i * n + j] * beta;
    for (int k = 0; k < m; k++) {
      c[i * n + j] += alpha * a[j * m + k] * b[i * m + k] + alpha * b[j * m + k] * a[i * m + k];
    }
  }
}

static int check_row(int r, int n) { return (int)(((long)r * 331 + 2) % n); }

void syr2k_cpu(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, const DATA_TYPE *A,
               const DATA_TYPE *B, const DATA_TYPE *C, double *ref) {
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, n);
    for (int j = 0; j < n; j++) {
      if (j > i) {
        ref[r * n + j] = C[i * n + j];
        continue;
      }
      double s = 0;
      for (int k = 0; k < m; k++)
        s += (double)A[j * m + k] * B[i * m + k] + (double)B[j * m + k] * A[i * m + k];
      ref[r * n + j] = (double)beta * C[i * n + j] + (double)alpha * s;
    }
  }
}

void run_syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *A, DATA_TYPE *B,
               DATA_TYPE *C) {
  DATA_TYPE *A_gpu, *B_gpu, *C_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * m));
  CUDA_CHECK(cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * n * m));
  CUDA_CHECK(cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * n * m, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * n * m, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), (size_t)ceil(((float)n) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  syr2k_kernel<<<grid, block>>>(n, m, alpha, beta, A_gpu, B_gpu, C_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(C, C_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(B_gpu);
  cudaFree(C_gpu);
}

int main() {
  int n = N, m = M;
  DATA_TYPE alpha = 1.25f, beta = 0.75f;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * m);
  DATA_TYPE *B = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * m);
  DATA_TYPE *C = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *ref = (double *)malloc(sizeof(double) * CHECK_ROWS * n);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * n);

  bench_srand(99);
  for (long i = 0; i < (long)n * m; i++) {
    A[i] = bench_rand_float(-1, 1);
    B[i] = bench_rand_float(-1, 1);
  }
  for (long i = 0; i < (long)n * n; i++)
    C[i] = bench_rand_float(-1, 1);

  double t0 = wall_time();
  syr2k_cpu(n, m, alpha, beta, A, B, C, ref);
  print_cpu_time(wall_time() - t0);

  run_syr2k(n, m, alpha, beta, A, B, C);

  long bad = 0;
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, n);
    memcpy(got + (long)r * n, C + (long)i * n, sizeof(DATA_TYPE) * n);
    for (int j = i + 1; j < n; j++)
      if ((double)C[i * n + j] != ref[(long)r * n + j])
        bad++;
  }
  if (bad)
    printf("upper triangle changed in %ld places\n", bad);
  bad += check_close("C (sampled rows)", got, ref, (long)CHECK_ROWS * n, 1e-4, 2e-3);

  free(A);
  free(B);
  free(C);
  free(ref);
  free(got);
  return finish(bad);
}
