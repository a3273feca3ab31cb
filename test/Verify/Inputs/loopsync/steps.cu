// A time-stepping loop with a checked synchronisation after every launch
// (launch-loop-sync moves it after the loop).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s\n", cudaGetErrorString(e_));                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void relax(float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = 0.5f * u[i] + 1.0f;
}

int main() {
  const int n = 1 << 16, steps = 200;
  float *u = nullptr;
  CHECK(cudaMalloc(&u, n * sizeof(float)));
  CHECK(cudaMemset(u, 0, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    relax<<<(n + 255) / 256, 256>>>(u, n);
    CHECK(cudaDeviceSynchronize());
  }
  float h = 0.0f;
  CHECK(cudaMemcpy(&h, u + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
  printf("%s %.6f\n", h > 1.99f && h <= 2.0f ? "PASS" : "FAIL", h);
  CHECK(cudaFree(u));
  return 0;
}
