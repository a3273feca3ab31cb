// coalescing-uncoalesced-access and coalescing-strided-access on a pooling
// window: each thread reads `stride` elements apart along x and walks a
// window of `width` elements with an inner loop. When every launch passes
// the window width equal to the stride (a parameter both times), the
// window's iterations read the bytes between the lanes: every fetched
// sector is used. A window narrower than the stride, or one whose width the
// launches do not fix, is reported.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access,coalescing-strided-access' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

// A 2x2 max pool over a stack of images on an 8x8x4 block: the stride and
// the window come from one host variable. Silent.
__global__ void pool_max(const float *in, float *out, int sx, int sy, int wx,
                         int wy, int count, int w, int h, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= ow || y >= oh || z >= count)
    return;
  float m = 0.0f;
  for (int r = 0; r < wy; r++) {
    int base = (z * h + sy * y + r) * w + sx * x;
    for (int c = 0; c < wx; c++)
      m = fmaxf(m, in[base + c]);
  }
  out[(z * oh + y) * ow + x] = m;
}

// The same walk with a window of one element: half of every sector is
// never read.
__global__ void pool_first(const float *in, float *out, int sx, int sy, int wx,
                           int wy, int count, int w, int h, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= ow || y >= oh || z >= count)
    return;
  float m = 0.0f;
  for (int r = 0; r < wy; r++) {
    int base = (z * h + sy * y + r) * w + sx * x;
    for (int c = 0; c < wx; c++)
      m = fmaxf(m, in[base + c]);
    // CHECK: t.cu:[[@LINE-1]]:{{[0-9]+}}: warning: uncoalesced global load: consecutive threads are '2' elements apart and a warp spans several rows{{.*}} [coalescing-uncoalesced-access]
  }
  out[(z * oh + y) * ow + x] = m;
}

// A window the launches do not fix (two launches, two widths): reported.
__global__ void pool_any(const float *in, float *out, int sx, int sy, int wx,
                         int wy, int count, int w, int h, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= ow || y >= oh || z >= count)
    return;
  float m = 0.0f;
  for (int r = 0; r < wy; r++) {
    int base = (z * h + sy * y + r) * w + sx * x;
    for (int c = 0; c < wx; c++)
      m = fmaxf(m, in[base + c]);
    // CHECK: t.cu:[[@LINE-1]]:{{[0-9]+}}: warning: uncoalesced global load: consecutive threads are '2' elements apart and a warp spans several rows{{.*}} [coalescing-uncoalesced-access]
  }
  out[(z * oh + y) * ow + x] = m;
}

void run(const float *in, float *out, int w, int h, int count) {
  int sx = 2, sy = 2;
  int ow = w / sx, oh = h / sy;
  const int wx = sx, wy = sy;
  dim3 block(8, 8, 4);
  dim3 grid((ow + 7) / 8, (oh + 7) / 8, (count + 3) / 4);
  pool_max<<<grid, block>>>(in, out, sx, sy, wx, wy, count, w, h, ow, oh);
  pool_first<<<grid, block>>>(in, out, sx, sy, 1, 1, count, w, h, ow, oh);
  pool_any<<<grid, block>>>(in, out, sx, sy, wx, wy, count, w, h, ow, oh);
  pool_any<<<grid, block>>>(in, out, sx, sy, 1, 1, count, w, h, ow, oh);
}
