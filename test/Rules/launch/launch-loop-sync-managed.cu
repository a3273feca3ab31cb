// launch-loop-sync: silent in a program with managed memory (the host may
// read device results in the loop through it).
// RUN: %cuda-l1-rewrite --rules='-*,launch-loop-sync' %s > %t.out 2>&1
// RUN: not grep launch-loop-sync %t.out
// The same loop without the managed allocation is reported.
// RUN: sed 's/cudaMallocManaged(&v/cudaMalloc(\&v/' %s > %t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-loop-sync' %t.cu 2>&1 | FileCheck %s
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
// CHECK: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('inc')
