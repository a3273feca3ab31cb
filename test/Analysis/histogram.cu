// Histograms: global atomics per element, and the privatized version.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>
#define BINS 256

__global__ void histogram_global(const unsigned char *__restrict__ data,
                                 unsigned int *__restrict__ hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (; i < n; i += stride)
    atomicAdd(&hist[data[i]], 1u);
}

__global__ void histogram_shared(const unsigned char *__restrict__ data,
                                 unsigned int *__restrict__ hist, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

void launch(const unsigned char *d, unsigned int *h, int n) {
  histogram_global<<<528, 256>>>(d, h, n);
  histogram_shared<<<528, 256>>>(d, h, n);
}

// CHECK-MESSAGES: histogram.cu:11:5: warning: global atomic at a data-dependent address ('&hist[data[i]]'): threads hitting the same bin{{.*}} [memory-global-atomic-histogram]
