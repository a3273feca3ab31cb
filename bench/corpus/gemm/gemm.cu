// gemm: C = alpha * A * B + beta * C, one thread per element of C.
//
// Check: CHECK_ROWS whole rows of C (spread over the matrix, at every
// position inside a thread block) against a CPU reference in double;
// tolerance rtol 1e-4 + atol 1e-4 (sums of NK products of values in [0, 1)).
#include "../common/bench_common.h"
#include "gemm.h"

__global__ void gemm_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                            DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nj)) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++) {
      c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
  }
}

void init(int ni, int nj, int nk, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C) {
  bench_srand(1);
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      A[i * nk + k] = bench_rand_float(0, 1);
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++)
      B[k * nj + j] = bench_rand_float(0, 1);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++)
      C[i * nj + j] = bench_rand_float(0, 1);
}

int check_row(int r, int ni) { return (int)(((long)r * 977 + 5) % ni); }

// reference for the rows that are checked: ref[r * nj + j] for row check_row(r)
void gemm_cpu(int ni, int nj, int nk, const DATA_TYPE *A, const DATA_TYPE *B,
              const DATA_TYPE *C, double *ref) {
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, ni);
    for (int j = 0; j < nj; j++)
      ref[r * nj + j] = (double)BETA * C[i * nj + j];
    for (int k = 0; k < nk; k++) {
      double aik = (double)ALPHA * A[i * nk + k];
      for (int j = 0; j < nj; j++)
        ref[r * nj + j] += aik * B[k * nj + j];
    }
  }
}

void run_gemm(int ni, int nj, int nk, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C) {
  DATA_TYPE *A_gpu, *B_gpu, *C_gpu;

  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * ni * nk));
  CUDA_CHECK(cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * nk * nj));
  CUDA_CHECK(cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * ni * nj));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * ni * nk, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * nk * nj, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid((size_t)(ceil(((float)nj) / ((float)block.x))),
            (size_t)(ceil(((float)ni) / ((float)block.y))));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  gemm_kernel<<<grid, block>>>(ni, nj, nk, ALPHA, BETA, A_gpu, B_gpu, C_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  printf("GFLOP/s: %.1f\n", 2.0 * ni * nj * nk / (ms * 1e6));

  CUDA_CHECK(cudaMemcpy(C, C_gpu, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(B_gpu);
  cudaFree(C_gpu);
}

int main() {
  int ni = NI, nj = NJ, nk = NK;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * ni * nk);
  DATA_TYPE *B = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * nk * nj);
  DATA_TYPE *C = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * ni * nj);
  double *ref = (double *)malloc(sizeof(double) * CHECK_ROWS * nj);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * nj);

  init(ni, nj, nk, A, B, C);
  double t0 = wall_time();
  gemm_cpu(ni, nj, nk, A, B, C, ref);
  print_cpu_time(wall_time() - t0);

  run_gemm(ni, nj, nk, A, B, C);

  for (int r = 0; r < CHECK_ROWS; r++)
    memcpy(got + r * nj, C + check_row(r, ni) * nj, sizeof(DATA_TYPE) * nj);
  long bad = check_close("C (sampled rows)", got, ref, (long)CHECK_ROWS * nj, 1e-4, 1e-4);

  free(A);
  free(B);
  free(C);
  free(ref);
  free(got);
  return finish(bad);
}
