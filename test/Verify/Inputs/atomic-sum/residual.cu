// A damped update with a squared-residual norm: every thread adds its own
// r*r to one float with atomicAdd (1M threads), as iterative solvers often
// do. Checks the update and the norm against a double-precision CPU sum.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define N (1 << 20)
#define THREADS 256

__global__ void damped_update(float *x, const float *b, const float *ax,
                              float *norm2, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) {
    float r = b[k] - ax[k];
    x[k] += 0.5f * r;
    atomicAdd(norm2, r * r);
  }
}

int main() {
  std::vector<float> x(N), b(N), ax(N);
  srand(7);
  for (int i = 0; i < N; ++i) {
    x[i] = rand() / (float)RAND_MAX;
    b[i] = rand() / (float)RAND_MAX;
    ax[i] = rand() / (float)RAND_MAX;
  }
  float *dx, *db, *dax, *dn;
  cudaMalloc(&dx, N * sizeof(float));
  cudaMalloc(&db, N * sizeof(float));
  cudaMalloc(&dax, N * sizeof(float));
  cudaMalloc(&dn, sizeof(float));
  cudaMemcpy(dx, x.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dax, ax.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dn, 0, sizeof(float));
  damped_update<<<(N + THREADS - 1) / THREADS, THREADS>>>(dx, db, dax, dn, N);
  std::vector<float> got(N);
  float norm2 = 0;
  cudaMemcpy(got.data(), dx, N * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&norm2, dn, sizeof(float), cudaMemcpyDeviceToHost);
  double want = 0;
  int bad = 0;
  for (int i = 0; i < N; ++i) {
    float r = b[i] - ax[i];
    want += (double)r * r;
    if (std::fabs(got[i] - (x[i] + 0.5f * r)) > 1e-6f)
      ++bad;
  }
  double rel = std::fabs(norm2 - want) / want;
  printf("norm2 %.6g (double reference %.6g, rel %.2e), %d bad elements\n",
         norm2, want, rel, bad);
  printf(bad == 0 && rel < 1e-2 ? "PASS\n" : "FAIL\n");
  return bad == 0 && rel < 1e-2 ? 0 : 1;
}
