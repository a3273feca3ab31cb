// A loop counter declared before the loop and reused by the next loops
// (seen in lud's diagonal kernel: `int i, j;` then five loops over i and
// j): each loop's trip count is known on its own, as long as the counter
// changes inside the loop only in its header. A counter changed in the
// body keeps the loop unknown.
// RUN: %cuda-l1-rewrite --dump-accesses --rules=-* %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
#define BS 16

__global__ void diag(float *m, int n) {
  __shared__ float sh[BS * BS];
  int i, j;
  int tx = threadIdx.x;
  for (i = 0; i < BS; i++)
    sh[i * BS + tx] = m[i * n + tx];
  __syncthreads();
  for (i = 1; i < BS; i++)
    for (j = 0; j < i; j++)
      sh[tx * BS + i] -= sh[tx * BS + j];
  for (i = 0; i < BS; i++) {
    if (sh[i] > 0.0f)
      i++;
    m[i] = sh[i];
  }
}

void launch(float *m, int n) { diag<<<1, BS>>>(m, n); }

// CHECK: kernel diag block 16x1x1
// CHECK-NEXT: loop 1 at 14:3 depth 0 iv i = i init 0 step 1 trip constant 16
// CHECK-NEXT: loop 2 at 17:3 depth 0 iv i = i init 1 step 1 trip constant 15
// CHECK-NEXT: loop 3 at 18:5 depth 1 iv j = j init 0 step 1 trip parameter i
// CHECK-NEXT: loop 4 at 20:3 depth 0 trip unknown
