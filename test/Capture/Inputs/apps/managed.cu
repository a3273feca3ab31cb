// Capture sample: managed memory (cudaMallocManaged) written on the host
// between launches, and a kernel reading mapped host memory
// (cudaHostAlloc(..., cudaHostAllocMapped)), which the capture reports and
// does not capture.
#include "check.h"

__global__ void increment(float *v, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * 0.5f + by;
}

__global__ void gather_host(const float *mapped, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = mapped[(i * 7) % n];
}

int main() {
  const int n = 1 << 14;
  float *m = nullptr;
  CHECK(cudaMallocManaged(&m, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    m[i] = float(i % 50);
  increment<<<(n + 255) / 256, 256>>>(m, n, 1.5f);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += !close_to(m[i], (i % 50) * 0.5 + 1.5);
  // Changed on the host, launched again.
  for (int i = 0; i < n; i += 3)
    m[i] = -1.0f;
  increment<<<(n + 255) / 256, 256>>>(m, n, 4.0f);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    double before = i % 3 == 0 ? -1.0 : (i % 50) * 0.5 + 1.5;
    bad += !close_to(m[i], before * 0.5 + 4.0);
  }

  float *host = nullptr, *mapped = nullptr;
  CHECK(cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i)
    host[i] = float(i) * 0.125f;
  CHECK(cudaHostGetDevicePointer(&mapped, host, 0));
  gather_host<<<(n + 255) / 256, 256>>>(mapped, m, n);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    bad += !close_to(m[i], ((i * 7) % n) * 0.125);
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(m));
  return finish("managed", bad);
}
