// A fix-less finding about how a row-walking kernel's threads access memory
// (uncoalesced, strided, a row each thread walks), from the first row loop
// on, is dropped where a warp-per-row rule rewrites that kernel with a fix:
// it describes the mapping the fix replaces. Alone, each rule still reports.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-*' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access,coalescing-strided-access' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALONE --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

__global__ void softmax_rows(int rows, int cols, const float *src, float *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  float m = -1e30f;
  for (int j = 0; j < cols; j++)
    m = fmaxf(m, src[i * cols + j]);
  float sum = 0;
  for (int j = 0; j < cols; j++)
    sum += expf(src[i * cols + j] - m);
  for (int j = 0; j < cols; j++)
    dst[i * cols + j] = expf(src[i * cols + j] - m) / sum;
}
// BOTH: subsumed-coalescing.cu:16:3: warning: each thread makes 3 passes over its own row{{.*}} [coalescing-warp-per-row-passes]
// (smem-staging offers its own fix for the first pass: both stay.)
// BOTH: subsumed-coalescing.cu:17:18: warning: each thread walks its own row{{.*}} [coalescing-smem-staging]
// ALONE: subsumed-coalescing.cu:17:18: warning: strided global load: consecutive threads are 1024 elements apart{{.*}} [coalescing-strided-access]
// ALONE: subsumed-coalescing.cu:20:17: warning: strided global load{{.*}} [coalescing-strided-access]
// ALONE: subsumed-coalescing.cu:22:5: warning: strided global store: consecutive threads are 1024 elements apart{{.*}} [coalescing-strided-access]
// ALONE: subsumed-coalescing.cu:22:30: warning: strided global load{{.*}} [coalescing-strided-access]

// Another kernel in the file keeps its findings: a column read by a 2-D
// block that indexes rows with x (no structural fix offered here).
__global__ void column_reads(const float *a, float *out, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y;
  if (r < n)
    out[c * n + r] = a[r * n + c] * 2.0f;
}
// BOTH: subsumed-coalescing.cu:[[@LINE-2]]:22: warning: strided global load: consecutive threads are 4096 elements apart{{.*}} [coalescing-strided-access]
// ALONE: subsumed-coalescing.cu:[[@LINE-3]]:22: warning: strided global load: consecutive threads are 4096 elements apart{{.*}} [coalescing-strided-access]

int main() {
  int rows = 4096, cols = 1024;
  float *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, sizeof(float) * rows * cols);
  cudaMalloc(&dst, sizeof(float) * rows * cols);
  softmax_rows<<<(rows + 255) / 256, 256>>>(rows, cols, src, dst);
  column_reads<<<dim3(rows / 256, cols), 256>>>(src, dst, rows);
  cudaDeviceSynchronize();
  return 0;
}
