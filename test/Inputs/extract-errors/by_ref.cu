// A device lambda capturing by reference (a host address on the device).
#include <cuda_runtime.h>

template <typename F>
__global__ void each(float *v, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = f(v[i]);
}

void run(float *v, int n) {
  float k = 3.0f;
  each<<<1, 256>>>(v, n, [&] __device__(float x) { return k * x; });
}
