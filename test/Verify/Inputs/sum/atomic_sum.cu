// Sums with float atomics: the order, hence the bits, change run to run.
__global__ void atomic_sum(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
}
