// Experiment: the copy kernels of test/Verify/Inputs/copy/copy.cu timed with
// CUDA events, each launch after a read-only L2 flush (as lib/Verify does),
// to compare with CUPTI's and Nsight Compute's times of the same kernels.
//   nvcc -O3 -arch=sm_90 -I test/Verify/Inputs/copy copy-timing.cu
//   ./a.out; ncu --clock-control none --cache-control none \
//     --metrics gpu__time_duration.sum -k regex:copy_ --csv ./a.out
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "copy.cu"

__global__ void flush_l2(const int4 *p, unsigned long long n, int *sink) {
  int acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7f3a9c21) *sink = acc;
}

int main() {
  const int n = 67108864;
  float *in, *out;
  int4 *fl;
  int *sink;
  size_t flBytes = 2 * 60ull * 1024 * 1024;
  cudaMalloc(&in, n * 4ull);
  cudaMalloc(&out, n * 4ull);
  cudaMalloc(&fl, flBytes);
  cudaMalloc(&sink, 64);
  cudaMemset(in, 0, n * 4ull);
  cudaMemset(fl, 0x5a, flBytes);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t[2];
  for (int s = 0; s < 32; ++s)
    for (int w = 0; w < 2; ++w) {
      flush_l2<<<132 * 4, 512>>>(fl, flBytes / 16, sink);
      cudaDeviceSynchronize();
      cudaEventRecord(a);
      if (w == 0) copy_scalar<<<(n + 255) / 256, 256>>>(in, out, n);
      else copy_vec4<<<(n + 255) / 256, 256>>>(in, out, n);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (s >= 2) t[w].push_back(ms * 1000);
    }
  for (int w = 0; w < 2; ++w) {
    std::sort(t[w].begin(), t[w].end());
    printf("%s: CUDA events median %.2f us (min %.2f, max %.2f, n %zu)\n",
           w ? "copy_vec4" : "copy_scalar", t[w][t[w].size() / 2], t[w][0],
           t[w].back(), t[w].size());
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
