// Launches in range-based for loops over constants: a braced list of block
// sizes, a local array of problem sizes (the middle value of each); an
// array changed before the loop, and a launch under a condition on the
// loop's variable, stay unknown.
#include <cuda_runtime.h>

__global__ void scale(float *x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

__global__ void shift(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

__global__ void clip(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = fminf(x[i], 1.0f);
}

__global__ void first_size(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 0.0f;
}

int main(int argc, char **argv) {
  const int cap = 1 << 16;
  float *x;
  cudaMalloc(&x, cap * sizeof(float));
  for (int bs : {64, 128, 256, 512})
    scale<<<(cap + bs - 1) / bs, bs>>>(x, cap, 0.5f);
  int sizes[] = {1024, 2048, 4096};
  for (int n : sizes)
    shift<<<(n + 255) / 256, 256>>>(x, n);
  int others[] = {1024, 2048, 4096};
  others[1] = argc * 4096;
  for (int n : others)
    clip<<<(n + 255) / 256, 256>>>(x, n);
  for (int n : sizes)
    if (n == 1024)
      first_size<<<(n + 255) / 256, 256>>>(x, n);
  cudaFree(x);
  return 0;
}
