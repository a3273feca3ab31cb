// elementwise_chain: a chain of element-wise kernels over N floats, each its
// own launch with its own intermediate array, REPS times:
//   a = sin(pi x) cos(pi y) + 1;  b = exp(-a^2 / 2);  c = sqrt(b + 0.5) + x^2;
//   out = c / (1 + b) + log(1 + |y|)
//
// Check: a, b and out against the CPU in double; tolerance rtol 1e-5 +
// atol 5e-6 (float math in place of double stays inside).
#include "../common/bench_common.h"

#ifndef N
#define N (16 * 1024 * 1024)
#endif
#ifndef REPS
#define REPS 10
#endif
#define PI 3.14159265358979

__global__ void step1_kernel(float *x, float *y, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = sin(x[i] * PI) * cos(y[i] * PI) + 1.0;
}

__global__ void step2_kernel(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = exp(-a[i] * a[i] / 2.0);
}

__global__ void step3_kernel(float *x, float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = sqrt(b[i] + 0.5) + powf(x[i], 2.0f);
}

__global__ void step4_kernel(float *y, float *b, float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = c[i] / (1.0f + b[i]) + logf(1.0f + fabsf(y[i]));
}

void run_chain(int n, float *x, float *y, float *a, float *b, float *out) {
  float *d_x, *d_y, *d_a, *d_b, *d_c, *d_out;
  size_t bytes = sizeof(float) * n;
  CUDA_CHECK(cudaMalloc(&d_x, bytes));
  CUDA_CHECK(cudaMalloc(&d_y, bytes));
  CUDA_CHECK(cudaMalloc(&d_a, bytes));
  CUDA_CHECK(cudaMalloc(&d_b, bytes));
  CUDA_CHECK(cudaMalloc(&d_c, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));

  dim3 block(256);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    step1_kernel<<<grid, block>>>(d_x, d_y, d_a, n);
    CUDA_CHECK_KERNEL();
    step2_kernel<<<grid, block>>>(d_a, d_b, n);
    CUDA_CHECK_KERNEL();
    step3_kernel<<<grid, block>>>(d_x, d_b, d_c, n);
    CUDA_CHECK_KERNEL();
    step4_kernel<<<grid, block>>>(d_y, d_b, d_c, d_out, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(a, d_a, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(b, d_b, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_x); cudaFree(d_y); cudaFree(d_a); cudaFree(d_b); cudaFree(d_c); cudaFree(d_out);
}

int main() {
  int n = N;
  float *x = (float *)malloc(sizeof(float) * n);
  float *y = (float *)malloc(sizeof(float) * n);
  float *a = (float *)malloc(sizeof(float) * n);
  float *b = (float *)malloc(sizeof(float) * n);
  float *out = (float *)malloc(sizeof(float) * n);
  double *a_ref = (double *)malloc(sizeof(double) * n);
  double *b_ref = (double *)malloc(sizeof(double) * n);
  double *out_ref = (double *)malloc(sizeof(double) * n);
  bench_srand(30);
  for (int i = 0; i < n; i++) {
    x[i] = bench_rand_float(-2, 2);
    y[i] = bench_rand_float(-2, 2);
  }

  double t0 = wall_time();
  for (int i = 0; i < n; i++) {
    a_ref[i] = sin(x[i] * PI) * cos(y[i] * PI) + 1.0;
    b_ref[i] = exp(-a_ref[i] * a_ref[i] / 2.0);
    double c = sqrt(b_ref[i] + 0.5) + (double)x[i] * x[i];
    out_ref[i] = c / (1.0 + b_ref[i]) + log(1.0 + fabs(y[i]));
  }
  print_cpu_time(wall_time() - t0);

  run_chain(n, x, y, a, b, out);

  long bad = check_close("a", a, a_ref, n, 1e-5, 5e-6);
  bad += check_close("b", b, b_ref, n, 1e-5, 5e-6);
  bad += check_close("out", out, out_ref, n, 1e-5, 5e-6);
  free(x); free(y); free(a); free(b); free(out);
  free(a_ref); free(b_ref); free(out_ref);
  return finish(bad);
}
