// Relocatable device code: the definitions live in another file.
#include <cuda_runtime.h>

extern __device__ float remote_scale(float x);
extern __device__ int remote_counter;

__global__ void uses_remote_function(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = remote_scale(v[i]);
}

__global__ void uses_remote_variable(int *out) { out[0] = remote_counter; }

__global__ void self_contained(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}
