// Optional buffers left out with a null pointer (`nullptr`, `NULL`), and an
// offset from a null pointer, which names no buffer.
#include <cstddef>

__global__ void scale(float *out, const float *in, const float *bias,
                      const bool *skip, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || (skip && skip[i]))
    return;
  float v = 2.0f * in[i];
  if (bias)
    v += bias[i];
  out[i] = v;
}

__global__ void shift(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  const int n = 1 << 16;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  scale<<<n / 256, 256>>>(out, in, nullptr, NULL, n);
  float *none = nullptr;
  shift<<<n / 256, 256>>>(out, none + 4, n);
  cudaDeviceSynchronize();
  return 0;
}
