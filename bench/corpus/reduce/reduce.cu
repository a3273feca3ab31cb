// reduce: three reductions over N floats in [0, 1), REPS times: the sum
// (shared-memory atomics per block, then one global atomic per block), the
// sum of squares (tree reduction in shared memory to one partial per block,
// partials added on the host) and the maximum (a global atomicMax per
// element on the float's bits; valid for non-negative floats).
//
// Check: sum and sum of squares against the CPU in double with rtol 1e-4
// (float partial sums in any order); the maximum exactly.
#include "../common/bench_common.h"

#ifndef N
#define N (16 * 1024 * 1024)
#endif
#ifndef REPS
#define REPS 5
#endif
#define BLOCK_SIZE 256

__global__ void block_atomic_sum_kernel(float *x, float *sum, int n) {
  __shared__ float block_sum;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    block_sum = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&block_sum, x[i]);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(sum, block_sum);
}

__global__ void sumsq_tree_kernel(float *x, float *partial, int n) {
  __shared__ float sdata[BLOCK_SIZE];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = 0;
  if (i < n)
    sdata[tid] = x[i] * x[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}

__global__ void max_atomic_kernel(float *x, int *max_bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(max_bits, __float_as_int(x[i]));
}

void run_reductions(int n, float *x, float *sum, double *sumsq, float *maxval) {
  float *d_x, *d_sum, *d_partial;
  int *d_max;
  int blocks = (int)ceil((float)n / BLOCK_SIZE);
  float *partial = (float *)malloc(sizeof(float) * blocks);
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, sizeof(float) * blocks));
  CUDA_CHECK(cudaMalloc(&d_max, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(float) * n, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    CUDA_CHECK(cudaMemset(d_max, 0, sizeof(int)));
    block_atomic_sum_kernel<<<blocks, BLOCK_SIZE>>>(d_x, d_sum, n);
    CUDA_CHECK_KERNEL();
    sumsq_tree_kernel<<<blocks, BLOCK_SIZE>>>(d_x, d_partial, n);
    CUDA_CHECK_KERNEL();
    max_atomic_kernel<<<blocks, BLOCK_SIZE>>>(d_x, d_max, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(partial, d_partial, sizeof(float) * blocks, cudaMemcpyDeviceToHost));
    *sumsq = 0;
    for (int b = 0; b < blocks; b++)
      *sumsq += partial[b];
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  int max_bits;
  CUDA_CHECK(cudaMemcpy(sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&max_bits, d_max, sizeof(int), cudaMemcpyDeviceToHost));
  memcpy(maxval, &max_bits, sizeof(float));
  cudaFree(d_x);
  cudaFree(d_sum);
  cudaFree(d_partial);
  cudaFree(d_max);
  free(partial);
}

int main() {
  int n = N;
  float *x = (float *)malloc(sizeof(float) * n);
  bench_srand(31);
  for (int i = 0; i < n; i++)
    x[i] = bench_rand_float(0, 1);

  double t0 = wall_time();
  double sum_ref = 0, sumsq_ref = 0;
  float max_ref = 0;
  for (int i = 0; i < n; i++) {
    sum_ref += x[i];
    sumsq_ref += (double)x[i] * x[i];
    if (x[i] > max_ref)
      max_ref = x[i];
  }
  print_cpu_time(wall_time() - t0);

  float sum, maxval;
  double sumsq;
  run_reductions(n, x, &sum, &sumsq, &maxval);
  printf("sum %f, sum of squares %f, max %f\n", sum, sumsq, maxval);

  long bad = check_close("sum", &sum, &sum_ref, 1, 1e-4, 0.0);
  bad += check_close("sum of squares", &sumsq, &sumsq_ref, 1, 1e-4, 0.0);
  bad += check_equal("max", &maxval, &max_ref, 1);
  free(x);
  return finish(bad);
}
