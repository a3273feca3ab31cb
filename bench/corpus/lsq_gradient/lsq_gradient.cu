// lsq_gradient: least squares min ||A x - b|| by gradient descent, A is M x N
// (M > N). Each iteration: r = A x - b (one thread per row, walking a row of A),
// g = A^T r (one thread per column, walking a column of A), x = x - step/M * g.
//
// Check: x after ITERATIONS steps against the same iteration on the CPU in
// double; tolerance rtol 1e-3 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef M
#define M 8192
#endif
#ifndef N
#define N 2048
#endif
#ifndef ITERATIONS
#define ITERATIONS 20
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define STEP 1.0

__global__ void residual_kernel(DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *b, DATA_TYPE *r, int m,
                                int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    r[i] = -b[i];
    for (int j = 0; j < n; j++)
      r[i] += A[i * n + j] * x[j];
  }
}

__global__ void gradient_kernel(DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *g, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    g[j] = 0.0;
    for (int i = 0; i < m; i++)
      g[j] += A[i * n + j] * r[i];
  }
}

__global__ void update_kernel(DATA_TYPE *x, DATA_TYPE *g, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n)
    x[j] = x[j] - STEP / m * g[j];
}

void generate(int m, int n, DATA_TYPE *A, DATA_TYPE *b) {
  bench_srand(2024);
  DATA_TYPE *x_true = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  for (int j = 0; j < n; j++)
    x_true[j] = bench_rand_float(-1, 1);
  for (int i = 0; i < m; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) {
      A[i * n + j] = bench_rand_float(-1, 1);
      s += A[i * n + j] * x_true[j];
    }
    b[i] = (DATA_TYPE)s + bench_rand_float(-0.01f, 0.01f);
  }
  free(x_true);
}

void gradient_descent_cpu(int m, int n, int iterations, const DATA_TYPE *A, const DATA_TYPE *b,
                          double *x) {
  double *r = (double *)malloc(sizeof(double) * m);
  double *g = (double *)malloc(sizeof(double) * n);
  for (int j = 0; j < n; j++)
    x[j] = 0;
  for (int it = 0; it < iterations; it++) {
    for (int i = 0; i < m; i++) {
      double s = -b[i];
      for (int j = 0; j < n; j++)
        s += A[i * n + j] * x[j];
      r[i] = s;
    }
    for (int j = 0; j < n; j++)
      g[j] = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        g[j] += A[i * n + j] * r[i];
    for (int j = 0; j < n; j++)
      x[j] -= STEP / m * g[j];
  }
  free(r);
  free(g);
}

void run_lsq(int m, int n, int iterations, DATA_TYPE *A, DATA_TYPE *b, DATA_TYPE *x) {
  DATA_TYPE *A_d, *b_d, *x_d, *r_d, *g_d;
  CUDA_CHECK(cudaMalloc((void **)&A_d, (size_t)m * n * sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMalloc((void **)&b_d, m * sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMalloc((void **)&r_d, m * sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMalloc((void **)&x_d, n * sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMalloc((void **)&g_d, n * sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMemcpy(A_d, A, (size_t)m * n * sizeof(DATA_TYPE), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b_d, b, m * sizeof(DATA_TYPE), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(x_d, 0, n * sizeof(DATA_TYPE)));

  dim3 block(128, 1);
  dim3 grid_m((size_t)ceil(((float)m) / ((float)block.x)), 1);
  dim3 grid_n((size_t)ceil(((float)n) / ((float)block.x)), 1);

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int it = 0; it < iterations; it++) {
    residual_kernel<<<grid_m, block>>>(A_d, x_d, b_d, r_d, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    gradient_kernel<<<grid_n, block>>>(A_d, r_d, g_d, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    update_kernel<<<grid_n, block>>>(x_d, g_d, m, n);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms;
  cudaEventElapsedTime(&ms, start, stop);
  print_gpu_time(ms);
  CUDA_CHECK_KERNEL();

  CUDA_CHECK(cudaMemcpy(x, x_d, n * sizeof(DATA_TYPE), cudaMemcpyDeviceToHost));
  cudaFree(A_d);
  cudaFree(b_d);
  cudaFree(r_d);
  cudaFree(x_d);
  cudaFree(g_d);
}

int main() {
  int m = M, n = N;
  DATA_TYPE *A = (DATA_TYPE *)malloc((size_t)m * n * sizeof(DATA_TYPE));
  DATA_TYPE *b = (DATA_TYPE *)malloc(m * sizeof(DATA_TYPE));
  DATA_TYPE *x = (DATA_TYPE *)malloc(n * sizeof(DATA_TYPE));
  double *x_ref = (double *)malloc(n * sizeof(double));
  generate(m, n, A, b);

  double t0 = wall_time();
  gradient_descent_cpu(m, n, ITERATIONS, A, b, x_ref);
  print_cpu_time(wall_time() - t0);

  run_lsq(m, n, ITERATIONS, A, b, x);

  long bad = check_close("x", x, x_ref, n, 1e-3, 1e-4);
  free(A);
  free(b);
  free(x);
  free(x_ref);
  return finish(bad);
}
