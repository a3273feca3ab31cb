// Launches in counted host loops: the counter at the middle iteration,
// unless another value the launch reads changes per iteration or the launch
// runs under a condition on the counter (then the first run's values).
#include <cuda_runtime.h>

__global__ void row_step(float *x, const float *u, int row, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < n)
    for (int k = row + 1; k < n; k++)
      x[row * n + c] -= u[row * n + k] * x[k * n + c];
}

__global__ void scale_rows(float *p, int rows, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rows; r++)
    if (c < n)
      p[r * n + c] *= 0.5f;
}

__global__ void first_only(float *p, int step, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < n)
    p[c] += step;
}

int main() {
  const int n = 256;
  float *x, *u;
  cudaMalloc(&x, n * n * sizeof(float));
  cudaMalloc(&u, n * n * sizeof(float));
  for (int row = n - 1; row >= 0; row--)
    row_step<<<1, n>>>(x, u, row, n);
  float *p = x + n * n;
  for (int i = 0; i < n; i++) {
    p -= n;
    scale_rows<<<1, n>>>(p, i + 1, n);
  }
  for (int s = 0; s < 10; s++)
    if (s == 0)
      first_only<<<1, n>>>(x, s, n);
  return 0;
}
