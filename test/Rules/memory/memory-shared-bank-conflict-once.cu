// memory-shared-bank-conflict on accesses that run once per thread. A
// 6x6 block stores each thread's value into a tile at a stride of 6 words:
// warp 0's lanes wrap past bank 31 on a few banks only, 2-way, one extra
// wavefront per warp. Beside the global load of the value (and the global
// store of the result) that run whenever it does, it is not reported. The
// same store with nothing global beside it, the same tile read in a loop,
// and a 32-way conflict once per thread beside two global accesses (31
// extra wavefronts) are reported.
// RUN: %cuda-l1-rewrite --rules='-*,memory-shared-bank-conflict' %s -- 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>

__global__ void tile_transform(const float *in, float *out) {
  __shared__ float tile[6 * 6];
  int t = threadIdx.y * 6 + threadIdx.x;
  tile[threadIdx.x * 6 + threadIdx.y] = in[blockIdx.x * 36 + t];
  __syncthreads();
  out[blockIdx.x * 36 + t] = tile[t] * 2.f;
}

// Nothing global runs beside the conflicting store.
// CHECK: [[@LINE+4]]:3: warning: 2-way shared memory bank conflict on store of 'tile'
__global__ void tile_local(float *out, int n) {
  __shared__ float tile[6 * 6];
  int t = threadIdx.y * 6 + threadIdx.x;
  tile[threadIdx.x * 6 + threadIdx.y] = float(t);
  __syncthreads();
  if (t == 0 && blockIdx.x < n)
    out[blockIdx.x] = tile[35];
}

// In a loop: the extra wavefront on every iteration.
// CHECK: [[@LINE+8]]:12: warning: 2-way shared memory bank conflict on load of 'tile'
__global__ void tile_loop(const float *in, float *out, int reps) {
  __shared__ float tile[6 * 6];
  int t = threadIdx.y * 6 + threadIdx.x;
  tile[t] = in[blockIdx.x * 36 + t];
  __syncthreads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r)
    acc += tile[threadIdx.x * 6 + threadIdx.y] * float(r);
  out[blockIdx.x * 36 + t] = acc;
}

// 32x8 block reading a column of a 32x32 tile: 32-way, 31 extra
// wavefronts per warp beside 2 global accesses.
// CHECK: [[@LINE+6]]:31: warning: 32-way shared memory bank conflict on load of 'rows'
__global__ void column_once(const float *in, float *out) {
  __shared__ float rows[32 * 32];
  int t = threadIdx.y * 32 + threadIdx.x;
  rows[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = rows[threadIdx.x * 32 + threadIdx.y];
}

void run(const float *in, float *out, int n) {
  tile_transform<<<n, dim3(6, 6)>>>(in, out);
  tile_local<<<n, dim3(6, 6)>>>(out, n);
  tile_loop<<<n, dim3(6, 6)>>>(in, out, 16);
  column_once<<<n, dim3(32, 8)>>>(in, out);
}
