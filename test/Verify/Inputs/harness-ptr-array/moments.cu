// Device pointers kept in a host array and allocated in a counted loop; the
// kernels get its elements (d_out[0], d_out[1], ...).
#include <cuda_runtime.h>
#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

__global__ void moments(const float *x, float *mean, float *var, int rows,
                        int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0, s2 = 0;
  for (int c = 0; c < cols; c++) {
    s += x[r * cols + c];
    s2 += x[r * cols + c] * x[r * cols + c];
  }
  mean[r] = s / cols;
  var[r] = s2 / cols - (s / cols) * (s / cols);
}

__global__ void scale(float *y, const float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= f[0];
}

__global__ void copy_rows(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

__global__ void copy_bad(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// Ping-pong buffers passed as `float *bufs[2]` (the caller's array); the
// index is not known here, but both elements have one size.
void step_all(float *bufs[2], int which, int n) {
  copy_rows<<<n / 128, 128>>>(bufs[1 - which], bufs[which], n);
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 256;
  float *d_x, *d_out[3];
  CHECK(cudaMalloc(&d_x, sizeof(float) * rows * cols));
  for (int k = 0; k < 2; k++)
    CHECK(cudaMalloc(&d_out[k], sizeof(float) * rows));
  CHECK(cudaMalloc(&d_out[2], sizeof(float) * 8));
  moments<<<rows / 128, 128>>>(d_x, d_out[0], d_out[1], rows, cols);
  scale<<<rows / 128, 128>>>(d_out[1], d_out[2], rows);
  // An element no allocation reaches, and one whose index is not known.
  float *d_more[2];
  CHECK(cudaMalloc(&d_more[0], sizeof(float) * rows));
  copy_bad<<<rows / 128, 128>>>(d_more[1], d_out[argc], rows);
  float *d_pp[2];
  CHECK(cudaMalloc(&d_pp[0], sizeof(float) * rows));
  CHECK(cudaMalloc(&d_pp[1], sizeof(float) * rows));
  step_all(d_pp, argc % 2, rows);
  return 0;
}
