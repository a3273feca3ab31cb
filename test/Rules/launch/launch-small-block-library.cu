// launch-small-block: no fold for kernels whose library calls read the
// thread index themselves (cooperative groups here): the finding stays,
// without a fix, and the file is not changed.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-block' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: diff %s %t/t.cu
#include <cooperative_groups.h>

__global__ void ranked(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cooperative_groups::thread_block b = cooperative_groups::this_thread_block();
  if (i < n)
    out[i] = s[i] + (float)b.thread_rank();
}

void run(const float *d_s, float *d_c, int n) {
  ranked<<<(n + 31) / 32, 32>>>(d_s, d_c, n);
  // CHECK: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK: note: no fix: the kernel could tell larger blocks apart: {{.*}}
}
