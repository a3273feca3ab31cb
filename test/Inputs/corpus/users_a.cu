// First user of the kernels in include/blas_kernels.cuh (float).
#include <cuda_runtime.h>
#include "include/blas_kernels.cuh"

__global__ void residual_norm(const float *r, float *out, int n) {
  __shared__ float scratch[WARP_SIZE];
  float v = 0.0f;
  for (int i = GLOBAL_TID(); i < n; i += GRID_STRIDE())
    v += r[i] * r[i];
  v = cl::detail::block_reduce_sum(v, scratch);
  if (threadIdx.x == 0)
    atomicAdd(out, v);
}

void cg_step(float *x, float *r, float *out, int n) {
  blas::axpby<float><<<120, 256>>>(n, 1.0f, r, 0.5f, x);
  blas::fill<float><<<CEIL_DIV(n, 256), 256>>>(out, 0.0f, 1);
  residual_norm<<<120, 256>>>(r, out, n);
}
