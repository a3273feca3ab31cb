// Parameters passed as structures by value: a float3 from make_float3 and a
// structure whose members are assigned one by one (HeCBench wlcpow's
// `float3 period`, rodrigues' `float3 w`). The kernel indexes with the
// structure's count, so a harness that passed the wrong bytes would run out
// of bounds. --fix --verify=run infers the harness with no flag and verifies
// the reciprocal hoist (test/Verify/harness-struct-gpu.test).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct Relax {
  int n;
  int steps;
  float k;
};

__global__ void relax(const float *in, float *out, float3 pull, Relax r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= r.n)
    return;
  float x = in[i];
  float k = r.k;
  for (int t = 0; t < r.steps; ++t) {
    x = x / k + pull.x;
    x = x / k + pull.y * pull.z;
  }
  out[i] = x;
}

int main() {
  Relax r;
  r.n = 1 << 20;
  r.steps = 256;
  r.k = 3.0f;
  float3 pull = make_float3(0.5f, 0.25f, 2.0f);
  size_t bytes = r.n * sizeof(float);
  float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
  for (int i = 0; i < r.n; i++)
    h_in[i] = (float)(i % 1000) / 1000.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, bytes);
  cudaMalloc((void **)&d_out, bytes);
  cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
  relax<<<r.n / 256, 256>>>(d_in, d_out, pull, r);
  cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < r.n; i++) {
    float x = h_in[i];
    for (int t = 0; t < r.steps; ++t) {
      x = x / 3.0f + 0.5f;
      x = x / 3.0f + 0.5f;
    }
    if (h_out[i] - x > 1e-4f || x - h_out[i] > 1e-4f)
      bad++;
  }
  printf("%s (%d of %d differ)\n", bad ? "FAIL" : "PASS", bad, r.n);
  return bad ? 1 : 0;
}
