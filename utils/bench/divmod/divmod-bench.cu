// Integer division by a loop-invariant run-time value: what does it cost in a
// grid-stride loop, and what does a divider computed once before the loop
// (a multiply-high by a magic number) save? Measured side by side in one run.
//
//   nvcc -O3 -arch=sm_90 divmod-bench.cu -o divmod-bench && ./divmod-bench
//
// Kernels (n elements, M and N run-time values):
//   copy       out[i] = in[i]                         (the memory roofline)
//   mod1       out[i] = in[i] + (i % M)               (one modulo)
//   mod1_fast  the same with the hoisted divider
//   mask       lowerDiagMask's index decomposition: i % M, (i - k) / M % N,
//              (i - M j - k) / (N M): two divisions and two modulos
//   mask_fast  the same with hoisted dividers
//   rot        a compare loop with (a + i) % n per step (bwt's rotations)
//   rot_fast   the same with the hoisted divider
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "divmod-common.cuh"

__global__ void copy(int n, const float *in, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i];
}
__global__ void mod1(int n, int M, const float *in, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] + (float)(i % M);
}
__global__ void mod1_fast(int n, int M, const float *in, float *out) {
  Div dm(M);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] + (float)(int)dm.mod(i);
}
__global__ void mask(int n, int N, int M, const float *in, float *out) {
  for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < n; index += blockDim.x * gridDim.x) {
    int k = index % M;
    int j = (index - k) / M % N;
    int i = (index - M * j - k) / (N * M);
    int ind = N * M * i + M * j + k;
    out[ind] = (k <= j ? 0.f : in[ind]);
  }
}
__global__ void mask_fast(int n, int N, int M, const float *in, float *out) {
  Div dM(M), dN(N), dNM(N * M);
  for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < n; index += blockDim.x * gridDim.x) {
    int k = dM.mod(index);
    int j = dN.mod(dM.div(index - k));
    int i = dNM.div(index - M * j - k);
    int ind = N * M * i + M * j + k;
    out[ind] = (k <= j ? 0.f : in[ind]);
  }
}
__global__ void rot(int cnt, int n, const char *g, const int *a, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= cnt) return;
  int x = a[t], y = a[(t + 1) % cnt], r = 0;
  for (int i = 0; i < n; i++)
    if (g[(x + i) % n] != g[(y + i) % n]) { r = g[(x + i) % n] < g[(y + i) % n] ? 1 : -1; break; }
  out[t] = r;
}
__global__ void rot_fast(int cnt, int n, const char *g, const int *a, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= cnt) return;
  Div dn(n);
  int x = a[t], y = a[(t + 1) % cnt], r = 0;
  for (int i = 0; i < n; i++)
    if (g[dn.mod(x + i)] != g[dn.mod(y + i)]) { r = g[dn.mod(x + i)] < g[dn.mod(y + i)] ? 1 : -1; break; }
  out[t] = r;
}

int main() {
  const int n = 1 << 26, M = 1000, N = 700;
  const int bs = 256, grid = 132 * 16;
  float *in, *o1, *o2; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&o1, n * 4)); CK(cudaMalloc(&o2, n * 4));
  std::vector<float> h(n); for (int i = 0; i < n; i++) h[i] = (float)(i % 977) * 0.5f;
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<float> r1(n), r2(n);
  auto same = [&](const char *what) {
    CK(cudaMemcpy(r1.data(), o1, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r2.data(), o2, n * 4, cudaMemcpyDeviceToHost));
    bool ok = !memcmp(r1.data(), r2.data(), n * 4);
    printf("check %-10s %s\n", what, ok ? "identical" : "DIFFERENT");
    return ok;
  };
  float tc = timeit([&] { copy<<<grid, bs>>>(n, in, o1); }, 20);
  printf("copy        %.4f ms  %.0f GB/s\n", tc, 2.0 * n * 4 / tc / 1e6);
  for (int nm : {M, 7, 1 << 10}) {
    float a = timeit([&] { mod1<<<grid, bs>>>(n, nm, in, o1); }, 20);
    float b = timeit([&] { mod1_fast<<<grid, bs>>>(n, nm, in, o2); }, 20);
    printf("mod1 M=%-5d %.4f ms  fast %.4f ms  speedup %.2fx  (orig/copy %.2f)\n", nm, a, b, a / b, a / tc);
    same("mod1");
  }
  {
    CK(cudaMemset(o1, 0, n * 4)); CK(cudaMemset(o2, 0, n * 4));
    int nn = (n / (N * M)) * N * M;
    float a = timeit([&] { mask<<<grid, bs>>>(nn, N, M, in, o1); }, 20);
    float b = timeit([&] { mask_fast<<<grid, bs>>>(nn, N, M, in, o2); }, 20);
    printf("mask        %.4f ms  fast %.4f ms  speedup %.2fx  (orig/copy %.2f)\n", a, b, a / b, a / tc);
    same("mask");
  }
  {
    const int cnt = 1 << 16, len = 4096;
    char *g; int *a, *ro1, *ro2;
    CK(cudaMalloc(&g, len)); CK(cudaMalloc(&a, cnt * 4)); CK(cudaMalloc(&ro1, cnt * 4)); CK(cudaMalloc(&ro2, cnt * 4));
    std::vector<char> hg(len); for (int i = 0; i < len; i++) hg[i] = "ACGT"[(i * 7 + i / 13) % 4];
    for (int i = 0; i < 64; i++) hg[i * 64] = 'A';  // long common prefixes
    std::vector<int> ha(cnt); for (int i = 0; i < cnt; i++) ha[i] = (int)((i * 2654435761u) % len);
    CK(cudaMemcpy(g, hg.data(), len, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(a, ha.data(), cnt * 4, cudaMemcpyHostToDevice));
    float ta = timeit([&] { rot<<<cnt / 256, 256>>>(cnt, len, g, a, ro1); }, 20);
    float tb = timeit([&] { rot_fast<<<cnt / 256, 256>>>(cnt, len, g, a, ro2); }, 20);
    std::vector<int> x1(cnt), x2(cnt);
    CK(cudaMemcpy(x1.data(), ro1, cnt * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(x2.data(), ro2, cnt * 4, cudaMemcpyDeviceToHost));
    printf("rot         %.4f ms  fast %.4f ms  speedup %.2fx\n", ta, tb, ta / tb);
    printf("check rot        %s\n", x1 == x2 ? "identical" : "DIFFERENT");
  }
  return 0;
}
