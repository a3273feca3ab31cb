// Capture sample: a kernel in a host loop whose data changes every
// iteration (Jacobi relaxation, ping-pong buffers), launched with
// cudaLaunchKernelEx (-> cuLaunchKernelEx) with a thread-block cluster
// dimension on GPUs that have clusters (sm_90+).
//   loop [iterations (default 20)] [n (default 1M)]
#include "check.h"

#include <vector>

__global__ void relax(const float *in, float *out, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (i == 0 || i == n - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = (1.0f - w) * in[i] + w * 0.5f * (in[i - 1] + in[i + 1]);
}

int main(int argc, char **argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20;
  const int n = argc > 2 ? std::atoi(argv[2]) : 1 << 20;
  const float w = 0.8f;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = (i % 1000 == 0) ? 100.0f : float(i % 7);
  float *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  int dev = 0, major = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  const int block = 256;
  int grid = (n + block - 1) / block;
  grid = (grid + 1) / 2 * 2; // a multiple of the cluster size
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = 0;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = major >= 9 ? 1 : 0;

  float *in = a, *out = b;
  for (int it = 0; it < iters; ++it) {
    CHECK(cudaLaunchKernelEx(&cfg, relax, (const float *)in, out, n, w));
    std::swap(in, out);
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<float> g(n);
  CHECK(cudaMemcpy(g.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost));

  int bad = 0;
  if (iters <= 100) {
    // Host reference (double accumulation of the same recurrence).
    std::vector<double> r(h.begin(), h.end()), s(n);
    for (int it = 0; it < iters; ++it) {
      s[0] = r[0];
      s[n - 1] = r[n - 1];
      for (int i = 1; i < n - 1; ++i)
        s[i] = (1.0 - w) * r[i] + w * 0.5 * (r[i - 1] + r[i + 1]);
      std::swap(r, s);
    }
    for (int i = 0; i < n; ++i)
      bad += !close_to(g[i], r[i], 1e-4);
  } else {
    // Long runs (overhead measurements): each step is a convex
    // combination, so values stay within the initial range and the ends
    // stay fixed.
    bad += g[0] != h[0] || g[n - 1] != h[n - 1];
    for (int i = 0; i < n; ++i)
      bad += !(g[i] >= 0.0f && g[i] <= 100.0f);
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return finish("loop", bad);
}
