// Level-1 BLAS-like kernels defined in a header and instantiated by several
// translation units (users_a.cu, users_b.cu).
#pragma once
#include <cuda_runtime.h>
#include "cl_common.cuh"

namespace blas {

template <typename T>
__global__ void axpby(int n, T alpha, const T *__restrict__ x, T beta,
                      T *__restrict__ y) {
  for (int i = GLOBAL_TID(); i < n; i += GRID_STRIDE())
    y[i] = alpha * x[i] + beta * y[i];
}

template <typename T>
__global__ void fill(T *__restrict__ out, T value, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value;
}

} // namespace blas
