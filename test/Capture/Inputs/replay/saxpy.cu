// saxpy as the capture of make-capture.py recorded it (_Z5saxpyifPKfPf,
// with a __constant__ variable), launched with a size known only at run time:
// no harness can be inferred, the captured launches are the input.
#include <cuda_runtime.h>
__constant__ float coef[4];
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i] * 1.0 + coef[0];
}
void run(int n, float a, const float *x, float *y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
