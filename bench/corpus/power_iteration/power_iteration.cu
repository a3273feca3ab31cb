// power_iteration: dominant eigenvector of a positive N x N matrix by the
// power method: y = A x, x = y / ||y||, ITERATIONS times; the eigenvalue
// estimate is ||A x|| at the end.
//
// Check: x and the eigenvalue against the same iteration on the CPU in
// double; tolerance rtol 1e-3 + atol 1e-6 (entries are about 1/sqrt(N)).
#include "../common/bench_common.h"

#ifndef N
#define N 4096
#endif
#ifndef ITERATIONS
#define ITERATIONS 30
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define BLOCK_X 32
#define BLOCK_Y 8

// y = A * x, one thread per row
__global__ void matvec_kernel(DATA_TYPE *A, DATA_TYPE *x, DATA_TYPE *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0;
    for (int j = 0; j < n; j++) {
      y[i] += A[i * n + j] * x[j];
    }
  }
}

// norm2 += y[i]^2
__global__ void norm_kernel(DATA_TYPE *y, DATA_TYPE *norm2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(norm2, y[i] * y[i]);
  }
}

// x = y / sqrt(norm2)
__global__ void scale_kernel(DATA_TYPE *y, DATA_TYPE *x, DATA_TYPE *norm2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = y[i] / sqrt(norm2[0]);
  }
}

void init(int n, DATA_TYPE *A, DATA_TYPE *x) {
  bench_srand(7);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = bench_rand_float(0.0f, 1.0f) / n;
  for (int i = 0; i < n; i++)
    x[i] = 1.0f / sqrtf((float)n);
}

double power_cpu(int n, int iterations, const DATA_TYPE *A, const DATA_TYPE *x0, double *x) {
  double *y = (double *)malloc(sizeof(double) * n);
  double lambda = 0;
  for (int i = 0; i < n; i++)
    x[i] = x0[i];
  for (int it = 0; it < iterations; it++) {
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++)
        s += A[i * n + j] * x[j];
      y[i] = s;
    }
    double nrm = 0;
    for (int i = 0; i < n; i++)
      nrm += y[i] * y[i];
    lambda = sqrt(nrm);
    for (int i = 0; i < n; i++)
      x[i] = y[i] / lambda;
  }
  free(y);
  return lambda;
}

float run_power_iteration(int n, int iterations, DATA_TYPE *A, DATA_TYPE *x) {
  DATA_TYPE *d_A, *d_x, *d_y, *d_norm2;
  CUDA_CHECK(cudaMalloc(&d_A, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(DATA_TYPE) * n));
  CUDA_CHECK(cudaMalloc(&d_norm2, sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMemcpy(d_A, A, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(DATA_TYPE) * n, cudaMemcpyHostToDevice));

  dim3 block1(256);
  dim3 grid1((size_t)ceil(((float)n) / ((float)block1.x)));
  dim3 block2(BLOCK_X, BLOCK_Y);
  dim3 grid2((size_t)ceil(((float)n) / ((float)block2.x)), 1);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  float lambda = 0;
  for (int it = 0; it < iterations; it++) {
    matvec_kernel<<<grid1, block1>>>(d_A, d_x, d_y, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(d_norm2, 0, sizeof(DATA_TYPE)));
    norm_kernel<<<grid1, block1>>>(d_y, d_norm2, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    scale_kernel<<<grid2, block2>>>(d_y, d_x, d_norm2, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    DATA_TYPE norm2;
    CUDA_CHECK(cudaMemcpy(&norm2, d_norm2, sizeof(DATA_TYPE), cudaMemcpyDeviceToHost));
    lambda = sqrt(norm2);
    printf("iteration %d: lambda = %f\n", it, lambda);
  }

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(x, d_x, sizeof(DATA_TYPE) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_norm2));
  return lambda;
}

int main(int argc, char **argv) {
  int n = N;
  int iterations = ITERATIONS;
  if (argc > 1)
    iterations = atoi(argv[1]);

  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *x = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n);
  double *x_ref = (double *)malloc(sizeof(double) * n);
  init(n, A, x);

  double t0 = wall_time();
  double lambda_ref = power_cpu(n, iterations, A, x, x_ref);
  print_cpu_time(wall_time() - t0);

  float lambda = run_power_iteration(n, iterations, A, x);
  printf("eigenvalue: gpu %f, cpu %f\n", lambda, lambda_ref);

  long bad = check_close("x", x, x_ref, n, 1e-3, 1e-6);
  bad += check_close("lambda", &lambda, &lambda_ref, 1, 1e-3, 0.0);

  free(A);
  free(x);
  free(x_ref);
  return finish(bad);
}
