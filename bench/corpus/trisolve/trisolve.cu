// trisolve: solves L U X = B for NRHS right-hand sides with triangular
// factors: forward substitution L Y = B (one kernel, one thread per
// right-hand side), then back substitution U X = Y one row at a time (a host
// loop launching one kernel per row).
//
// Check: CHECK_COLS columns of X against substitution on the CPU in double;
// tolerance rtol 1e-3 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#ifndef NRHS
#define NRHS 4096
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define CHECK_COLS 32

__global__ void forward_subst_kernel(DATA_TYPE *L, DATA_TYPE *B, DATA_TYPE *Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    DATA_TYPE s = B[i * nrhs + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s / L[i * n + i];
  }
}

__global__ void backward_row_kernel(DATA_TYPE *U, DATA_TYPE *Y, DATA_TYPE *X, int row, int n,
                                    int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < nrhs) {
    X[row * nrhs + c] = Y[row * nrhs + c];
    for (int k = row + 1; k < n; k++)
      X[row * nrhs + c] -= U[row * n + k] * X[k * nrhs + c];
    X[row * nrhs + c] = X[row * nrhs + c] / U[row * n + row];
  }
}

void make_system(int n, int nrhs, DATA_TYPE *L, DATA_TYPE *U, DATA_TYPE *B) {
  bench_srand(3);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      L[i * n + k] = k < i ? bench_rand_float(-1, 1) / n : 0.0f;
      U[i * n + k] = k > i ? bench_rand_float(-1, 1) / n : 0.0f;
    }
  for (int i = 0; i < n; i++) {
    L[i * n + i] = bench_rand_float(2, 3);
    U[i * n + i] = bench_rand_float(2, 3);
  }
  for (long i = 0; i < (long)n * nrhs; i++)
    B[i] = bench_rand_float(-1, 1);
}

static int check_col(int r, int nrhs) { return (int)(((long)r * 1237 + 11) % nrhs); }

void solve_cpu(int n, int nrhs, const DATA_TYPE *L, const DATA_TYPE *U, const DATA_TYPE *B,
               double *X_ref) {
  double *y = (double *)malloc(sizeof(double) * n);
  double *x = (double *)malloc(sizeof(double) * n);
  for (int r = 0; r < CHECK_COLS; r++) {
    int c = check_col(r, nrhs);
    for (int i = 0; i < n; i++) {
      double s = B[(long)i * nrhs + c];
      for (int k = 0; k < i; k++)
        s -= L[i * n + k] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
      double s = y[i];
      for (int k = i + 1; k < n; k++)
        s -= U[i * n + k] * x[k];
      x[i] = s / U[i * n + i];
    }
    for (int i = 0; i < n; i++)
      X_ref[(long)r * n + i] = x[i];
  }
  free(y);
  free(x);
}

void run_trisolve(int n, int nrhs, DATA_TYPE *L, DATA_TYPE *U, DATA_TYPE *B, DATA_TYPE *X) {
  DATA_TYPE *L_d, *U_d, *B_d, *Y_d, *X_d;
  size_t mat = sizeof(DATA_TYPE) * n * n, rhs = sizeof(DATA_TYPE) * n * nrhs;
  CUDA_CHECK(cudaMalloc(&L_d, mat));
  CUDA_CHECK(cudaMalloc(&U_d, mat));
  CUDA_CHECK(cudaMalloc(&B_d, rhs));
  CUDA_CHECK(cudaMalloc(&Y_d, rhs));
  CUDA_CHECK(cudaMalloc(&X_d, rhs));
  CUDA_CHECK(cudaMemcpy(L_d, L, mat, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(U_d, U, mat, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(B_d, B, rhs, cudaMemcpyHostToDevice));

  dim3 block(128);
  dim3 grid((size_t)ceil(((float)nrhs) / ((float)block.x)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  forward_subst_kernel<<<grid, block>>>(L_d, B_d, Y_d, n, nrhs);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int row = n - 1; row >= 0; row--) {
    backward_row_kernel<<<grid, block>>>(U_d, Y_d, X_d, row, n, nrhs);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(X, X_d, rhs, cudaMemcpyDeviceToHost));
  cudaFree(L_d);
  cudaFree(U_d);
  cudaFree(B_d);
  cudaFree(Y_d);
  cudaFree(X_d);
}

int main() {
  int n = N, nrhs = NRHS;
  DATA_TYPE *L = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *U = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * n);
  DATA_TYPE *B = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * nrhs);
  DATA_TYPE *X = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * nrhs);
  double *X_ref = (double *)malloc(sizeof(double) * n * CHECK_COLS);
  DATA_TYPE *got = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n * CHECK_COLS);
  make_system(n, nrhs, L, U, B);

  double t0 = wall_time();
  solve_cpu(n, nrhs, L, U, B, X_ref);
  print_cpu_time(wall_time() - t0);

  run_trisolve(n, nrhs, L, U, B, X);

  for (int r = 0; r < CHECK_COLS; r++)
    for (int i = 0; i < n; i++)
      got[(long)r * n + i] = X[(long)i * nrhs + check_col(r, nrhs)];
  long bad = check_close("X (sampled columns)", got, X_ref, (long)n * CHECK_COLS, 1e-3, 1e-4);

  free(L);
  free(U);
  free(B);
  free(X);
  free(X_ref);
  free(got);
  return finish(bad);
}
