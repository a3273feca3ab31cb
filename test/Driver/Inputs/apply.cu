#include <cuda_runtime.h>

__global__ void k(const float *in, float *out, int n) {
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int j = 0; j < 4; ++j)
    acc += in[i] * 0.5;
  out[i] = acc / 2.0f + (tid % 32);
}
