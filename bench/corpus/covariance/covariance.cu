// covariance: the N x N covariance matrix of M observations of N variables:
// column means (one thread per variable), centring (one thread per element),
// then one thread per row j1 of the covariance computing the entries
// j2 >= j1 and mirroring them.
//
// Check: the means (rtol 1e-4 + atol 1e-6) and CHECK_ROWS whole rows of the
// covariance matrix (rtol 1e-3 + atol 1e-5) against the CPU in double.
#include "../common/bench_common.h"
#include "covariance.h"

__global__ void mean_kernel(DATA_TYPE *mean, DATA_TYPE *data, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    mean[j] = 0.0;
    for (int i = 0; i < m; i++)
      mean[j] += data[i * n + j];
    mean[j] /= (DATA_TYPE)m;
  }
}

__global__ void center_kernel(DATA_TYPE *mean, DATA_TYPE *data, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < m) && (j < n))
    data[i * n + j] -= mean[j];
}

__global__ void covar_kernel(DATA_TYPE *symmat, DATA_TYPE *data, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < n) {
    for (int j2 = j1; j2 < n; j2++) {
      symmat[j1 * n + j2] = 0.0;
      for (int i = 0; i < m; i++)
        symmat[j1 * n + j2] += data[i * n + j1] * data[i * n + j2];
      symmat[j1 * n + j2] = symmat[j1 * n + j2] / (m - 1);
      symmat[j2 * n + j1] = symmat[j1 * n + j2];
    }
  }
}

static int check_row(int r, int n) { return (int)(((long)r * 283 + 1) % n); }

void covariance_cpu(int m, int n, const DATA_TYPE *data, double *mean, double *cov_rows) {
  for (int j = 0; j < n; j++)
    mean[j] = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      mean[j] += data[i * n + j];
  for (int j = 0; j < n; j++)
    mean[j] /= m;
  double *centered = (double *)malloc(sizeof(double) * m);
  for (int r = 0; r < CHECK_ROWS; r++) {
    int j1 = check_row(r, n);
    for (int i = 0; i < m; i++)
      centered[i] = data[i * n + j1] - mean[j1];
    double *row = cov_rows + (long)r * n;
    for (int j2 = 0; j2 < n; j2++)
      row[j2] = 0;
    for (int i = 0; i < m; i++)
      for (int j2 = 0; j2 < n; j2++)
        row[j2] += centered[i] * (data[i * n + j2] - mean[j2]);
    for (int j2 = 0; j2 < n; j2++)
      row[j2] /= (m - 1);
  }
  free(centered);
}

void run_covariance(int m, int n, DATA_TYPE *data, DATA_TYPE *symmat, DATA_TYPE *mean) {
  DATA_TYPE *data_gpu, *symmat_gpu, *mean_gpu;
  CUDA_CHECK(cudaMalloc((void **)&data_gpu, sizeof(DATA_TYPE) * m * n));
  CUDA_CHECK(cudaMalloc((void **)&symmat_gpu, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&mean_gpu, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMemcpy(data_gpu, data, sizeof(DATA_TYPE) * m * n, cudaMemcpyHostToDevice));

  dim3 block1(DIM_THREAD_BLOCK_KERNEL_1_X, DIM_THREAD_BLOCK_KERNEL_1_Y);
  dim3 grid1((size_t)(ceil((float)n) / ((float)DIM_THREAD_BLOCK_KERNEL_1_X)) + 1, 1);
  dim3 block2(DIM_THREAD_BLOCK_KERNEL_2_X, DIM_THREAD_BLOCK_KERNEL_2_Y);
  dim3 grid2((size_t)(ceil((float)n) / ((float)DIM_THREAD_BLOCK_KERNEL_2_X)) + 1,
             (size_t)(ceil((float)m) / ((float)DIM_THREAD_BLOCK_KERNEL_2_Y)) + 1);
  dim3 block3(DIM_THREAD_BLOCK_KERNEL_3_X, DIM_THREAD_BLOCK_KERNEL_3_Y);
  dim3 grid3((size_t)(ceil((float)n) / ((float)DIM_THREAD_BLOCK_KERNEL_3_X)) + 1, 1);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  mean_kernel<<<grid1, block1>>>(mean_gpu, data_gpu, m, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  center_kernel<<<grid2, block2>>>(mean_gpu, data_gpu, m, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  covar_kernel<<<grid3, block3>>>(symmat_gpu, data_gpu, m, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(symmat, symmat_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(mean, mean_gpu, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));
  cudaFree(data_gpu);
  cudaFree(symmat_gpu);
  cudaFree(mean_gpu);
}

int main() {
  int m = M, n = N;
  DATA_TYPE *data = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * m * n);
  DATA_TYPE *symmat = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *mean = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  double *mean_ref = (double *)malloc(sizeof(double) * n);
  double *cov_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * n);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * n);

  bench_srand(10);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      data[i * n + j] = bench_rand_float(0, 1) + 0.001f * (j % 17);

  double t0 = wall_time();
  covariance_cpu(m, n, data, mean_ref, cov_ref);
  print_cpu_time(wall_time() - t0);

  run_covariance(m, n, data, symmat, mean);

  for (int r = 0; r < CHECK_ROWS; r++)
    memcpy(got + (long)r * n, symmat + (long)check_row(r, n) * n, sizeof(DATA_TYPE) * n);
  long bad = check_close("mean", mean, mean_ref, n, 1e-4, 1e-6);
  bad += check_close("covariance (sampled rows)", got, cov_ref, (long)CHECK_ROWS * n, 1e-3, 1e-5);

  free(data);
  free(symmat);
  free(mean);
  free(mean_ref);
  free(cov_ref);
  free(got);
  return finish(bad);
}
