// The symbolic index analysis (--dump-accesses) on pointers that a kernel
// steps through their own array (`p += n`, `p++`, `p = p - k`): the array
// and its memory space stay known, the offset does not. A pointer assigned
// another array is unknown. A copy assignment of a struct reads its source.
// RUN: %cuda-l1-rewrite --dump-accesses --rules=-* %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>

__global__ void k(const float *a, float *b, const uint4 *q, int n) {
  __shared__ float ring[512];
  float *r = ring + 256;
  const float *p = a + threadIdx.x;
  const float *o = a;
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    r[threadIdx.x - 256] = p[0];
    s += r[255 - threadIdx.x];
    p += blockDim.x;
    r = r - 1;
    if (s > 1.0f)
      o = b;
    s += o[i];
  }
  uint4 v;
  v = q[threadIdx.x];
  b[threadIdx.x] = s + v.x;
}

void launch(const float *a, float *b, const uint4 *q, int n) {
  k<<<n / 128, 128>>>(a, b, q, n);
}

// CHECK: kernel k block 128x1x1
// CHECK: 15:5 shared write r[threadIdx.x - 256] base ring addr unknown
// CHECK-NEXT: 15:28 global read p[0] base a addr unknown bytes 4 loops 1
// CHECK-NEXT: 16:10 shared read r[255 - threadIdx.x] base ring addr unknown
// CHECK-NEXT: 21:10 unknown read o[i] base ? addr unknown bytes 4 loops 1
// CHECK-NEXT: 24:7 global read q[threadIdx.x] base q addr 16*threadIdx.x bytes 16 -> coalesced
// CHECK-NEXT: 25:3 global write b[threadIdx.x] base b addr 4*threadIdx.x bytes 4
