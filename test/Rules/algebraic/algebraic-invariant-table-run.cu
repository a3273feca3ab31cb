// algebraic-invariant-table, run: a 5x5 Gaussian blur of a small RGB image
// (2-D blocks of 16x8 threads, partial blocks at the edges: every thread
// fills the table and reaches the barrier, also those outside the image)
// and a 1-D window of 9 weights with a scalar parameter. Original and
// rewritten program, on the CPU emulation (utils/bench/cuemu), print the
// same bits (%a), and the tables were filled (the fix was applied).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  algebraic-invariant-table.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-table' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=APPLIED %s
// APPLIED: applied 2 fixes in 1 file
// RUN: FileCheck --check-prefix=TABLES %s < %t/t.cu
// TABLES: __shared__ float cuda_l1_w_table[25];
// TABLES: __shared__ float cuda_l1_w_table[9];
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: blur: {{[0-9]+}} {{[0-9]+}}
// RUNS: window: 0x{{.*}}
#include <cstdio>
#include <cstdlib>

#define RADIUS 2
#define SIGMA 1.5f
#define W 37
#define H 29

__global__ void blur(const unsigned char *in, unsigned char *out, int width, int height) {
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

__global__ void window(const float *in, float *out, int n, float sigma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = 0; k < 9; ++k) {
    float w = expf(-(float)((k - 4) * (k - 4)) / (2.0f * sigma * sigma));
    acc += w * in[(i + k) % n];
  }
  out[i] = acc;
}

int main() {
  const int px = W * H * 3, n = 300;
  unsigned char *h = (unsigned char *)malloc(px), *r = (unsigned char *)malloc(px);
  float *f = (float *)malloc(sizeof(float) * n), *g = (float *)malloc(sizeof(float) * n);
  unsigned s = 7;
  for (int i = 0; i < px; i++) {
    s = s * 1103515245u + 12345u;
    h[i] = (unsigned char)(s >> 16);
  }
  for (int i = 0; i < n; i++)
    f[i] = (float)((i * 37) % 101) / 17.0f;
  unsigned char *d_in, *d_out;
  float *d_f, *d_g;
  cudaMalloc(&d_in, px);
  cudaMalloc(&d_out, px);
  cudaMalloc(&d_f, sizeof(float) * n);
  cudaMalloc(&d_g, sizeof(float) * n);
  cudaMemcpy(d_in, h, px, cudaMemcpyHostToDevice);
  cudaMemcpy(d_f, f, sizeof(float) * n, cudaMemcpyHostToDevice);
  dim3 block(16, 8);
  dim3 grid((W + 15) / 16, (H + 7) / 8);
  blur<<<grid, block>>>(d_in, d_out, W, H);
  window<<<(n + 63) / 64, 64>>>(d_f, d_g, n, 1.25f);
  cudaMemcpy(r, d_out, px, cudaMemcpyDeviceToHost);
  cudaMemcpy(g, d_g, sizeof(float) * n, cudaMemcpyDeviceToHost);
  unsigned long sum = 0, weighted = 0;
  for (int i = 0; i < px; i++) {
    sum += r[i];
    weighted += (unsigned long)r[i] * (unsigned long)(i % 97 + 1);
  }
  printf("blur: %lu %lu\n", sum, weighted);
  float t = 0.0f;
  for (int i = 0; i < n; i++)
    t += g[i] * (float)(i % 13 + 1);
  printf("window: %a", t);
  for (int i = 0; i < n; i += 37)
    printf(" %a", g[i]);
  printf("\n");
  return 0;
}
