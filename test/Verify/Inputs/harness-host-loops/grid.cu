// A grid rounded up to a power of two by a loop over its x component.
#include <cstdlib>
__global__ void k(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0.0f;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  dim3 grid(1), block(128);
  unsigned target = (n + 127) / 128;
  for (grid.x = 1; grid.x < target; grid.x *= 2);
  grid.y = 2;
  float *a;
  cudaMalloc(&a, grid.x * 128 * sizeof(float));
  k<<<grid, block>>>(a, n);
  return 0;
}
