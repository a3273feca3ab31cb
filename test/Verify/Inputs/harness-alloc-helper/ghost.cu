// A 1-D relaxation on a grid with ghost cells before its first point: the
// helper returns a pointer past them (or NULL when cudaMalloc fails), and
// the kernel reads in[-1] and writes the ghost out[-1]
// (test/Verify/harness-before-gpu.test).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void smooth_ghost(float *out, const float *in, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    for (int t = 0; t < steps; ++t)
      v = 0.5f * powf(v, 2.0f) + 0.25f;
    out[i] = 0.25f * in[i - 1] + 0.5f * v + 0.25f * in[i + 1];
    if (i == 0)
      out[-1] = out[0];
  }
}

static float *grid_with_ghosts(int n, int ghosts) {
  float *base = nullptr;
  if (cudaMalloc((void **)&base, (n + 2 * ghosts) * sizeof(float)) !=
      cudaSuccess)
    return nullptr;
  cudaMemset(base, 0, (n + 2 * ghosts) * sizeof(float));
  return base + ghosts;
}

int main() {
  const int n = 1 << 20;
  float *in = grid_with_ghosts(n, 4);
  float *out = grid_with_ghosts(n, 4);
  if (!in || !out) {
    fprintf(stderr, "out of device memory\n");
    return 1;
  }
  smooth_ghost<<<n / 256, 256>>>(out, in, n, 256);
  cudaDeviceSynchronize();
  return 0;
}
