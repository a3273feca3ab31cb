// transpose: out-of-place transpose of a ROWS x COLS matrix (one thread per
// element, reads along rows, writes along columns), then a kernel that reads
// the transposed matrix back column-wise: C = alpha * (At)^T + B. REPS times.
//
// Check: At exactly; C against the CPU with rtol 1e-5 + atol 1e-5 (a
// multiply-add may be fused on the GPU).
#include "../common/bench_common.h"

#ifndef ROWS
#define ROWS 4096
#endif
#ifndef COLS
#define COLS 6144
#endif
#ifndef REPS
#define REPS 10
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define TILE_X 32
#define TILE_Y 8

__global__ void transpose_kernel(DATA_TYPE *in, DATA_TYPE *out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}

// C (rows x cols) = alpha * transpose(At) + B, At is cols x rows
__global__ void scale_add_transposed_kernel(DATA_TYPE *At, DATA_TYPE *B, DATA_TYPE *C,
                                            DATA_TYPE alpha, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    C[row * cols + col] = alpha * At[col * rows + row] + B[row * cols + col];
}

void run_transpose(int rows, int cols, DATA_TYPE alpha, DATA_TYPE *A, DATA_TYPE *B,
                   DATA_TYPE *At, DATA_TYPE *C) {
  size_t bytes = sizeof(DATA_TYPE) * rows * cols;
  DATA_TYPE *d_A, *d_B, *d_At, *d_C;
  CUDA_CHECK(cudaMalloc(&d_A, bytes));
  CUDA_CHECK(cudaMalloc(&d_B, bytes));
  CUDA_CHECK(cudaMalloc(&d_At, bytes));
  CUDA_CHECK(cudaMalloc(&d_C, bytes));
  CUDA_CHECK(cudaMemcpy(d_A, A, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, B, bytes, cudaMemcpyHostToDevice));

  dim3 block(TILE_X, TILE_Y);
  dim3 grid((size_t)ceil(((float)cols) / ((float)block.x)),
            (size_t)ceil(((float)rows) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    transpose_kernel<<<grid, block>>>(d_A, d_At, rows, cols);
    CUDA_CHECK_KERNEL();
    scale_add_transposed_kernel<<<grid, block>>>(d_At, d_B, d_C, alpha, rows, cols);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  printf("effective bandwidth: %.1f GB/s\n", 5.0 * bytes * REPS / (ms * 1e6));

  CUDA_CHECK(cudaMemcpy(At, d_At, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(C, d_C, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_At);
  cudaFree(d_C);
}

int main() {
  int rows = ROWS, cols = COLS;
  long total = (long)rows * cols;
  DATA_TYPE alpha = 0.75f;
  DATA_TYPE *A = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  DATA_TYPE *B = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  DATA_TYPE *At = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  DATA_TYPE *C = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  DATA_TYPE *At_ref = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * total);
  double *C_ref = (double *)malloc(sizeof(double) * total);
  bench_srand(12);
  for (long i = 0; i < total; i++) {
    A[i] = bench_rand_float(-10, 10);
    B[i] = bench_rand_float(-10, 10);
  }

  double t0 = wall_time();
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      At_ref[(long)c * rows + r] = A[(long)r * cols + c];
  for (long i = 0; i < total; i++)
    C_ref[i] = (double)alpha * A[i] + B[i];
  print_cpu_time(wall_time() - t0);

  run_transpose(rows, cols, alpha, A, B, At, C);

  long bad = check_equal("At", At, At_ref, total);
  bad += check_close("C", C, C_ref, total, 1e-5, 1e-5);
  free(A); free(B); free(At); free(C); free(At_ref); free(C_ref);
  return finish(bad);
}
