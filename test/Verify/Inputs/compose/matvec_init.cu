// A row-walking matrix-vector product accumulated in global memory, with the
// initialising store inside the guard (one thread per row). On the H200,
// register accumulation alone measured 1.03x here (not faster: the first
// level cache holds y[i]); it is what lets coalescing-warp-per-row match,
// and that is where the time goes. --fix --verify=run must compose them
// (register accumulation as an enabling fix) and verify the whole.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define N 4096

__global__ void matvec_init(float *A, float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 0;
    for (int j = 0; j < n; j++) {
      y[i] += A[i * n + j] * x[j];
    }
  }
}

int main() {
  size_t bytes = sizeof(float) * N * N;
  float *hA = (float *)malloc(bytes), *hx = (float *)malloc(N * sizeof(float)),
        *hy = (float *)malloc(N * sizeof(float));
  for (int i = 0; i < N * N; i++)
    hA[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int j = 0; j < N; j++)
    hx[j] = (float)(j % 11) / 11.0f;
  float *A, *x, *y;
  cudaMalloc(&A, bytes);
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMemcpy(A, hA, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx, N * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(256);
  dim3 grid((N + block.x - 1) / block.x);
  matvec_init<<<grid, block>>>(A, x, y, N);
  cudaMemcpy(hy, y, N * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += (double)hA[i * N + j] * hx[j];
    if (fabs(hy[i] - s) > 1e-3 * (1 + fabs(s)))
      bad++;
  }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
