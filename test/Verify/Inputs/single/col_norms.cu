// Column norms of a matrix, one <<<1, 1>>> launch per column (the shape of
// a Gram-Schmidt's norm step), checked against the CPU: prints PASS/FAIL.
#include <cmath>
#include <cstdio>
#include <cstdlib>

__global__ void col_norm(const float *A, float *R, int k, int m, int n) {
  float nrm = 0.0f;
  for (int i = 0; i < m; i++)
    nrm += A[i * n + k] * A[i * n + k];
  R[k] = sqrtf(nrm);
}

int main() {
  const int m = 4096, n = 64;
  float *hA = (float *)malloc(sizeof(float) * m * n);
  float *hR = (float *)malloc(sizeof(float) * n);
  for (int i = 0; i < m * n; i++)
    hA[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  float *A, *R;
  cudaMalloc((void **)&A, sizeof(float) * m * n);
  cudaMalloc((void **)&R, sizeof(float) * n);
  cudaMemcpy(A, hA, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  for (int k = 0; k < n; k++)
    col_norm<<<1, 1>>>(A, R, k, m, n);
  cudaMemcpy(hR, R, sizeof(float) * n, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int k = 0; k < n; k++) {
    double s = 0;
    for (int i = 0; i < m; i++)
      s += (double)hA[i * n + k] * hA[i * n + k];
    if (fabs(sqrt(s) - hR[k]) > 1e-4 * sqrt(s))
      bad++;
  }
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
