// Values that reach launches through host functions, templates, enums,
// constexpr and static const variables, allocation helpers and dim3
// components assigned one by one.
#include "config.h"

enum Tile { TILE_W = 16, TILE_H = 8 };
constexpr int kRows = 96;
static const int kCols = 160;

template <typename T, int BLOCK>
__global__ void fill_rows(T *data, T value, int rows, int cols) {
  int r = blockIdx.y * TILE_H + threadIdx.y;
  int c = blockIdx.x * BLOCK + threadIdx.x;
  if (r < rows && c < cols)
    data[r * cols + c] = value;
}

__global__ void shift(float *dst, float *src, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[(i + by) % n];
}

// An allocation helper with an out-parameter, and one returning the pointer.
static void alloc_floats(float **p, size_t count) {
  CHECK(cudaMalloc(p, count * sizeof(float)));
}

template <typename T> T *device_array(size_t count) {
  T *p = nullptr;
  CHECK(cudaMalloc((void **)&p, count * sizeof(T)));
  return p;
}

// Called twice with different sizes: two sets of values.
void run_shift(float *dst, float *src, int n) {
  int threads = 128;
  int blocks = n / threads;
  if (n % threads != 0)
    blocks += 1;
  shift<<<blocks, threads>>>(dst, src, n, 3);
}

template <typename T> void run_fill(T *data, T value) {
  dim3 threads;
  threads.x = TILE_W;
  threads.y = TILE_H;
  dim3 grid((kCols + TILE_W - 1) / TILE_W, kRows / TILE_H);
  fill_rows<T, TILE_W><<<grid, threads>>>(data, value, kRows, kCols);
}

int main() {
  float *small_in, *small_out;
  alloc_floats(&small_in, 1000);
  alloc_floats(&small_out, 1000);
  float *big = device_array<float>(2 * 4096);
  run_shift(small_out, small_in, 1000);
  run_shift(big + 4096, big, 4096);

  int *grid_i = device_array<int>(kRows * kCols);
  double *grid_d = device_array<double>(kRows * kCols);
  run_fill(grid_i, 7);
  run_fill(grid_d, 0.5);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
