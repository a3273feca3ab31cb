// launch-coarsen-rows counts the global loads written in a kernel: a
// subscript through a pointer into the thread's own registers
// (`reinterpret_cast<const uchar4 *>(&top)[i]`) is not one, and the element
// a struct assignment stores (`dst[i] = *reinterpret_cast<const uint2 *>(
// out)`, an operator call) is not a load. This 2x downsampling makes two
// global loads, below MinLoads (3): no finding. Loads through a parameter
// declared as an array of rows (`const float a[][256]`) count.
// RUN: %cuda-l1-rewrite --rules='-*,launch-coarsen-rows' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// CHECK: warning: each thread of 'rows3' computes one element of a 32x8 block with 3 global loads in its code
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>

__device__ __forceinline__ uchar4 avg4(uchar4 a, uchar4 b, uchar4 c, uchar4 d) {
  return make_uchar4((a.x + b.x + c.x + d.x + 2) >> 2,
                     (a.y + b.y + c.y + d.y + 2) >> 2,
                     (a.z + b.z + c.z + d.z + 2) >> 2,
                     (a.w + b.w + c.w + d.w + 2) >> 2);
}

__global__ void mip_down2(const uint4 *__restrict__ src, uint2 *__restrict__ dst,
                          int src_w, int src_h) {
  const int qx = blockIdx.x * blockDim.x + threadIdx.x;
  const int oy = blockIdx.y * blockDim.y + threadIdx.y;
  const int qw = src_w / 4;
  if (qx >= qw || oy >= src_h / 2)
    return;
  const uint4 top = src[(size_t)(2 * oy) * qw + qx];
  const uint4 bot = src[(size_t)(2 * oy + 1) * qw + qx];
  const uchar4 *t = reinterpret_cast<const uchar4 *>(&top); // registers
  const uchar4 *b = reinterpret_cast<const uchar4 *>(&bot);
  uchar4 out[2] = {avg4(t[0], t[1], b[0], b[1]), avg4(t[2], t[3], b[2], b[3])};
  dst[(size_t)oy * qw + qx] = *reinterpret_cast<const uint2 *>(out);
}

__global__ void rows3(const float a[][256], float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 255 && y < n - 1)
    out[y * 256 + x] = a[y][x] + a[y][x + 1] + a[y + 1][x];
}

void run(const uint4 *src, uint2 *dst, int w, int h) {
  const dim3 grid((w / 4 + 31) / 32, (h / 2 + 7) / 8);
  mip_down2<<<grid, dim3(32, 8)>>>(src, dst, w, h);
  rows3<<<dim3(8, h / 8), dim3(32, 8)>>>((const float (*)[256])src, (float *)dst, h);
}
