// A layer normalisation written with one thread per row that keeps its
// statistics in global memory: `mean[r] = 0; for (...) mean[r] += ...;`,
// the same for var[r], then the normalised row. Register accumulation of
// either sum alone is not faster and opens only the single-sum rules (the
// other sum is still a global accumulation); both together let
// coalescing-warp-per-row-passes take all three passes, with the stores of
// mean[r] and var[r] in lane 0. --fix --verify=run must find that through
// its joint enabling trial (docs/fixes.md, "Composition").
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define ROWS 8192
#define COLS 1024

__global__ void layernorm_stats(float *x, float *y, float *mean, float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    mean[r] = 0;
    for (int c = 0; c < cols; c++)
      mean[r] += x[r * cols + c];
    mean[r] = mean[r] / cols;
    var[r] = 0;
    for (int c = 0; c < cols; c++)
      var[r] += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
    var[r] = var[r] / cols;
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = (x[r * cols + c] - mean[r]) / sqrtf(var[r] + 1e-5f);
  }
}

int main() {
  size_t n = (size_t)ROWS * COLS;
  float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
  float *hm = (float *)malloc(ROWS * sizeof(float));
  for (size_t i = 0; i < n; i++)
    hx[i] = (float)((i * 37) % 101) / 101.0f - 0.3f + (float)(i / COLS % 7);
  float *x, *y, *mean, *var;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&mean, ROWS * sizeof(float));
  cudaMalloc(&var, ROWS * sizeof(float));
  cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
  layernorm_stats<<<(ROWS + 255) / 256, 256>>>(x, y, mean, var, ROWS, COLS);
  cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hm, mean, ROWS * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < ROWS; r++) {
    double s = 0, v = 0;
    for (int c = 0; c < COLS; c++)
      s += hx[(size_t)r * COLS + c];
    s /= COLS;
    for (int c = 0; c < COLS; c++)
      v += (hx[(size_t)r * COLS + c] - s) * (hx[(size_t)r * COLS + c] - s);
    v /= COLS;
    if (fabs(hm[r] - s) > 1e-4 * (1 + fabs(s)))
      bad++;
    for (int c = 0; c < COLS; c += 97) {
      double want = (hx[(size_t)r * COLS + c] - s) / sqrt(v + 1e-5);
      if (fabs(hy[(size_t)r * COLS + c] - want) > 1e-3 * (1 + fabs(want)))
        bad++;
    }
  }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
