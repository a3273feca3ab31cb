// coalescing-uncoalesced-access and coalescing-strided-access beside inner
// arithmetic: each thread runs its own recurrence over a series (one row of
// `obs` per thread, so lanes are a row apart), and every step also
// multiplies thread-local matrices in inner loops of known size. With at
// least 320 innermost iterations per global access of the step, the
// step is bound by its arithmetic: not reported. Reported: the same walk
// when the products run only under a condition, when they are too small
// (4x4x4 twice per step against 2 accesses), and when their size is a
// run-time value.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access,coalescing-strided-access' %s -- 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>

template <int D>
__device__ void mat_mul(const float *a, const float *b, float *c) {
  for (int r = 0; r < D; ++r)
    for (int q = 0; q < D; ++q) {
      float acc = 0.f;
      for (int k = 0; k < D; ++k)
        acc += a[r * D + k] * b[k * D + q];
      c[r * D + q] = acc;
    }
}

// 8x8x8 = 512 iterations twice per step, 2 global accesses: 1024 >= 640.
template <int D>
__global__ void filter_steps(const float *obs, float *resid, int steps,
                             int count) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  float m[D * D], p[D * D], t[D * D];
  for (int e = 0; e < D * D; ++e) {
    m[e] = e % (D + 1) == 0 ? 0.9f : 0.01f;
    p[e] = 1.f;
  }
  for (int k = 0; k < steps; ++k) {
    float y = obs[s * steps + k];
    mat_mul<D>(m, p, t);
    mat_mul<D>(t, m, p);
    resid[s * steps + k] = y - p[0];
  }
}

// The products only on some steps: the access may run without them.
// CHECK: [[@LINE+10]]:15: warning: uncoalesced global load{{.*}}[coalescing-uncoalesced-access]
// CHECK: [[@LINE+14]]:5: warning: uncoalesced global store{{.*}}[coalescing-uncoalesced-access]
template <int D>
__global__ void filter_some(const float *obs, float *resid, int steps,
                            int count, int every) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  float m[D * D] = {}, p[D * D] = {}, t[D * D];
  for (int k = 0; k < steps; ++k) {
    float y = obs[s * steps + k];
    if (k % every == 0) {
      mat_mul<D>(m, p, t);
      mat_mul<D>(t, m, p);
    }
    resid[s * steps + k] = y - p[0];
  }
}

// 4x4x4 twice: 128 innermost iterations for 2 accesses, below 640.
// CHECK: [[@LINE+10]]:15: warning: uncoalesced global load{{.*}}[coalescing-uncoalesced-access]
// CHECK: [[@LINE+12]]:5: warning: uncoalesced global store{{.*}}[coalescing-uncoalesced-access]
template <int D>
__global__ void filter_small(const float *obs, float *resid, int steps,
                             int count) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  float m[D * D] = {}, p[D * D] = {}, t[D * D];
  for (int k = 0; k < steps; ++k) {
    float y = obs[s * steps + k];
    mat_mul<D>(m, p, t);
    mat_mul<D>(t, m, p);
    resid[s * steps + k] = y - p[0];
  }
}

// Inner loops bounded by a run-time size: their work is not known.
// CHECK: [[@LINE+9]]:15: warning: uncoalesced global load{{.*}}[coalescing-uncoalesced-access]
// CHECK: [[@LINE+13]]:5: warning: uncoalesced global store{{.*}}[coalescing-uncoalesced-access]
__global__ void filter_sized(const float *obs, float *resid, int steps,
                             int count, int d) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  float acc = 0.f;
  for (int k = 0; k < steps; ++k) {
    float y = obs[s * steps + k];
    for (int r = 0; r < d; ++r)
      for (int q = 0; q < d; ++q)
        for (int j = 0; j < d; ++j)
          acc = acc * 0.5f + float(r * q - j);
    resid[s * steps + k] = y - acc;
  }
}

void run(const float *obs, float *resid, int steps, int count, int d) {
  filter_steps<8><<<(count + 255) / 256, 256>>>(obs, resid, steps, count);
  filter_some<8><<<(count + 255) / 256, 256>>>(obs, resid, steps, count, 4);
  filter_small<4><<<(count + 255) / 256, 256>>>(obs, resid, steps, count);
  filter_sized<<<(count + 255) / 256, 256>>>(obs, resid, steps, count, d);
}
