#include <cuda_runtime.h>

__global__ void broken_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
  undefined_function(x[i]);
}

}
