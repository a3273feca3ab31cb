// A kernel template instantiated with a type local to a host function: the
// name expression cannot name it.
#include <cuda_runtime.h>

template <typename Op>
__global__ void apply(float *v, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = op(v[i]);
}

void run(float *v, int n) {
  struct Twice {
    __device__ float operator()(float x) const { return 2 * x; }
  };
  apply<<<1, 256>>>(v, n, Twice{});
}
