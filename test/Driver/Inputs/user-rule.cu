#include <cuda_runtime.h>

__device__ int twice(int v) {
  return v + v;
}
__global__ void k(int *out) { out[threadIdx.x] = twice(threadIdx.x); }
