#include "gamma.h"
// A kernel nothing in this file launches, and host code that only compiles
// with a header this folder does not have: the device side parses, the host
// side does not (before and after any fix).
__global__ void fill(float *p, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) p[i] = p[i] / 4.0f;
}
#ifndef __CUDA_ARCH__
void report() { host_only_logger("fill"); }
#endif
