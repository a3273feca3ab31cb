// row_moments: mean, variance, skewness and kurtosis of every row of a
// ROWS x COLS matrix (one thread per row, two passes over its row), then
// z-scores of every element (one thread per element).
//
// Check: the four moments and the z-scores against the CPU in double;
// tolerance rtol 1e-3 + atol 1e-4 (skewness and kurtosis: atol 1e-3, ratios
// of sums of cubed and fourth powers that cancel).
#include "../common/bench_common.h"

#ifndef ROWS
#define ROWS 16384
#endif
#ifndef COLS
#define COLS 1024
#endif

__global__ void moments_kernel(float *x, float *mean, float *var, float *skew, float *kurt,
                               int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0;
    for (int c = 0; c < cols; c++)
      sum += x[r * cols + c];
    mean[r] = sum / cols;
    float m2 = 0, m3 = 0, m4 = 0;
    for (int c = 0; c < cols; c++) {
      m2 += powf(x[r * cols + c] - mean[r], 2.0f);
      m3 += powf(x[r * cols + c] - mean[r], 3.0f);
      m4 += powf(x[r * cols + c] - mean[r], 4.0f);
    }
    m2 /= cols;
    m3 /= cols;
    m4 /= cols;
    var[r] = m2;
    skew[r] = m3 / powf(m2, 1.5f);
    kurt[r] = m4 / (m2 * m2) - 3.0;
  }
}

__global__ void zscore_kernel(float *x, float *z, float *mean, float *var, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    z[r * cols + c] = (x[r * cols + c] - mean[r]) / sqrtf(var[r]);
}

void moments_cpu(int rows, int cols, const float *x, double *mean, double *var, double *skew,
                 double *kurt, double *z) {
  for (int r = 0; r < rows; r++) {
    double s = 0;
    for (int c = 0; c < cols; c++)
      s += x[(long)r * cols + c];
    double mu = s / cols, m2 = 0, m3 = 0, m4 = 0;
    for (int c = 0; c < cols; c++) {
      double d = x[(long)r * cols + c] - mu;
      m2 += d * d;
      m3 += d * d * d;
      m4 += d * d * d * d;
    }
    m2 /= cols;
    m3 /= cols;
    m4 /= cols;
    mean[r] = mu;
    var[r] = m2;
    skew[r] = m3 / pow(m2, 1.5);
    kurt[r] = m4 / (m2 * m2) - 3.0;
    for (int c = 0; c < cols; c++)
      z[(long)r * cols + c] = (x[(long)r * cols + c] - mu) / sqrt(m2);
  }
}

int main() {
  int rows = ROWS, cols = COLS;
  long total = (long)rows * cols;
  float *x = (float *)malloc(sizeof(float) * total);
  float *z = (float *)malloc(sizeof(float) * total);
  float *out[4];
  double *ref[4];
  for (int k = 0; k < 4; k++) {
    out[k] = (float *)malloc(sizeof(float) * rows);
    ref[k] = (double *)malloc(sizeof(double) * rows);
  }
  double *z_ref = (double *)malloc(sizeof(double) * total);

  // rows with different shapes: uniform, skewed (squared), shifted and scaled
  bench_srand(25);
  for (int r = 0; r < rows; r++) {
    float shift = (r % 7) - 3.0f, scale = 1.0f + (r % 5);
    for (int c = 0; c < cols; c++) {
      float u = bench_rand_float(0, 1);
      x[(long)r * cols + c] = shift + scale * ((r % 2) ? u * u : u);
    }
  }

  double t0 = wall_time();
  moments_cpu(rows, cols, x, ref[0], ref[1], ref[2], ref[3], z_ref);
  print_cpu_time(wall_time() - t0);

  float *d_x, *d_z, *d_out[4];
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * total));
  CUDA_CHECK(cudaMalloc(&d_z, sizeof(float) * total));
  for (int k = 0; k < 4; k++)
    CUDA_CHECK(cudaMalloc(&d_out[k], sizeof(float) * rows));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(float) * total, cudaMemcpyHostToDevice));

  dim3 block1(128);
  dim3 grid1((size_t)ceil(((float)rows) / ((float)block1.x)));
  dim3 block2(32, 8);
  dim3 grid2((size_t)ceil(((float)cols) / ((float)block2.x)),
             (size_t)ceil(((float)rows) / ((float)block2.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  moments_kernel<<<grid1, block1>>>(d_x, d_out[0], d_out[1], d_out[2], d_out[3], rows, cols);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  zscore_kernel<<<grid2, block2>>>(d_x, d_z, d_out[0], d_out[1], rows, cols);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  for (int k = 0; k < 4; k++)
    CUDA_CHECK(cudaMemcpy(out[k], d_out[k], sizeof(float) * rows, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(z, d_z, sizeof(float) * total, cudaMemcpyDeviceToHost));

  const char *names[4] = {"mean", "variance", "skewness", "kurtosis"};
  long bad = 0;
  for (int k = 0; k < 4; k++)
    bad += check_close(names[k], out[k], ref[k], rows, 1e-3, k >= 2 ? 1e-3 : 1e-4);
  bad += check_close("z", z, z_ref, total, 1e-3, 1e-4);

  cudaFree(d_x);
  cudaFree(d_z);
  for (int k = 0; k < 4; k++) {
    cudaFree(d_out[k]);
    free(out[k]);
    free(ref[k]);
  }
  free(x);
  free(z);
  free(z_ref);
  return finish(bad);
}
