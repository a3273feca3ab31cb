// A kernel with an optional buffer the program leaves out (`nullptr` for
// `bias`): --fix --verify=run infers a harness that passes a null pointer
// too, and verifies the reciprocal hoist (test/Verify/harness-null-gpu.test).
#include <cuda_runtime.h>

__global__ void relax(const float *in, float *out, const float *bias, int n,
                      int steps, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  for (int t = 0; t < steps; ++t)
    x = x / k + 0.5f;
  if (bias)
    x += bias[i];
  out[i] = x;
}

int main() {
  const int n = 1 << 20;
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  relax<<<n / 256, 256>>>(d_in, d_out, nullptr, n, 256, 3.0f);
  cudaDeviceSynchronize();
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
