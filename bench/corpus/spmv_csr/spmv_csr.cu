// spmv_csr: Jacobi iteration x = x + D^-1 (b - A x) for a sparse matrix in
// CSR format (a 5-point Laplacian on a GRID x GRID mesh plus one long-range
// entry in every third row): a scalar CSR SpMV kernel (one thread per row),
// an update kernel, and the squared residual summed with atomics every 10
// iterations.
//
// Check: x after ITERATIONS against the same iteration on the CPU in double;
// tolerance rtol 1e-4 + atol 1e-6.
#include "../common/bench_common.h"

#ifndef GRID
#define GRID 1024
#endif
#ifndef ITERATIONS
#define ITERATIONS 50
#endif

__global__ void spmv_csr_kernel(int *row_ptr, int *col, float *val, float *x, float *y, int nrows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows) {
    float dot = 0;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
      dot += val[k] * x[col[k]];
    y[row] = dot;
  }
}

__global__ void jacobi_update_kernel(float *x, float *b, float *y, float *diag, float *res2,
                                     int nrows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows) {
    float r = b[row] - y[row];
    x[row] = x[row] + r / diag[row];
    atomicAdd(res2, r * r);
  }
}

// builds the matrix; returns the number of non-zeros
int build_matrix(int grid, int *row_ptr, int *col, float *val, float *diag) {
  int n = grid * grid, nnz = 0;
  bench_srand(34);
  for (int i = 0; i < n; i++) {
    int gy = i / grid, gx = i % grid;
    row_ptr[i] = nnz;
    float d = 4.1f;
    int extra = -1;
    if (i % 3 == 0) {
      extra = (int)(bench_rand_u32() % n);
      d += 0.05f;
    }
    // the mesh neighbours in column order, the long-range entry last
    int cols[6], ncols = 0;
    float vals[6];
    if (gy > 0) { cols[ncols] = i - grid; vals[ncols++] = -1; }
    if (gx > 0) { cols[ncols] = i - 1; vals[ncols++] = -1; }
    cols[ncols] = i; vals[ncols++] = d;
    if (gx < grid - 1) { cols[ncols] = i + 1; vals[ncols++] = -1; }
    if (gy < grid - 1) { cols[ncols] = i + grid; vals[ncols++] = -1; }
    for (int k = 0; k < ncols; k++) {
      col[nnz] = cols[k];
      val[nnz] = vals[k];
      nnz++;
    }
    if (extra >= 0 && extra != i) {
      col[nnz] = extra;
      val[nnz] = -0.05f;
      nnz++;
    }
    diag[i] = d;
  }
  row_ptr[n] = nnz;
  return nnz;
}

void jacobi_cpu(int n, int iterations, const int *row_ptr, const int *col, const float *val,
                const float *b, const float *diag, double *x) {
  double *y = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    x[i] = 0;
  for (int it = 0; it < iterations; it++) {
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
        s += val[k] * x[col[k]];
      y[i] = s;
    }
    for (int i = 0; i < n; i++)
      x[i] += (b[i] - y[i]) / diag[i];
  }
  free(y);
}

int main() {
  int grid = GRID, n = GRID * GRID;
  int *row_ptr = (int *)malloc(sizeof(int) * (n + 1));
  int *col = (int *)malloc(sizeof(int) * 6 * n);
  float *val = (float *)malloc(sizeof(float) * 6 * n);
  float *diag = (float *)malloc(sizeof(float) * n);
  float *b = (float *)malloc(sizeof(float) * n);
  float *x = (float *)malloc(sizeof(float) * n);
  double *x_ref = (double *)malloc(sizeof(double) * n);
  int nnz = build_matrix(grid, row_ptr, col, val, diag);
  for (int i = 0; i < n; i++)
    b[i] = bench_rand_float(0, 1);
  printf("matrix: %d rows, %d non-zeros\n", n, nnz);

  double t0 = wall_time();
  jacobi_cpu(n, ITERATIONS, row_ptr, col, val, b, diag, x_ref);
  print_cpu_time(wall_time() - t0);

  int *d_row_ptr, *d_col;
  float *d_val, *d_diag, *d_b, *d_x, *d_y, *d_res2;
  CUDA_CHECK(cudaMalloc(&d_row_ptr, sizeof(int) * (n + 1)));
  CUDA_CHECK(cudaMalloc(&d_col, sizeof(int) * nnz));
  CUDA_CHECK(cudaMalloc(&d_val, sizeof(float) * nnz));
  CUDA_CHECK(cudaMalloc(&d_diag, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_b, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_res2, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_row_ptr, row_ptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_col, col, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_val, val, sizeof(float) * nnz, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_diag, diag, sizeof(float) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b, sizeof(float) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_x, 0, sizeof(float) * n));

  dim3 block(256);
  dim3 blocks((size_t)ceil(((float)n) / ((float)block.x)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int it = 0; it < ITERATIONS; it++) {
    CUDA_CHECK(cudaMemset(d_res2, 0, sizeof(float)));
    spmv_csr_kernel<<<blocks, block>>>(d_row_ptr, d_col, d_val, d_x, d_y, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    jacobi_update_kernel<<<blocks, block>>>(d_x, d_b, d_y, d_diag, d_res2, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    if ((it + 1) % 10 == 0) {
      float res2;
      CUDA_CHECK(cudaMemcpy(&res2, d_res2, sizeof(float), cudaMemcpyDeviceToHost));
      printf("iteration %d: residual %g\n", it + 1, sqrt(res2));
    }
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(x, d_x, sizeof(float) * n, cudaMemcpyDeviceToHost));

  long bad = check_close("x", x, x_ref, n, 1e-4, 1e-6);
  cudaFree(d_row_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_diag);
  cudaFree(d_b); cudaFree(d_x); cudaFree(d_y); cudaFree(d_res2);
  free(row_ptr); free(col); free(val); free(diag); free(b); free(x); free(x_ref);
  return finish(bad);
}
