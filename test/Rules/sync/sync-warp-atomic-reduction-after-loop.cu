// sync-warp-atomic-reduction beside a long loop. A 32-bit integer atomic to
// one global word, beside a counted loop of at least 64 iterations (a known
// count) that runs whenever it does, is not reported: the compiler merges
// each warp's updates, and that queue drains while the other warps run
// their loops (utils/experiments/atomic-after-loop.cu on an H200: 0.97x
// rewritten for 64 iterations, 1.00x for 256 to 4096, 2.1x for 16).
// Floating-point atomics (not merged per warp) stay reported, and so do
// integer ones beside a short loop, a loop of unknown count, or a loop on
// another path.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
#include <cuda_runtime.h>

// A Monte Carlo walk of `steps` steps (1000 at every launch); the count of
// walkers that start inside, then the walk: silent. The float sum of the
// squared end points after the walk: reported.
__global__ void walks(const float *start, int *inside, float *spread, int n,
                      int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = start[i];
  if (x * x < 1.0f)
    atomicAdd(inside, 1);
  unsigned s = 2463534242u ^ (unsigned)i;
  for (int k = 0; k < steps; ++k) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x += (s & 1u) ? 0.01f : -0.01f;
  }
  atomicAdd(spread, x * x);
  // CHECK: t.cu:[[@LINE-1]]:3: warning: every thread does an atomicAdd to the same address 'spread'{{.*}} [sync-warp-atomic-reduction]
}

// The count after the loop: silent with 1000 steps; reported with 16
// (short_walks), and with a count the launches do not fix (any_walks).
__global__ void ends(const float *start, unsigned *above, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = start[i];
  for (int k = 0; k < steps; ++k)
    x = x * 0.99f + 0.001f * k;
  if (x > 0.5f)
    atomicAdd(above, 1u);
}
__global__ void short_walks(const float *start, unsigned *above, int n,
                            int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = start[i];
  for (int k = 0; k < steps; ++k)
    x = x * 0.99f + 0.001f * k;
  if (x > 0.5f)
    atomicAdd(above, 1u);
  // CHECK: t.cu:[[@LINE-1]]:5: warning: every thread does an atomicAdd to the same address 'above'{{.*}} [sync-warp-atomic-reduction]
}
__global__ void any_walks(const float *start, unsigned *above, int n,
                          int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = start[i];
  for (int k = 0; k < steps; ++k)
    x = x * 0.99f + 0.001f * k;
  if (x > 0.5f)
    atomicAdd(above, 1u);
  // CHECK: t.cu:[[@LINE-1]]:5: warning: every thread does an atomicAdd to the same address 'above'{{.*}} [sync-warp-atomic-reduction]
}

// The loop on the other branch: reported.
__global__ void either(const float *start, int *hits, float *out, int n,
                       int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = start[i];
  if (x < 0.0f) {
    atomicAdd(hits, 1);
    // CHECK: t.cu:[[@LINE-1]]:5: warning: every thread does an atomicAdd to the same address 'hits'{{.*}} [sync-warp-atomic-reduction]
  } else {
    for (int k = 0; k < steps; ++k)
      x = x * 0.99f + 0.001f * k;
  }
  out[i] = x;
}

void run(const float *s, int *c, unsigned *u, float *f, int n, int m) {
  walks<<<n / 256, 256>>>(s, c, f, n, 1000);
  ends<<<n / 256, 256>>>(s, u, n, 1000);
  short_walks<<<n / 256, 256>>>(s, u, n, 16);
  any_walks<<<n / 256, 256>>>(s, u, n, m);
  either<<<n / 256, 256>>>(s, c, f, n, 1000);
}
