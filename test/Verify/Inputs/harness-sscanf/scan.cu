// Sizes read with sscanf from the command line:
//   ./scan -n 4096 -s 0.5 -w 0x20 -p 3,7
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void axpy(float *y, const float *x, float s, int n, unsigned w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += s * x[i] + (float)w;
}

__global__ void pair(float *out, long a, short b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (float)(a * b + i);
}

int main(int argc, char **argv) {
  if (argc < 9 || strcmp(argv[1], "-n"))
    return 1;
  int n;
  double s;
  unsigned w;
  long a;
  short b;
  if (sscanf(argv[2], "%d", &n) == EOF) {
    printf("bad n\n");
    return 1;
  }
  if (n <= 0)
    return 1;
  sscanf(argv[4], "%lf", &s);
  sscanf(argv[6], "%x", &w);
  sscanf(argv[8], "%ld,%hd", &a, &b);
  float *x, *y, *o;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&o, 256 * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  axpy<<<(n + 255) / 256, 256>>>(y, x, (float)s, n, w);
  pair<<<1, 256>>>(o, a, b);
  cudaDeviceSynchronize();
  return 0;
}
