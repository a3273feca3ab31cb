// A finding that another enabled rule's finding at the same place subsumes
// is dropped: memory-atomic-contention says "32 atomics per warp on one
// address" where sync-warp-atomic-reduction reports the same atomic with
// its fix (or its reason for none). Alone, each rule still reports it.
// RUN: %cuda-l1-rewrite --rules='-*,memory-atomic-contention,sync-warp-atomic-reduction' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,memory-atomic-contention' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALONE --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

__global__ void total(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}
// BOTH: subsumed-findings.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// ALONE: subsumed-findings.cu:[[@LINE-3]]:5: warning: every thread of a warp performs an atomic on the same global address ('sum'){{.*}} [memory-atomic-contention]

// sync-warp-atomic-reduction reports it without a fix (the kernel's own
// shuffles) and says why: that still subsumes the contention finding.
__global__ void shuffled(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  atomicAdd(sum, v);
}
// BOTH: subsumed-findings.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// BOTH: note: no fix: the kernel already uses warp shuffles
// ALONE: subsumed-findings.cu:[[@LINE-4]]:3: warning: every thread of a warp performs an atomic{{.*}} [memory-atomic-contention]

void run(const float *in, float *sum, int n) {
  total<<<(n + 255) / 256, 256>>>(in, sum, n);
  shuffled<<<(n + 255) / 256, 256>>>(in, sum, n);
}
