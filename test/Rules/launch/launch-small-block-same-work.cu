// launch-small-block: not reported for a kernel whose threads cannot tell
// each other apart (no threadIdx read, in it or its callees, and no atomic
// or warp operation that could hand them different work): more threads per
// block would repeat the same work. Seen in a memory-latency probe that
// chases pointers with one thread per block (`<<<smCount, 1>>>`). A kernel
// that takes its work from an atomic ticket is still reported, and so is
// one that reads threadIdx.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-block' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

struct Node {
  Node *next;
};

__device__ Node *walk(Node *p, unsigned steps) {
  for (unsigned i = 0; i < steps; ++i)
    p = p->next;
  return p;
}

__global__ void chase(Node *head, unsigned steps, unsigned target, Node **out) {
  if (blockIdx.x != target)
    return;
  Node *p = walk(head, steps);
  if (p == nullptr)
    *out = p;
}

__global__ void from_queue(const float *in, float *out, int *next, int n) {
  for (int i = atomicAdd(next, 1); i < n; i = atomicAdd(next, 1))
    out[i] = 2.0f * in[i];
}

__global__ void per_thread(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

void probe(Node *head, Node **out, const float *in, float *o, int *next, int n) {
  for (unsigned sm = 0; sm < 132; ++sm)
    chase<<<132, 1>>>(head, 1u << 20, sm, out);
  from_queue<<<4096, 8>>>(in, o, next, n);
  // CHECK: t.cu:[[@LINE-1]]:3: warning: blocks of 8 threads{{.*}} [launch-small-block]
  per_thread<<<(n + 15) / 16, 16>>>(in, o, n);
  // CHECK: t.cu:[[@LINE-1]]:3: warning: blocks of 16 threads{{.*}} [launch-small-block]
}
