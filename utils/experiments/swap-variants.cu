// Experiment (not a test): how much coalescing-thread-mapping-swap gains on a
// 2-D kernel whose rows run along threadIdx.x, for several block shapes.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__global__ void orig(const float *in, float *out, int W, int H, float a) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < H && c < W) out[r * W + c] = a * in[r * W + c] + 1.0f;
}
__global__ void swapped(const float *in, float *out, int W, int H, float a) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < H && c < W) out[r * W + c] = a * in[r * W + c] + 1.0f;
}

int main() {
  const int W = 4096, H = 4096;
  float *in, *out, *flush;
  cudaMalloc(&in, sizeof(float) * W * H);
  cudaMalloc(&out, sizeof(float) * W * H);
  cudaMalloc(&flush, 256 << 20);
  cudaMemset(in, 0, sizeof(float) * W * H);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  int shapes[][2] = {{16, 16}, {32, 32}, {32, 8}, {8, 32}, {64, 4}, {256, 1}};
  for (auto &s : shapes) {
    dim3 b(s[0], s[1]), g((H + b.x - 1) / b.x, (W + b.y - 1) / b.y);
    dim3 b2(b.y, b.x), g2(g.y, g.x);
    std::vector<float> t[2];
    for (int i = 0; i < 43; ++i)
      for (int w = 0; w < 2; ++w) {
        cudaMemset(flush, i, 256 << 20);
        cudaEventRecord(e0);
        if (w == 0) orig<<<g, b>>>(in, out, W, H, 3.0f);
        else swapped<<<g2, b2>>>(in, out, W, H, 3.0f);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 3) t[w].push_back(ms * 1000);
      }
    for (auto &v : t) std::sort(v.begin(), v.end());
    double a = t[0][t[0].size() / 2], c = t[1][t[1].size() / 2];
    printf("block %3dx%-3d  original %8.1f us  swapped %8.1f us  %5.2fx  %s\n",
           s[0], s[1], a, c, a / c, cudaGetErrorString(cudaGetLastError()));
  }
}
