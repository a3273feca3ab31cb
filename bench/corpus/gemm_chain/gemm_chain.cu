// gemm_chain: two matrix products in a row, tmp = alpha * A * B, then
// D = beta * D + tmp * C, one thread per output element each.
//
// Check: CHECK_ROWS rows of tmp and D against a CPU reference in double;
// tolerance rtol 1e-4 + atol 1e-3 (products of values in [0, 1)).
#include "../common/bench_common.h"
#include "gemm_chain.h"

__global__ void mm1_kernel(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE *tmp,
                           DATA_TYPE *A, DATA_TYPE *B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && j < nj) {
    DATA_TYPE sum = 0;
    for (int k = 0; k < nk; k++)
      sum += alpha * A[i * nk + k] * B[k * nj + j];
    tmp[i * nj + j] = sum;
  }
}

__global__ void mm2_kernel(int ni, int nj, int nl, DATA_TYPE beta, DATA_TYPE *tmp, DATA_TYPE *C,
                           DATA_TYPE *D) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if (i < ni && l < nl) {
    D[i * nl + l] *= beta;
    for (int j = 0; j < nj; j++)
      D[i * nl + l] += tmp[i * nj + j] * C[j * nl + l];
  }
}

static void fill(DATA_TYPE *x, long n) {
  for (long i = 0; i < n; i++)
    x[i] = bench_rand_float(0, 1);
}

static int check_row(int r, int ni) { return (int)(((long)r * 613 + 3) % ni); }

void reference(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta,
               const DATA_TYPE *A, const DATA_TYPE *B, const DATA_TYPE *C, const DATA_TYPE *D,
               double *tmp_ref, double *D_ref) {
  for (int r = 0; r < CHECK_ROWS; r++) {
    int i = check_row(r, ni);
    double *t = tmp_ref + (long)r * nj;
    double *d = D_ref + (long)r * nl;
    for (int j = 0; j < nj; j++)
      t[j] = 0;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        t[j] += (double)alpha * A[i * nk + k] * B[k * nj + j];
    for (int l = 0; l < nl; l++)
      d[l] = (double)beta * D[i * nl + l];
    for (int j = 0; j < nj; j++)
      for (int l = 0; l < nl; l++)
        d[l] += t[j] * C[j * nl + l];
  }
}

void run_gemm_chain(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta,
                    DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *tmp) {
  DATA_TYPE *A_gpu, *B_gpu, *C_gpu, *D_gpu, *tmp_gpu;
  CUDA_CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * ni * nk));
  CUDA_CHECK(cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * nk * nj));
  CUDA_CHECK(cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * nj * nl));
  CUDA_CHECK(cudaMalloc((void **)&D_gpu, sizeof(DATA_TYPE) * ni * nl));
  CUDA_CHECK(cudaMalloc((void **)&tmp_gpu, sizeof(DATA_TYPE) * ni * nj));
  CUDA_CHECK(cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * ni * nk, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * nk * nj, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * nj * nl, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(D_gpu, D, sizeof(DATA_TYPE) * ni * nl, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid1((size_t)ceil(((float)ni) / ((float)block.x)),
             (size_t)ceil(((float)nj) / ((float)block.y)));
  dim3 grid2((size_t)ceil(((float)nl) / ((float)block.x)),
             (size_t)ceil(((float)ni) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  mm1_kernel<<<grid1, block>>>(ni, nj, nk, alpha, tmp_gpu, A_gpu, B_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  mm2_kernel<<<grid2, block>>>(ni, nj, nl, beta, tmp_gpu, C_gpu, D_gpu);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(D, D_gpu, sizeof(DATA_TYPE) * ni * nl, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(tmp, tmp_gpu, sizeof(DATA_TYPE) * ni * nj, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(B_gpu);
  cudaFree(C_gpu);
  cudaFree(D_gpu);
  cudaFree(tmp_gpu);
}

int main() {
  int ni = NI, nj = NJ, nk = NK, nl = NL;
  DATA_TYPE alpha = 32412.0f / 65536, beta = 2123.0f / 4096;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * ni * nk);
  DATA_TYPE *B = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * nk * nj);
  DATA_TYPE *C = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * nj * nl);
  DATA_TYPE *D = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * ni * nl);
  DATA_TYPE *tmp = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * ni * nj);
  double *tmp_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * nj);
  double *D_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * nl);
  DATA_TYPE *got_tmp = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * nj);
  DATA_TYPE *got_D = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * nl);

  bench_srand(5);
  fill(A, (long)ni * nk);
  fill(B, (long)nk * nj);
  fill(C, (long)nj * nl);
  fill(D, (long)ni * nl);

  double t0 = wall_time();
  reference(ni, nj, nk, nl, alpha, beta, A, B, C, D, tmp_ref, D_ref);
  print_cpu_time(wall_time() - t0);

  run_gemm_chain(ni, nj, nk, nl, alpha, beta, A, B, C, D, tmp);

  for (int r = 0; r < CHECK_ROWS; r++) {
    memcpy(got_tmp + (long)r * nj, tmp + (long)check_row(r, ni) * nj, sizeof(DATA_TYPE) * nj);
    memcpy(got_D + (long)r * nl, D + (long)check_row(r, ni) * nl, sizeof(DATA_TYPE) * nl);
  }
  long bad = check_close("tmp (sampled rows)", got_tmp, tmp_ref, (long)CHECK_ROWS * nj, 1e-4, 1e-3);
  bad += check_close("D (sampled rows)", got_D, D_ref, (long)CHECK_ROWS * nl, 1e-4, 1e-3);

  free(A); free(B); free(C); free(D); free(tmp);
  free(tmp_ref); free(D_ref); free(got_tmp); free(got_D);
  return finish(bad);
}
