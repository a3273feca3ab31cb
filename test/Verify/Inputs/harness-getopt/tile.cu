// A helper with a switch (fall-through, default), run by the tool.
#include <cuda_runtime.h>
__global__ void fill(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0; }
static int tile(int kind) {
  int t = 1;
  switch (kind) {
  case 0: return 16;
  case 1: t = 32;
  case 2: t *= 2; break;
  default: t = 8;
  }
  return t;
}
int main() {
  int n = 1024 * tile(1);
  float *d; cudaMalloc(&d, n * sizeof(float));
  fill<<<n / 256, 256>>>(d, n);
  return 0;
}
