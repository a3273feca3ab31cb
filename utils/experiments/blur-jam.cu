// Experiment: blur's Gaussian kernel (after algebraic-invariant-table the
// weights come from a table; here from expf as in the corpus original, and
// from a constant table) with the outer channel loop (3 iterations, each
// with its own sums and output) jammed into the window loops: unroll and
// jam. Each channel keeps its own additions in the original order, so the
// output is bit for bit the original's; the clamped indices and the weight
// are computed once per tap instead of once per tap and channel.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define WIDTH 2048
#define HEIGHT 2048
#define RADIUS 2
#define SIGMA 1.5f
#define REPS 20

__global__ void blur_orig(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    for (int c = 0; c < 3; c++) {
      float sum = 0.0f, wsum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
          sum += w * in[(yy * width + xx) * 3 + c];
          wsum += w;
        }
      }
      out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
    }
  }
}

__global__ void blur_jam(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float sum[3], wsum[3];
#pragma unroll
    for (int c = 0; c < 3; c++) { sum[c] = 0.0f; wsum[c] = 0.0f; }
    for (int dy = -RADIUS; dy <= RADIUS; dy++) {
      for (int dx = -RADIUS; dx <= RADIUS; dx++) {
#pragma unroll
        for (int c = 0; c < 3; c++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
          sum[c] += w * in[(yy * width + xx) * 3 + c];
          wsum[c] += w;
        }
      }
    }
#pragma unroll
    for (int c = 0; c < 3; c++)
      out[(y * width + x) * 3 + c] = (unsigned char)(sum[c] / wsum[c] + 0.5f);
  }
}

template <typename F> float timeit(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaEventRecord(a);
  for (int i = 0; i < REPS; i++) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms * 1000 / REPS;
}

int main() {
  size_t bytes = (size_t)WIDTH * HEIGHT * 3;
  unsigned char *h = (unsigned char *)malloc(bytes), *r0 = (unsigned char *)malloc(bytes), *r1 = (unsigned char *)malloc(bytes);
  for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)((i * 2654435761u) >> 24);
  unsigned char *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMemcpy(in, h, bytes, cudaMemcpyHostToDevice));
  dim3 blk(32, 8), g((WIDTH + 31) / 32, (HEIGHT + 7) / 8);
  float t0 = timeit([&] { blur_orig<<<g, blk>>>(in, out, WIDTH, HEIGHT); });
  CK(cudaMemcpy(r0, out, bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemset(out, 0, bytes));
  float t1 = timeit([&] { blur_jam<<<g, blk>>>(in, out, WIDTH, HEIGHT); });
  CK(cudaMemcpy(r1, out, bytes, cudaMemcpyDeviceToHost));
  bool same = memcmp(r0, r1, bytes) == 0;
  printf("gaussian blur %dx%d RGB: original %.1f us, channel loop jammed %.1f us (%.2fx), %s\n", WIDTH, HEIGHT, t0, t1,
         t0 / t1, same ? "bit for bit the original's" : "DIFFERENT");
  printf(same ? "PASS\n" : "FAIL\n");
  return !same;
}
