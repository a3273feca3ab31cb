// layernorm: LAYERS rounds of  x = x + residual;  y = LayerNorm(x) * gamma +
// beta;  x = RMSNorm(y) * weight  over a ROWS x COLS activation matrix:
// an element-wise kernel and two row kernels (one thread per row; the layer
// norm keeps its mean and variance in global arrays).
//
// Check: x after the last layer and the last layer's mean and variance
// against the CPU in double; tolerance rtol 1e-3 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef ROWS
#define ROWS 16384
#endif
#ifndef COLS
#define COLS 1024
#endif
#ifndef LAYERS
#define LAYERS 2
#endif

__global__ void add_residual_kernel(float *x, float *residual, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    x[r * cols + c] = x[r * cols + c] + residual[r * cols + c];
}

__global__ void layernorm_kernel(float *x, float *y, float *gamma, float *beta, float *mean,
                                 float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    mean[r] = 0;
    for (int c = 0; c < cols; c++)
      mean[r] += x[r * cols + c];
    mean[r] = mean[r] / cols;
    var[r] = 0;
    for (int c = 0; c < cols; c++)
      var[r] += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
    var[r] = var[r] / cols;
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = (x[r * cols + c] - mean[r]) / sqrt(var[r] + 1e-5) * gamma[c] + beta[c];
  }
}

__global__ void rmsnorm_kernel(float *y, float *x, float *weight, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int c = 0; c < cols; c++)
      ss += y[r * cols + c] * y[r * cols + c];
    float rms = sqrtf(ss / cols + 1e-6f);
    for (int c = 0; c < cols; c++)
      x[r * cols + c] = y[r * cols + c] / rms * weight[c];
  }
}

void layers_cpu(int rows, int cols, int layers, const float *x0, const float *res,
                const float *gamma, const float *beta, const float *weight, double *x,
                double *mean, double *var) {
  double *y = (double *)malloc(sizeof(double) * cols);
  for (long i = 0; i < (long)rows * cols; i++)
    x[i] = x0[i];
  for (int l = 0; l < layers; l++) {
    for (int r = 0; r < rows; r++) {
      double *xr = x + (long)r * cols;
      const float *rr = res + (long)r * cols;
      double mu = 0, v = 0;
      for (int c = 0; c < cols; c++) {
        xr[c] += rr[c];
        mu += xr[c];
      }
      mu /= cols;
      for (int c = 0; c < cols; c++)
        v += (xr[c] - mu) * (xr[c] - mu);
      v /= cols;
      mean[r] = mu;
      var[r] = v;
      double ss = 0;
      for (int c = 0; c < cols; c++) {
        y[c] = (xr[c] - mu) / sqrt(v + 1e-5) * gamma[c] + beta[c];
        ss += y[c] * y[c];
      }
      double rms = sqrt(ss / cols + 1e-6);
      for (int c = 0; c < cols; c++)
        xr[c] = y[c] / rms * weight[c];
    }
  }
  free(y);
}

int main() {
  int rows = ROWS, cols = COLS;
  long total = (long)rows * cols;
  float *x = (float *)malloc(sizeof(float) * total);
  float *res = (float *)malloc(sizeof(float) * total);
  float *gamma = (float *)malloc(sizeof(float) * cols);
  float *beta = (float *)malloc(sizeof(float) * cols);
  float *weight = (float *)malloc(sizeof(float) * cols);
  float *mean = (float *)malloc(sizeof(float) * rows);
  float *var = (float *)malloc(sizeof(float) * rows);
  double *x_ref = (double *)malloc(sizeof(double) * total);
  double *mean_ref = (double *)malloc(sizeof(double) * rows);
  double *var_ref = (double *)malloc(sizeof(double) * rows);
  bench_srand(27);
  for (long i = 0; i < total; i++) {
    x[i] = bench_rand_float(-2, 2) + (i % 13) * 0.1f;
    res[i] = bench_rand_float(-1, 1);
  }
  for (int c = 0; c < cols; c++) {
    gamma[c] = bench_rand_float(0.5f, 1.5f);
    beta[c] = bench_rand_float(-0.5f, 0.5f);
    weight[c] = bench_rand_float(0.8f, 1.2f);
  }

  double t0 = wall_time();
  layers_cpu(rows, cols, LAYERS, x, res, gamma, beta, weight, x_ref, mean_ref, var_ref);
  print_cpu_time(wall_time() - t0);

  float *d_x, *d_y, *d_res, *d_gamma, *d_beta, *d_weight, *d_mean, *d_var;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * total));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * total));
  CUDA_CHECK(cudaMalloc(&d_res, sizeof(float) * total));
  CUDA_CHECK(cudaMalloc(&d_gamma, sizeof(float) * cols));
  CUDA_CHECK(cudaMalloc(&d_beta, sizeof(float) * cols));
  CUDA_CHECK(cudaMalloc(&d_weight, sizeof(float) * cols));
  CUDA_CHECK(cudaMalloc(&d_mean, sizeof(float) * rows));
  CUDA_CHECK(cudaMalloc(&d_var, sizeof(float) * rows));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(float) * total, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_res, res, sizeof(float) * total, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_gamma, gamma, sizeof(float) * cols, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_beta, beta, sizeof(float) * cols, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_weight, weight, sizeof(float) * cols, cudaMemcpyHostToDevice));

  dim3 block2d(32, 8);
  dim3 grid2d((size_t)ceil(((float)cols) / ((float)block2d.x)),
              (size_t)ceil(((float)rows) / ((float)block2d.y)));
  dim3 block(256);
  dim3 grid((size_t)ceil(((float)rows) / ((float)block.x)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int l = 0; l < LAYERS; l++) {
    add_residual_kernel<<<grid2d, block2d>>>(d_x, d_res, rows, cols);
    CUDA_CHECK(cudaDeviceSynchronize());
    layernorm_kernel<<<grid, block>>>(d_x, d_y, d_gamma, d_beta, d_mean, d_var, rows, cols);
    CUDA_CHECK(cudaDeviceSynchronize());
    rmsnorm_kernel<<<grid, block>>>(d_y, d_x, d_weight, rows, cols);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(x, d_x, sizeof(float) * total, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(mean, d_mean, sizeof(float) * rows, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(var, d_var, sizeof(float) * rows, cudaMemcpyDeviceToHost));

  long bad = check_close("x", x, x_ref, total, 1e-3, 1e-4);
  bad += check_close("mean", mean, mean_ref, rows, 1e-3, 1e-4);
  bad += check_close("var", var, var_ref, rows, 1e-3, 1e-4);

  cudaFree(d_x); cudaFree(d_y); cudaFree(d_res); cudaFree(d_gamma);
  cudaFree(d_beta); cudaFree(d_weight); cudaFree(d_mean); cudaFree(d_var);
  free(x); free(res); free(gamma); free(beta); free(weight); free(mean); free(var);
  free(x_ref); free(mean_ref); free(var_ref);
  return finish(bad);
}
