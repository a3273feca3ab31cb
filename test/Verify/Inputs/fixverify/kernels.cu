// --fix --verify=run tests (test/Verify/fix-verify-*.test): three kernels,
// four fixes.
//  - iterate: compute-bound, divides by the same 's' in a loop:
//    algebraic-reciprocal-hoist (ulp) makes it several times faster;
//  - shift: memory-bound: two algebraic-division-constant fixes (bitwise),
//    correct, no faster (nvcc already multiplies by 1/2^k exactly);
//  - orphan: no harness anywhere (not in the configuration, no launch).
#include <cuda_runtime.h>

__global__ void iterate(const float *in, float *out, float s, int n,
                        int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  for (int k = 0; k < steps; ++k) {
    x = x / s + 0.5f;
    x = x / s + 0.25f;
  }
  out[i] = x;
}

__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = in[i] / 2.0f + in[i] / 4.0f;
}

__global__ void orphan(float *p) { p[threadIdx.x] = p[threadIdx.x] * 0.3; }
