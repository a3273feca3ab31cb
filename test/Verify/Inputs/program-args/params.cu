// Options read in a constructor: members set to defaults, then a getopt loop
// over the constructor's argc/argv assigns them.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

struct Params {
  int threads;
  int blocks;
  int elems;
  int verbose;
  float scale;

  Params(int argc, char **argv) {
    threads = 256;
    blocks = 8;
    elems = 4096;
    verbose = 0;
    scale = 1.0f;
    int opt;
    while ((opt = getopt(argc, argv, "ht:b:n:vs:")) >= 0) {
      switch (opt) {
      case 'h':
        usage();
        exit(0);
        break;
      case 't': threads = atoi(optarg); break;
      case 'b': blocks = atoi(optarg); break;
      case 'n': elems = atoi(optarg); break;
      case 'v': verbose++; break;
      case 's': this->scale = atof(optarg); break;
      default:
        fprintf(stderr, "unknown option\n");
        exit(1);
      }
    }
  }
  void usage() { fprintf(stderr, "usage: params [-t T] [-b B] [-n N]\n"); }
};

__global__ void stride_scale(float *x, int n, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    x[i] *= s;
}

int main(int argc, char **argv) {
  Params p(argc, argv);
  float *x;
  cudaMalloc(&x, p.elems * sizeof(float));
  stride_scale<<<p.blocks, p.threads>>>(x, p.elems, p.scale);
  cudaDeviceSynchronize();
  return 0;
}
