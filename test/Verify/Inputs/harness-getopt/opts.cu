// Sizes read with getopt / getopt_long (Rodinia's and HeCBench page-rank's
// command lines): the tool runs the option loop over --program-args.
#include <cuda_runtime.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

static struct option long_opts[] = {
    {"rows", required_argument, NULL, 'r'},
    {"cols", required_argument, NULL, 'c'},
    {"verbose", no_argument, NULL, 'v'},
    {0, 0, 0, 0}};

static void usage(const char *p) { fprintf(stderr, "usage: %s\n", p); }

int main(int argc, char **argv) {
  int rows = 64, cols = 64, block = 256, verbose = 0;
  float a = 1.0f;
  int opt, idx = 0;
  while ((opt = getopt_long(argc, argv, ":r:c:b:a:v", long_opts, &idx)) != -1) {
    switch (opt) {
    case 'r':
      rows = atoi(optarg);
      break;
    case 'c':
      cols = atoi(optarg);
      break;
    case 'b':
      block = atoi(optarg);
      break;
    case 'a':
      a = atof(optarg);
      break;
    case 'v':
      verbose = 1;
      break;
    case ':':
    case '?':
    default:
      usage(argv[0]);
      return 1;
    }
  }
  int n = rows * cols;
  float *d_x;
  cudaMalloc(&d_x, sizeof(float) * n);
  scale<<<(n + block - 1) / block, block>>>(d_x, a, n);
  if (verbose)
    printf("%d\n", n);
  cudaFree(d_x);
  return 0;
}
