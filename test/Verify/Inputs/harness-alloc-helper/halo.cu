// A grid allocated by a helper that returns NULL when cudaMalloc fails and
// otherwise a pointer past a leading halo.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void smooth(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

static float *alloc_with_halo(int n, int halo) {
  float *base = nullptr;
  if (cudaMalloc((void **)&base, (n + 2 * halo) * sizeof(float)) !=
      cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed\n");
    return NULL;
  }
  return base + halo;
}

// Two ways to fail: nothing to pick.
static float *alloc_either(int n, bool big) {
  float *a = nullptr, *b = nullptr;
  cudaMalloc((void **)&a, n * sizeof(float));
  cudaMalloc((void **)&b, 2 * n * sizeof(float));
  if (big)
    return b;
  return a;
}

int main() {
  const int n = 4096;
  float *in = alloc_with_halo(n, 8);
  float *out = alloc_with_halo(n, 8);
  if (!in || !out)
    return 1;
  smooth<<<n / 256, 256>>>(out, in, n);
  float *x = alloc_either(n, n > 100);
  smooth<<<n / 256, 256>>>(x, in, n);
  cudaDeviceSynchronize();
  return 0;
}
