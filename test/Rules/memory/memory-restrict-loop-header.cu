// memory-restrict names the loop that makes the qualifier matter; when the
// loop is in a helper in another file than the kernel, by that file's name.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %S/Inputs/restrict-helper.cuh %t/
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' %t/t.cu 2>&1 | FileCheck %s
#include <cuda_runtime.h>
#include "restrict-helper.cuh"

__global__ void rows(const float *a, float *b, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  copy_scaled(a + r * n, b + r * n, n, 2.0f);
}
// CHECK: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b' are not __restrict__{{.*}}: the loop at restrict-helper.cuh:4 stores through 'b' and loads through 'a' [memory-restrict]

__global__ void here(const float *a, float *b, int n) {
  for (int j = 0; j < n; j++)
    b[threadIdx.x * n + j] = a[threadIdx.x * n + j] + 1.0f;
}
// CHECK: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'b' and loads through 'a' [memory-restrict]
