// launch-loop-sync: no fix in a program with managed memory (the host may
// read device results in the loop through it).
// RUN: %cuda-l1-rewrite --rules='-*,launch-loop-sync' %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>

__global__ void inc(int *v) { v[threadIdx.x] += 1; }

int run(int n) {
  int *v = nullptr, *w = nullptr;
  cudaMallocManaged(&v, 32 * sizeof(int));
  cudaMalloc(&w, 32 * sizeof(int));
  int total = 0;
  for (int i = 0; i < n; i++) {
    inc<<<1, 32>>>(w);
    cudaDeviceSynchronize();
    total += v[0];
  }
  return total;
}
// CHECK: launch-loop-sync-managed.cu:15:5: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('inc')
// CHECK: note: no fix: the program uses memory the host and the GPU share without copies (cudaMallocManaged)
