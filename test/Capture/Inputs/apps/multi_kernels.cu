// Capture sample: several kernels in one application, pointers offset into
// one larger allocation (x, y and out live in one cudaMalloc), a
// __constant__ table and a __device__ counter.
#include "check.h"

#include <vector>

__constant__ float c_coef[4];
__device__ unsigned g_positive;

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void scale_by_coef(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * c_coef[i & 3] + c_coef[(i + 1) & 3];
}

__global__ void count_positive(const float *v, int n, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] > 0.0f) {
    atomicAdd(count, 1u);
    atomicAdd(&g_positive, 1u);
  }
}

__global__ void add_rows(float *out, const float *in, int rows, int cols, int ld) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[r * ld + c] += 0.5f * in[r * ld + c];
}

int main() {
  const int n = 1 << 16, rows = 128, cols = 256, ld = 512; // rows * ld == n
  // One arena: x at float 64, y at n + 128, out at 2n + 256.
  float *arena = nullptr;
  const size_t arenaFloats = 3 * size_t(n) + 1024;
  CHECK(cudaMalloc(&arena, arenaFloats * sizeof(float)));
  CHECK(cudaMemset(arena, 0, arenaFloats * sizeof(float)));
  float *x = arena + 64, *y = arena + n + 128, *out = arena + 2 * n + 256;
  unsigned *count = nullptr;
  CHECK(cudaMalloc(&count, sizeof(unsigned)));
  CHECK(cudaMemset(count, 0, sizeof(unsigned)));

  std::vector<float> hx(n), hy(n), hout(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = float(i % 17 - 8) * 0.25f;
    hy[i] = float(i % 101) * 0.01f - 0.3f;
    hout[i] = float(i % 7);
  }
  const float coef[4] = {1.5f, -0.5f, 2.0f, 0.25f};
  CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(out, hout.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block;
  saxpy<<<grid, block>>>(n, 2.0f, x, y);
  CHECK_LAUNCH();
  scale_by_coef<<<grid, block>>>(y, n);
  CHECK_LAUNCH();
  count_positive<<<grid, block>>>(y, n, count);
  CHECK_LAUNCH();
  add_rows<<<dim3(cols / 16, rows / 16), dim3(16, 16)>>>(out, y, rows, cols, ld);
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> gy(n), gout(n);
  unsigned gcount = 0, gpos = 0;
  CHECK(cudaMemcpy(gy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gcount, count, sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&gpos, g_positive, sizeof(unsigned)));

  int bad = 0;
  unsigned positive = 0;
  for (int i = 0; i < n; ++i) {
    double v = 2.0 * hx[i] + hy[i];
    v = v * coef[i & 3] + coef[(i + 1) & 3];
    bad += !close_to(gy[i], v);
    positive += gy[i] > 0.0f;
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < ld; ++c) {
      int i = r * ld + c;
      double want = c < cols ? hout[i] + 0.5 * gy[i] : hout[i];
      bad += !close_to(gout[i], want);
    }
  bad += gcount != positive;
  bad += gpos != positive;
  CHECK(cudaFree(arena));
  CHECK(cudaFree(count));
  return finish("multi_kernels", bad);
}
