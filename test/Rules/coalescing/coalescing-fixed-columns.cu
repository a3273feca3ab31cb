// coalescing-uncoalesced-access and coalescing-strided-access: a kernel that
// touches a fixed few elements of each row (a boundary column, a column of
// multipliers, a small record of a run-time length) has nothing to
// coalesce within itself; a kernel whose other accesses, loops, block
// index or second thread dimension move along those rows is reported.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access,coalescing-strided-access' %s -- 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>
#include <cstddef>

// Silent: the last element of each row, grid-stride over rows * planes.
__global__ void bound_last(float2 *a, size_t rows, size_t cols, size_t planes) {
  for (size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
       id < cols * planes; id += blockDim.x * gridDim.x) {
    size_t idx = id * rows + (rows - 1);
    a[idx] = make_float2(0.f, 0.f);
  }
}

// Silent: the multipliers of column t (Gaussian elimination's first step);
// the pivot is one element for all threads.
__global__ void multipliers(float *m, const float *a, int size, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < size - 1 - t)
    m[size * (i + t + 1) + t] = a[size * (i + t + 1) + t] / a[size * t + t];
}

// Silent: a record of `terms` floats per point, all of its fields written.
__global__ void charges(float *q, const float *xs, const float *ys, int n,
                        int terms) {
  int p = threadIdx.x + blockIdx.x * blockDim.x;
  if (p >= n)
    return;
  float x = xs[p], y = ys[p];
  q[p * terms + 0] = 1.0f;
  q[p * terms + 1] = x;
  q[p * terms + 2] = y;
  q[p * terms + 3] = x * x + y * y;
}

// Silent: rows of 4096 bytes (a constant length), the first element of each.
#define ROW 1024
__global__ void pad_first(float *img, int plane, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n)
    img[plane * ROW * ROW + g * ROW] = 0.0f;
}

// Reported: each thread walks its own row.
__global__ void row_sum(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += a[r * cols + c];
  // CHECK: :[[@LINE-1]]:10: warning: uncoalesced global load: consecutive threads are 'cols' elements apart
  out[r] = s;
}

// Reported: the block's index picks the column, the threads walk the rows.
__global__ void column_per_block(const float *v, float *out, int n, int d) {
  int j = blockIdx.x;
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += v[i * d + j];
  // CHECK: :[[@LINE-1]]:10: warning: uncoalesced global load: consecutive threads are 'd' elements apart
  if (threadIdx.x == 0)
    out[j] = s;
}

// Reported: a 2-D block whose y threads move along the rows (the mapping
// is swapped; another thread of the kernel reads the neighbouring element).
__global__ void swapped(const float *in, float *out, int w, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < h && c < w)
    out[r * w + c] = 2.0f * in[r * w + c];
  // CHECK: :[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'w' elements apart
  // CHECK: :[[@LINE-2]]:29: warning: uncoalesced global load: consecutive threads are 'w' elements apart
}

// Reported: a record of 12 floats of which only the first is read
// (48 bytes: a record, not a row; a structure of arrays helps every kernel).
struct Particle { float x, y, z, vx, vy, vz, ax, ay, az, m, q, r; };
__global__ void first_field(const Particle *p, float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = p[i].x;
  // CHECK: :[[@LINE-1]]:17: warning: strided global load: consecutive threads are 12 elements apart
}

// Reported: rows of a constant 4096 bytes walked by a loop.
__global__ void row_walk_const(const float *a, float *out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  float s = 0.0f;
  for (int k = 0; k < 16; ++k)
    s += a[g * ROW + k];
  // CHECK: :[[@LINE-1]]:10: warning: strided global load: consecutive threads are 1024 elements apart
  out[g] = s;
}

void run(float *a, float *b, float2 *c, Particle *p, int n) {
  bound_last<<<264, 256>>>(c, n, n, 4);
  multipliers<<<(n + 255) / 256, 256>>>(a, b, n, 3);
  charges<<<(n + 255) / 256, 256>>>(a, b, b, n, 4);
  pad_first<<<(n + 255) / 256, 256>>>(a, 2, n);
  row_sum<<<(n + 255) / 256, 256>>>(a, b, n, n);
  column_per_block<<<n, 256>>>(a, b, n, n);
  swapped<<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(a, b, n, n);
  first_field<<<(n + 255) / 256, 256>>>(p, a, n);
  row_walk_const<<<(n + 255) / 256, 256>>>(a, b, n);
}
