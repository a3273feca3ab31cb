// A comparator lambda capturing by reference modifies nothing; a lambda
// whose body assigns its capture does.
#include <cuda_runtime.h>
#include <algorithm>
__global__ void fill(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0; }
__global__ void fill2(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 1; }
int main() {
  int n = 4096;
  int idx[16];
  float w[16];
  for (int i = 0; i < 16; i++) { idx[i] = i; w[i] = float(16 - i); }
  std::sort(idx, idx + 16, [&](int a, int b) { return w[a] < w[b] && n > 0; });
  float *d; cudaMalloc(&d, n * sizeof(float));
  fill<<<n / 256, 256>>>(d, n);
  int m = 1024;
  auto grow = [&]() { m *= 2; };
  grow();
  float *e; cudaMalloc(&e, m * sizeof(float));
  fill2<<<m / 256, 256>>>(e, m);
  return 0;
}
