// scan_compact: inclusive prefix sum of N integers by the step-doubling
// (Hillis-Steele) method over global memory, one launch per step; then
// stream compaction: flag the elements above a threshold, scan the flags the
// same way, scatter the indices of the flagged elements.
//
// Check: the prefix sums, the number of kept elements and the compacted
// indices, exactly, against the CPU.
#include "../common/bench_common.h"

#ifndef N
#define N (16 * 1024 * 1024)
#endif
#define THRESHOLD 6
#define BLOCK 256

__global__ void scan_step_kernel(int *in, int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i >= offset)
      out[i] = in[i] + in[i - offset];
    else
      out[i] = in[i];
  }
}

__global__ void flag_kernel(int *x, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    flags[i] = (x[i] > THRESHOLD) ? 1 : 0;
}

__global__ void scatter_kernel(int *x, int *positions, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > THRESHOLD)
    out[positions[i] - 1] = i;
}

// scans d_a in place (d_tmp is scratch of the same size); returns the buffer
// holding the result (d_a or d_tmp)
int *inclusive_scan(int *d_a, int *d_tmp, int n) {
  dim3 block(BLOCK);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  int *in = d_a, *out = d_tmp;
  for (int offset = 1; offset < n; offset *= 2) {
    scan_step_kernel<<<grid, block>>>(in, out, offset, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    int *t = in;
    in = out;
    out = t;
  }
  return in;
}

int main() {
  int n = N;
  int *x = (int *)malloc(sizeof(int) * n);
  int *sums = (int *)malloc(sizeof(int) * n);
  int *sums_ref = (int *)malloc(sizeof(int) * n);
  int *kept = (int *)malloc(sizeof(int) * n);
  int *kept_ref = (int *)malloc(sizeof(int) * n);
  bench_srand(17);
  for (int i = 0; i < n; i++)
    x[i] = bench_rand_u32() % 10;

  double t0 = wall_time();
  int count_ref = 0, running = 0;
  for (int i = 0; i < n; i++) {
    running += x[i];
    sums_ref[i] = running;
    if (x[i] > THRESHOLD)
      kept_ref[count_ref++] = i;
  }
  print_cpu_time(wall_time() - t0);

  int *d_x, *d_a, *d_b, *d_out;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(int) * n));
  CUDA_CHECK(cudaMalloc(&d_a, sizeof(int) * n));
  CUDA_CHECK(cudaMalloc(&d_b, sizeof(int) * n));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(int) * n));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(int) * n, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  // 1. prefix sums of x
  CUDA_CHECK(cudaMemcpy(d_a, d_x, sizeof(int) * n, cudaMemcpyDeviceToDevice));
  int *d_sums = inclusive_scan(d_a, d_b, n);
  CUDA_CHECK(cudaMemcpy(sums, d_sums, sizeof(int) * n, cudaMemcpyDeviceToHost));

  // 2. compaction
  dim3 block(BLOCK);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  flag_kernel<<<grid, block>>>(d_x, d_a, n);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  int *d_pos = inclusive_scan(d_a, d_b, n);
  scatter_kernel<<<grid, block>>>(d_x, d_pos, d_out, n);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  int count = 0;
  CUDA_CHECK(cudaMemcpy(&count, d_pos + n - 1, sizeof(int), cudaMemcpyDeviceToHost));

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  printf("kept %d of %d elements\n", count, n);
  long bad = check_equal("prefix sums", sums, sums_ref, n);
  bad += check_equal("count", &count, &count_ref, 1);
  if (count == count_ref) {
    CUDA_CHECK(cudaMemcpy(kept, d_out, sizeof(int) * count, cudaMemcpyDeviceToHost));
    bad += check_equal("kept indices", kept, kept_ref, count);
  }

  cudaFree(d_x);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_out);
  free(x);
  free(sums);
  free(sums_ref);
  free(kept);
  free(kept_ref);
  CUDA_CHECK(cudaDeviceReset());
  return finish(bad);
}
