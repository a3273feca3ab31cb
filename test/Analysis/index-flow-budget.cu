// The index-flow analysis behind --print-harness follows integer loads to
// name the buffers whose values a launch needs. Definitions that read loads
// indexed by locals defined from other loads made that search branch
// exponentially (a third-party graph kernel took minutes): it is bounded per
// access now. Before the bound this file did not finish in 60 s.
// RUN: timeout 60 %cuda-l1-rewrite --print-harness %s | FileCheck %s
// CHECK: chain (index-flow-budget.cu:{{[0-9]+}}:1): complete
// The kernel is loop-free: memory-restrict's RequireLoop is off so that it
// reports (its proof also follows the loads).
// RUN: rm -rf %t && mkdir -p %t && printf 'CheckOptions:\n  memory-restrict.RequireLoop: false\n' > %t/loopfree.yaml
// RUN: timeout 60 %cuda-l1-rewrite --config-file=%t/loopfree.yaml --rules='-*,memory-*' %s 2>&1 | FileCheck --check-prefix=ADVISE %s
// ADVISE: from cuda-l1 rules
#include <cuda_runtime.h>
__global__ void chain(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x0 = a[i];
  x0 = b[x0];
  int x1 = a[x0] + b[x0] + a[x0 + 1];
  x1 = b[x1] + a[x0 + 2];
  int x2 = a[x1] + b[x1] + a[x1 + 1];
  x2 = b[x2] + a[x1 + 2];
  int x3 = a[x2] + b[x2] + a[x2 + 1];
  x3 = b[x3] + a[x2 + 2];
  int x4 = a[x3] + b[x3] + a[x3 + 1];
  x4 = b[x4] + a[x3 + 2];
  int x5 = a[x4] + b[x4] + a[x4 + 1];
  x5 = b[x5] + a[x4 + 2];
  int x6 = a[x5] + b[x5] + a[x5 + 1];
  x6 = b[x6] + a[x5 + 2];
  int x7 = a[x6] + b[x6] + a[x6 + 1];
  x7 = b[x7] + a[x6 + 2];
  int x8 = a[x7] + b[x7] + a[x7 + 1];
  x8 = b[x8] + a[x7 + 2];
  int x9 = a[x8] + b[x8] + a[x8 + 1];
  x9 = b[x9] + a[x8 + 2];
  int x10 = a[x9] + b[x9] + a[x9 + 1];
  x10 = b[x10] + a[x9 + 2];
  int x11 = a[x10] + b[x10] + a[x10 + 1];
  x11 = b[x11] + a[x10 + 2];
  out[x11] = n;
}
int main() { int *a, *b, *o; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&o, 4096); chain<<<4, 256>>>(a, b, o, 7); return 0; }
