// A size the tool cannot know: read from the command line. What depends on
// it is printed as an expression over its name, marked as unknown.
#include "config.h"

__global__ void saxpy(const float *x, float *y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <elements>\n", argv[0]);
    return 1;
  }
  const int n = std::atoi(argv[1]);
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  int blocks = (n + THREADS - 1) / THREADS;
  saxpy<<<blocks, THREADS>>>(x, y, 2.0f, n);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
