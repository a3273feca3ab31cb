// memory-shared-bank-conflict: shared-memory accesses whose threads collide in the same bank.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-shared-bank-conflict' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-shared-bank-conflict' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// Reads a column of a [32][32] tile: 32-way bank conflict. The padded tile
// ([32][33]) has none.
__global__ void transpose_tile(const float *__restrict__ in,
                               float *__restrict__ out, int n) {
  __shared__ float tile[32][32];
  __shared__ float padded[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  padded[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:22: warning: 32-way shared memory bank conflict on load of 'tile': consecutive threads are 32 words apart{{.*}} [memory-shared-bank-conflict]
  out[ty * n + tx] += padded[threadIdx.x][threadIdx.y];
}

// A 3-D stencil's cube (as in seismic codes: a 16^3 tile, 8x8x8 threads):
// a warp spans four rows 16 words apart, a 2-way conflict on every access.
// One finding per array and conflict, the other accesses in a note; a
// different conflict on the same array is its own finding.
__device__ float load_face(const float (*c)[16][16], int z, int y, int x) {
  return c[z][y][x];
}
__global__ void stencil_cube(const float *__restrict__ in,
                             float *__restrict__ out) {
  __shared__ float cube[16][16][16];
  int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  int g = ((blockIdx.x * 8 + tz) * 8 + ty) * 8 + tx;
  cube[tz + 4][ty + 4][tx + 4] = in[g];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 2-way shared memory bank conflict on store of 'cube': the warp spans several rows{{.*}} [memory-shared-bank-conflict]
  // CHECK-MESSAGES: t.cu:[[@LINE+2]]:{{[0-9]+}}: note: 3 more accesses of 'cube' in this kernel with the same conflict (lines [[@LINE+2]], [[@LINE+3]]); padding the array removes them all
  __syncthreads();
  float v = cube[tz + 4][ty + 4][tx + 3] + cube[tz + 4][ty + 4][tx + 5] +
            load_face(cube, tz + 4, ty + 4, tx + 4);
  out[g] = v + cube[tx][ty][tz];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: 16-way shared memory bank conflict on load of 'cube': consecutive threads are 256 words apart{{.*}} [memory-shared-bank-conflict]
}

// Seen in third-party code (a shared-memory benchmark): the fields of one
// float4 element written one by one are one 128-bit store for nvcc, which a
// quarter-warp serves in one wavefront: no conflict. Positive: one field
// alone (a 4-byte store, 4 words apart), and a float4 array walked two
// elements apart (a real 2-way conflict for the 128-bit access).
__global__ void vector_fields(float4 *g) {
  __shared__ float4 s[512];
  int t = threadIdx.x;
  s[t].x = 1.0f;
  s[t].y = 2.0f;
  s[t].z = 3.0f;
  s[t].w = 4.0f;
  s[256 + t].x = 5.0f;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:14: warning: 4-way shared memory bank conflict on store of 's': consecutive threads are 4 words apart, so a warp request takes 4 wavefronts instead of 1{{.*}} [memory-shared-bank-conflict]
  __syncthreads();
  float4 v = s[255 - t];
  v.x += s[2 * t].x;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:19: warning: 2-way shared memory bank conflict on load of 's': consecutive threads are 8 words apart, so a warp request takes 8 wavefronts instead of 4 (2x slower){{.*}} [memory-shared-bank-conflict]
  v.y += s[2 * t].y;
  v.z += s[2 * t].z;
  v.w += s[2 * t].w;
  g[t] = v;
}

// Positive: the fields on two branches are two 64-bit accesses, each with
// its conflict (8 words apart: 2-way per half-warp phase).
__global__ void split_fields(float4 *g, int flag) {
  __shared__ float4 s[512];
  int t = threadIdx.x;
  s[t] = g[t];
  s[t + 256] = g[t + 256];
  __syncthreads();
  float a, b;
  if (flag) {
    a = s[2 * t].x;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: {{[0-9]+}}-way shared memory bank conflict on load of 's'{{.*}} [memory-shared-bank-conflict]
    b = s[2 * t].y;
  } else {
    a = s[2 * t].z;
    b = s[2 * t].w;
  }
  g[t].x = a + b;
}

// The same inside a helper (a dot product's float2 tree in shared memory,
// seen in third-party code): `v[lid].x += v[lid + i].x; v[lid].y += ...`
// is one 64-bit load, load and store per step for nvcc: no conflict. One
// field alone in the helper is a 4-byte access 2 words apart: reported.
__device__ void tree_pairs(float2 *v) {
  int lid = threadIdx.x;
  for (int i = 64; i >= 1; i /= 2) {
    if (lid < i) {
      v[lid].x += v[lid + i].x;
      v[lid].y += v[lid + i].y;
    }
    __syncthreads();
  }
}
__device__ void tree_firsts(float2 *v) {
  int lid = threadIdx.x;
  for (int i = 64; i >= 1; i /= 2) {
    if (lid < i)
      v[lid].x += v[lid + i].x;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:{{[0-9]+}}: warning: 2-way shared memory bank conflict on read-modify-write of 's': consecutive threads are 2 words apart{{.*}} [memory-shared-bank-conflict]
    __syncthreads();
  }
}
__global__ void dot_pairs(const float2 *a, float2 *out) {
  __shared__ float2 s[128];
  s[threadIdx.x] = a[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  tree_pairs(s);
  tree_firsts(s);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

void launch(const float *in, float *out, int n) {
  transpose_tile<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
  stencil_cube<<<n / 512, dim3(8, 8, 8)>>>(in, out);
  vector_fields<<<1, 256>>>((float4 *)out);
  split_fields<<<1, 256>>>((float4 *)out, n);
  dot_pairs<<<n / 128, 128>>>((const float2 *)in, (float2 *)out);
}
// Finding only: the file is not changed.
// CHECK-FIXES: out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
