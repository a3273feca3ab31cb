// A chain of element-wise kernels with double math on float data (the way
// everyday code calls sin/exp/sqrt with a double PI): fused into one launch
// and moved to float math in the same round; the program checks itself
// against a double CPU reference.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define PI 3.14159265358979
#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      printf("CUDA error %s at %d\n", cudaGetErrorString(err), __LINE__);      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void wave(float *u, float *v, float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    w[i] = sin(u[i] * PI) * cos(v[i] * PI) + 1.0;
}

__global__ void damp(float *w, float *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    g[i] = exp(-w[i] * w[i] / 2.0);
}

__global__ void mix(float *u, float *g, float *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[i] = sqrt(g[i] + 0.25) + u[i] * u[i];
}

int main() {
  const int n = 1 << 22;
  const int reps = 5;
  size_t bytes = n * sizeof(float);
  float *u = (float *)malloc(bytes), *v = (float *)malloc(bytes);
  float *r = (float *)malloc(bytes);
  srand(7);
  for (int i = 0; i < n; i++) {
    u[i] = 4.0f * rand() / RAND_MAX - 2.0f;
    v[i] = 4.0f * rand() / RAND_MAX - 2.0f;
  }
  float *du, *dv, *dw, *dg, *dr;
  CHECK(cudaMalloc(&du, bytes));
  CHECK(cudaMalloc(&dv, bytes));
  CHECK(cudaMalloc(&dw, bytes));
  CHECK(cudaMalloc(&dg, bytes));
  CHECK(cudaMalloc(&dr, bytes));
  CHECK(cudaMemcpy(du, u, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v, bytes, cudaMemcpyHostToDevice));
  int threads = 256, blocks = (n + threads - 1) / threads;
  for (int rep = 0; rep < reps; rep++) {
    wave<<<blocks, threads>>>(du, dv, dw, n);
    damp<<<blocks, threads>>>(dw, dg, n);
    mix<<<blocks, threads>>>(du, dg, dr, n);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, dr, bytes, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; i++) {
    double w = sin(u[i] * PI) * cos(v[i] * PI) + 1.0;
    double g = exp(-w * w / 2.0);
    double ref = sqrt(g + 0.25) + (double)u[i] * u[i];
    if (fabs(r[i] - ref) > 1e-5 + 1e-5 * fabs(ref))
      bad++;
  }
  printf("%s (%ld of %d outside 1e-5)\n", bad ? "FAIL" : "PASS", bad, n);
  CHECK(cudaFree(du));
  CHECK(cudaFree(dv));
  CHECK(cudaFree(dw));
  CHECK(cudaFree(dg));
  CHECK(cudaFree(dr));
  free(u);
  free(v);
  free(r);
  return bad != 0;
}
