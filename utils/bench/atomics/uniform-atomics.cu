// Atomics by every thread of a warp on one address: which does nvcc 13
// aggregate across the warp by itself (one atomic per warp), and which stay
// 32 atomics? Compile with -cubin -arch=sm_90 and read the SASS (see
// uniform-atomics.sh), or run: each kernel's time next to the same
// operation done with one atomic per warp by hand.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__global__ void add_const_int(int *p) { atomicAdd(p, 1); }
__global__ void add_const10_int(int *p) { atomicAdd(p, 10); }
__global__ void add_uniform_int(int *p, int v) { atomicAdd(p, v); }
__global__ void add_tid_int(int *p) { atomicAdd(p, (int)threadIdx.x); }
__global__ void add_const_float(float *p) { atomicAdd(p, 1.0f); }
__global__ void add_tid_float(float *p) { atomicAdd(p, (float)threadIdx.x); }
__global__ void max_tid_int(int *p) { atomicMax(p, (int)threadIdx.x); }
__global__ void min_tid_int(int *p) { atomicMin(p, (int)threadIdx.x); }
__global__ void or_tid_int(int *p) { atomicOr(p, (int)threadIdx.x); }
__global__ void add_const_sys(int *p) { atomicAdd_system(p, 10); }
__global__ void add_ret_int(int *p, int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = atomicAdd(p, 1); }
// By hand: one atomic per warp.
__global__ void add_tid_int_warp(int *p) {
  int v = threadIdx.x;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(p, v);
}
__global__ void max_tid_int_warp(int *p) {
  int v = __reduce_max_sync(0xffffffffu, (int)threadIdx.x);
  if ((threadIdx.x & 31) == 0) atomicMax(p, v);
}
__global__ void add_tid_float_warp(float *p) {
  float v = threadIdx.x;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(p, v);
}

template <class F> float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  f(); cudaDeviceSynchronize();
  std::vector<float> ts;
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[5];
}

int main() {
  int *pi, *out; float *pf;
  cudaMalloc(&pi, 4); cudaMalloc(&pf, 4);
  const int G = 132 * 64, B = 256;
  cudaMalloc(&out, sizeof(int) * G * B);
#define T(name, ...) printf("%-20s %.4f ms\n", #name, timeit([&] { name<<<G, B>>>(__VA_ARGS__); }))
  T(add_const_int, pi); T(add_const10_int, pi); T(add_uniform_int, pi, 3); T(add_tid_int, pi);
  T(add_tid_int_warp, pi); T(add_const_float, pf); T(add_tid_float, pf); T(add_tid_float_warp, pf);
  T(max_tid_int, pi); T(max_tid_int_warp, pi); T(min_tid_int, pi); T(or_tid_int, pi);
  T(add_const_sys, pi); T(add_ret_int, pi, out);
  return 0;
}
