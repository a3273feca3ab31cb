// A fill seen through a caller, and one the launch does not see: another
// kernel is given the buffer between the memset and the launch.
#include <cuda_runtime.h>

__global__ void prepare(int *locks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) locks[i] = i & 1;
}

__global__ void take(int *locks, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && atomicCAS(&locks[i], 0, 2) == 0) out[i] = 1;
}

__global__ void take_after(int *locks, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && atomicCAS(&locks[i], 0, 3) == 0) out[i] = 1;
}

void run(int *d_locks, int *d_out, int n) {
  take<<<(n + 255) / 256, 256>>>(d_locks, d_out, n);
}

void run_twice(int *d_locks, int *d_out, int n) {
  prepare<<<(n + 255) / 256, 256>>>(d_locks, n);
  take_after<<<(n + 255) / 256, 256>>>(d_locks, d_out, n);
}

int main() {
  int n = 1024;
  int *d_locks, *d_out, *d_locks2, *d_out2;
  cudaMalloc(&d_locks, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_locks2, n * sizeof(int));
  cudaMalloc(&d_out2, n * sizeof(int));
  cudaMemset(d_locks, 0, n * sizeof(int));
  run(d_locks, d_out, n);
  cudaMemset(d_locks2, 0, n * sizeof(int));
  run_twice(d_locks2, d_out2, n);
  return 0;
}
