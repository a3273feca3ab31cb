// correlation: the N x N Pearson correlation matrix of N variables with M
// samples each, stored one variable per row (data[j * M + i]): per-variable
// mean and standard deviation (one thread per variable), normalisation (one
// thread per element), then one thread per entry of the correlation matrix.
//
// Check: mean and stddev (rtol 1e-4 + atol 1e-6) and CHECK_ROWS rows of the
// correlation matrix (atol 1e-4: entries are in [-1, 1]) against the CPU in
// double.
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#ifndef M
#define M 2048
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define EPS 0.1
#define CHECK_ROWS 48

__global__ void stats_kernel(DATA_TYPE *data, DATA_TYPE *mean, DATA_TYPE *stddev, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    mean[j] = 0.0;
    for (int i = 0; i < m; i++)
      mean[j] += data[j * m + i];
    mean[j] /= m;
    stddev[j] = 0.0;
    for (int i = 0; i < m; i++)
      stddev[j] += powf(data[j * m + i] - mean[j], 2.0f);
    stddev[j] /= m;
    stddev[j] = sqrt(stddev[j]);
    if (stddev[j] <= EPS)
      stddev[j] = 1.0;
  }
}

__global__ void normalize_kernel(DATA_TYPE *data, DATA_TYPE *mean, DATA_TYPE *stddev, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    data[j * m + i] = (data[j * m + i] - mean[j]) / (sqrt((float)m) * stddev[j]);
  }
}

__global__ void corr_kernel(DATA_TYPE *data, DATA_TYPE *corr, int n, int m) {
  int j2 = blockIdx.x * blockDim.x + threadIdx.x;
  int j1 = blockIdx.y * blockDim.y + threadIdx.y;
  if (j1 < n && j2 < n) {
    DATA_TYPE sum = 0.0;
    for (int i = 0; i < m; i++)
      sum += data[j1 * m + i] * data[j2 * m + i];
    corr[j1 * n + j2] = sum;
  }
}

static int check_row(int r, int n) { return (int)(((long)r * 211 + 5) % n); }

void correlation_cpu(int n, int m, const DATA_TYPE *data, double *mean, double *stddev,
                     double *corr_rows) {
  double *z = (double *)malloc(sizeof(double) * n * m);
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < m; i++)
      s += data[(long)j * m + i];
    mean[j] = s / m;
    double v = 0;
    for (int i = 0; i < m; i++)
      v += (data[(long)j * m + i] - mean[j]) * (data[(long)j * m + i] - mean[j]);
    stddev[j] = sqrt(v / m);
    if (stddev[j] <= EPS)
      stddev[j] = 1.0;
    for (int i = 0; i < m; i++)
      z[(long)j * m + i] = (data[(long)j * m + i] - mean[j]) / (sqrt((double)m) * stddev[j]);
  }
  for (int r = 0; r < CHECK_ROWS; r++) {
    int j1 = check_row(r, n);
    for (int j2 = 0; j2 < n; j2++) {
      double s = 0;
      for (int i = 0; i < m; i++)
        s += z[(long)j1 * m + i] * z[(long)j2 * m + i];
      corr_rows[(long)r * n + j2] = s;
    }
  }
  free(z);
}

void run_correlation(int n, int m, DATA_TYPE *data, DATA_TYPE *mean, DATA_TYPE *stddev,
                     DATA_TYPE *corr) {
  DATA_TYPE *data_d, *mean_d, *stddev_d, *corr_d;
  CUDA_CHECK(cudaMalloc(&data_d, sizeof(DATA_TYPE) * n * m));
  CUDA_CHECK(cudaMalloc(&mean_d, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc(&stddev_d, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc(&corr_d, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(data_d, data, sizeof(DATA_TYPE) * n * m, cudaMemcpyHostToDevice));

  dim3 block1(256);
  dim3 grid1((size_t)ceil(((float)n) / ((float)block1.x)));
  dim3 block2(32, 8);
  dim3 grid2((size_t)ceil(((float)m) / ((float)block2.x)), (size_t)ceil(((float)n) / ((float)block2.y)));
  dim3 grid3((size_t)ceil(((float)n) / ((float)block2.x)), (size_t)ceil(((float)n) / ((float)block2.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  stats_kernel<<<grid1, block1>>>(data_d, mean_d, stddev_d, n, m);
  CUDA_CHECK(cudaDeviceSynchronize());
  normalize_kernel<<<grid2, block2>>>(data_d, mean_d, stddev_d, n, m);
  CUDA_CHECK(cudaDeviceSynchronize());
  corr_kernel<<<grid3, block2>>>(data_d, corr_d, n, m);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(mean, mean_d, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(stddev, stddev_d, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(corr, corr_d, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(data_d);
  cudaFree(mean_d);
  cudaFree(stddev_d);
  cudaFree(corr_d);
}

int main() {
  int n = N, m = M;
  DATA_TYPE *data = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * m);
  DATA_TYPE *mean = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  DATA_TYPE *stddev = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  DATA_TYPE *corr = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *mean_ref = (double *)malloc(sizeof(double) * n);
  double *stddev_ref = (double *)malloc(sizeof(double) * n);
  double *corr_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * n);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * CHECK_ROWS * n);

  // variables built from a few shared factors, so that they correlate
  bench_srand(13);
  float factors[4];
  for (int i = 0; i < m; i++) {
    for (int f = 0; f < 4; f++)
      factors[f] = bench_rand_float(-1, 1);
    for (int j = 0; j < n; j++)
      data[(long)j * m + i] = factors[j % 4] * (1 + j % 3) + bench_rand_float(-1, 1) + j * 0.01f;
  }

  double t0 = wall_time();
  correlation_cpu(n, m, data, mean_ref, stddev_ref, corr_ref);
  print_cpu_time(wall_time() - t0);

  run_correlation(n, m, data, mean, stddev, corr);

  for (int r = 0; r < CHECK_ROWS; r++)
    memcpy(got + (long)r * n, corr + (long)check_row(r, n) * n, sizeof(DATA_TYPE) * n);
  long bad = check_close("mean", mean, mean_ref, n, 1e-4, 1e-6);
  bad += check_close("stddev", stddev, stddev_ref, n, 1e-4, 1e-6);
  bad += check_close("correlation (sampled rows)", got, corr_ref, (long)CHECK_ROWS * n, 0.0, 1e-4);

  free(data); free(mean); free(stddev); free(corr);
  free(mean_ref); free(stddev_ref); free(corr_ref); free(got);
  return finish(bad);
}
