// memory-atomic-contention: a global atomic to one address from every thread of a warp.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-atomic-contention' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-atomic-contention' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// Every thread adds to the same address: 32 serialized atomics per warp.
// (Reached from the loop below: one contended atomic per iteration.)
__device__ void add_to(float *sum, float v) { atomicAdd(sum, v); }
// CHECK-MESSAGES: t.cu:[[@LINE-1]]:47: warning: every thread of a warp performs an atomic on the same global address ('sum'){{.*}} [memory-atomic-contention]
// CHECK-MESSAGES: note: inside this loop: one contended atomic per iteration
// CHECK-MESSAGES: note: reached through this call
__global__ void total(const float *__restrict__ in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: every thread of a warp performs an atomic on the same global address ('sum'){{.*}} [memory-atomic-contention]
  for (int k = 0; k < 4; ++k)
    add_to(sum + 1, in[k]);
}

// Negative: one atomic per warp (lane 0), and per-thread addresses.
__global__ void per_warp(const float *__restrict__ in, float *sum,
                         float *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0)
    atomicAdd(sum, v);
  atomicAdd(&bins[i], v);
}
// Negative: nvcc 13 already combines 32-bit integer atomics at an address
// it sees as uniform (REDUX.MAX / REDUX.SUM / POPC in the SASS: one atomic
// per warp; the H200 times them like a hand-written warp reduction).
__global__ void peak(const int *__restrict__ in, int *top, unsigned *count) {
  atomicMax(top, in[blockIdx.x * blockDim.x + threadIdx.x]);
  atomicAdd(count + blockIdx.y, 1u);
}
// ... but not a maximum whose old value is used (one ATOMG per lane stays;
// an add's old value is handed out by one atomic and a shuffle), nor 64-bit
// ones (not measured: kept), nor a float add (not combined). A local never
// changed after an
// initialiser of parameters and blockIdx (`slot = which * 2`) is as uniform
// to the compiler as the expression itself (the same REDUX in the SASS:
// utils/experiments/atomic-uniform-local.cu): not reported.
__global__ void old_value(const int *__restrict__ in, int *top, int *seen) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  seen[i] = atomicMax(top, in[i]);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: every thread of a warp performs an atomic on the same global address ('top'){{.*}} [memory-atomic-contention]
  seen[i + 1] = atomicAdd(top + 1, 1);
}
__global__ void peak64(const unsigned long long *__restrict__ in,
                       unsigned long long *top, int *counts, int which) {
  atomicMax(top, in[blockIdx.x * blockDim.x + threadIdx.x]);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every thread of a warp performs an atomic on the same global address ('top'){{.*}} [memory-atomic-contention]
  int slot = which * 2;
  atomicAdd(&counts[slot], 1);
  atomicAdd((float *)&counts[slot + 1], 1.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every thread of a warp performs an atomic on the same global address ('(float *)&counts[slot + 1]'){{.*}} [memory-atomic-contention]
}

// Negative: the address holds a value from the thread's own local array
// (a pixel's bins): it differs from lane to lane.
__global__ void local_bins(const unsigned *__restrict__ px, float *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned bins[3];
  for (int c = 0; c < 3; ++c)
    bins[c] = (px[i] >> (8 * c)) & 255u;
  for (int c = 0; c < 3; ++c)
    atomicAdd(&hist[256 * c + bins[c]], 1.0f);
}

// Negative: operations that do not combine across lanes (a lock's
// compare-and-swap, an exchange, an increment modulo n: the contention is
// the design).
__global__ void not_combinable(int *lock, int *last, unsigned *ring) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  atomicExch(last, (int)threadIdx.x);
  atomicInc(ring, 16u);
}

// A program's own float max built on compare-and-swap, whose loop runs only
// while the thread's value beats the current one: once the maximum is near,
// a lane loads, compares and leaves without an atomic. Not reported. Its
// add built the same way retries until it succeeds: reported.
__device__ float atomicMaxFloat(float *addr, float val) {
  unsigned *p = (unsigned *)addr;
  unsigned old = *p;
  while (val > __uint_as_float(old)) {
    unsigned assumed = old;
    if ((old = atomicCAS(p, assumed, __float_as_uint(val))) == assumed)
      break;
  }
  return __uint_as_float(old);
}
__device__ double atomicAddDouble(double *addr, double val) {
  unsigned long long *p = (unsigned long long *)addr;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
__global__ void own_max(const float *in, float *best, double *total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicMaxFloat(best, in[i]);
  atomicAddDouble(total, (double)in[i]);
}
// CHECK-MESSAGES: t.cu:{{[0-9]+}}:{{[0-9]+}}: warning: every thread of a warp performs an atomic on the same global address ('p'){{.*}} [memory-atomic-contention]
// CHECK-MESSAGES: note: reached through this call

// Finding only: the file is not changed.
// CHECK-FIXES: atomicAdd(sum, in[i]);
