// redblack_sor: Poisson equation -laplace(u) = f on the unit square (u = 0 on
// the boundary), successive over-relaxation with red-black ordering: every
// iteration updates the red points, then the black points (one launch each,
// over the whole grid); the squared residual is summed with atomics every
// 10 iterations.
//
// Check: u against the same iteration on the CPU in double (rtol 1e-3 +
// atol 1e-6), and the last residual (rtol 1e-2: float atomics).
#include "../common/bench_common.h"

#ifndef N
#define N 2048
#endif
#ifndef ITERATIONS
#define ITERATIONS 100
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define OMEGA 1.5

__global__ void sor_color_kernel(DATA_TYPE *u, DATA_TYPE *f, int n, int color, DATA_TYPE h) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
    if ((i + j) % 2 == color) {
      DATA_TYPE gs = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                             u[i * n + j + 1] + h * h * f[i * n + j]);
      u[i * n + j] = (1.0 - OMEGA) * u[i * n + j] + OMEGA * gs;
    }
  }
}

__global__ void residual_kernel(DATA_TYPE *u, DATA_TYPE *f, int n, DATA_TYPE h, DATA_TYPE *res) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
    DATA_TYPE r = f[i * n + j] - (4 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j] -
                                  u[i * n + j - 1] - u[i * n + j + 1]) / (h * h);
    atomicAdd(res, powf(r, 2.0f));
  }
}

void sor_cpu(int n, int iterations, DATA_TYPE h, const DATA_TYPE *f, double *u, double *last_res) {
  for (long x = 0; x < (long)n * n; x++)
    u[x] = 0;
  for (int it = 0; it < iterations; it++) {
    for (int color = 0; color < 2; color++)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1 + (i + 1 + color) % 2; j < n - 1; j += 2) {
          double gs = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                              u[i * n + j + 1] + (double)h * h * f[i * n + j]);
          u[i * n + j] = (float)((1.0 - OMEGA) * u[i * n + j] + OMEGA * gs);
        }
    if ((it + 1) % 10 == 0) {
      double s = 0;
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
          double r = f[i * n + j] - (4 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j] -
                                     u[i * n + j - 1] - u[i * n + j + 1]) / ((double)h * h);
          s += r * r;
        }
      *last_res = s;
    }
  }
}

float run_sor(int n, int iterations, DATA_TYPE h, DATA_TYPE *f, DATA_TYPE *u) {
  DATA_TYPE *u_d, *f_d, *res_d;
  float res = 0;
  CUDA_CHECK(cudaMalloc((void **)&u_d, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&f_d, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMalloc((void **)&res_d, sizeof(DATA_TYPE)));
  CUDA_CHECK(cudaMemset(u_d, 0, sizeof(DATA_TYPE) * n * n));
  CUDA_CHECK(cudaMemcpy(f_d, f, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), (size_t)ceil(((float)n) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int it = 0; it < iterations; it++) {
    sor_color_kernel<<<grid, block>>>(u_d, f_d, n, 0, h);
    CUDA_CHECK(cudaDeviceSynchronize());
    sor_color_kernel<<<grid, block>>>(u_d, f_d, n, 1, h);
    CUDA_CHECK(cudaDeviceSynchronize());
    if ((it + 1) % 10 == 0) {
      CUDA_CHECK(cudaMemset(res_d, 0, sizeof(DATA_TYPE)));
      residual_kernel<<<grid, block>>>(u_d, f_d, n, h, res_d);
      CUDA_CHECK(cudaMemcpy(&res, res_d, sizeof(DATA_TYPE), cudaMemcpyDeviceToHost));
      printf("iteration %d: residual %g\n", it + 1, sqrt(res));
    }
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(u, u_d, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(u_d);
  cudaFree(f_d);
  cudaFree(res_d);
  return res;
}

int main() {
  int n = N;
  DATA_TYPE h = 1.0 / (n - 1);
  DATA_TYPE *f = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *u = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  double *u_ref = (double *)malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double x = i * (double)h, y = j * (double)h;
      f[i * n + j] = (float)(2.0 * M_PI * M_PI * sin(M_PI * x) * sin(M_PI * y));
    }

  double res_ref = 0;
  double t0 = wall_time();
  sor_cpu(n, ITERATIONS, h, f, u_ref, &res_ref);
  print_cpu_time(wall_time() - t0);

  float res = run_sor(n, ITERATIONS, h, f, u);

  long bad = check_close("u", u, u_ref, (long)n * n, 1e-3, 1e-6);
  if (ITERATIONS >= 10)
    bad += check_close("residual^2", &res, &res_ref, 1, 1e-2, 0.0);
  free(f);
  free(u);
  free(u_ref);
  return finish(bad);
}
