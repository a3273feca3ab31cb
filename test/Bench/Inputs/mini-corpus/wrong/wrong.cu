// test program for the benchmark runner: a wrong kernel: its own check fails before any rewrite.
#include "../common/bench_common.h"

#ifndef N
#define N 1000
#endif

__global__ void wrong_kernel(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = a + x[i];
}

int main() {
  float x[N], ref[N];
  for (int i = 0; i < N; i++)
    ref[i] = 2.0f * (x[i] = (float)i);
  float *d;
  CUDA_CHECK(cudaMalloc(&d, sizeof x));
  CUDA_CHECK(cudaMemcpy(d, x, sizeof x, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  wrong_kernel<<<(N + 127) / 128, 128>>>(d, 2.0f, N);
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(x, d, sizeof x, cudaMemcpyDeviceToHost));
  return finish(check_close("x", x, ref, N, 1e-6, 0.0));
}
