// Anonymous members: a nested anonymous structure's members are the outer
// structure's own (`r.lo`); an anonymous union is not passed.
#include <cuda_runtime.h>

struct Range {
  struct {
    int lo, hi;
  };
  float scale;
};
struct Walls {
  union {
    struct {
      int xmin, xmax;
    };
    int el[2];
  };
};

__global__ void clip(float *x, Range r) {
  int i = r.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < r.hi)
    x[i] *= r.scale;
}

__global__ void walls(int *flags, Walls w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w.xmax)
    flags[i] = i < w.xmin;
}

int main() {
  float *x;
  int *f;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&f, 1024 * sizeof(int));
  cudaMemset(x, 0, 1024 * sizeof(float));
  Range r;
  r.lo = 0;
  r.hi = 1024;
  r.scale = 0.5f;
  clip<<<4, 256>>>(x, r);
  Walls w{{{8, 1024}}};
  walls<<<4, 256>>>(f, w);
  cudaDeviceSynchronize();
  return 0;
}
