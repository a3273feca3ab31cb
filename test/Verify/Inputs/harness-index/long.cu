// A kernel long enough (a few ms on an H200) for the timing plan to give it
// fewer samples under a small --verify-candidate-time.
#include <cuda_runtime.h>

__global__ void spin(float *out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = float(threadIdx.x);
  for (int k = 0; k < iters; ++k)
    v = v * 0.999f + 1.0f;
  out[i] = v;
}

int main() {
  float *out;
  cudaMalloc(&out, sizeof(float) * 528 * 256);
  spin<<<528, 256>>>(out, 1 << 20);
  return 0;
}
