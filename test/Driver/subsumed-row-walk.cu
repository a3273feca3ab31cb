// One access of a row walk, diagnosed by several coalescing rules at one
// place, is reported once: a fix-less finding where a broader rule reports
// (warp per row > column split > shared-memory staging > uncoalesced >
// strided) is dropped; a warp-per-row finding covers its whole accumulation
// statement. The shapes of HeCBench's match (Match1: four findings on one
// loop) and kmeans (feature_transpose: staging and uncoalesced on one load).
// Each rule alone still reports.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-*' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPLIT --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STAGE --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-strided-access' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRIDED --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>
#define DIM 128
#define NPTS 4096
#define BW 64

// Each thread scores one point against every other: the inner loop walks
// the point's own row (DIM floats) with one thread per point; the launch's
// block is a variable assigned after its declaration, so no rule rewrites it.
__global__ void best_match(const float *a, const float *b, int *best) {
  int p = threadIdx.x + BW * blockIdx.x;
  float top = -1e30f;
  int idx = -1;
  for (int q = 0; q < NPTS; q++) {
    float score = 0.0f;
    for (int d = 0; d < DIM; d++)
      score += a[p * DIM + d] * b[q * DIM + d];
    if (score > top) {
      top = score;
      idx = q;
    }
  }
  best[p] = idx;
}
// ALL: subsumed-row-walk.cu:31:7: warning: each thread sums its own row into 'score'{{.*}} [coalescing-warp-per-row]
// SPLIT: subsumed-row-walk.cu:31:7: warning: each thread sums a loop over 'd' ('a[p * DIM + d]') with only 4096 threads{{.*}} [coalescing-column-split]
// STAGE: subsumed-row-walk.cu:31:16: warning: each thread walks its own row: the lanes of a warp read 'a[p * DIM + d]'{{.*}} [coalescing-smem-staging]
// STRIDED: subsumed-row-walk.cu:31:16: warning: strided global load: consecutive threads are 128 elements apart{{.*}} [coalescing-strided-access]

// A row-major to column-major copy: each thread walks its own row.
__global__ void to_columns(const float *rowmajor, float *colmajor, int n, int f) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    for (int i = 0; i < f; i++)
      colmajor[i * n + t] = rowmajor[t * f + i];
}
// ALL: subsumed-row-walk.cu:49:29: warning: each thread walks its own row: the lanes of a warp read 'rowmajor[t * f + i]'{{.*}} [coalescing-smem-staging]
// STAGE: subsumed-row-walk.cu:49:29: warning: each thread walks its own row{{.*}} [coalescing-smem-staging]
// STRIDED: subsumed-row-walk.cu:49:29: warning: strided global load: consecutive threads are 34 elements apart{{.*}} [coalescing-strided-access]

int main(int argc, char **argv) {
  int n = NPTS, f = 34;
  float *a, *b, *c;
  int *best;
  cudaMalloc(&a, sizeof(float) * n * DIM);
  cudaMalloc(&b, sizeof(float) * n * DIM);
  cudaMalloc(&c, sizeof(float) * n * DIM);
  cudaMalloc(&best, sizeof(int) * n);
  dim3 blocks, threads;
  blocks = dim3(NPTS / BW);
  threads = dim3(BW);
  best_match<<<blocks, threads>>>(a, b, best);
  to_columns<<<(n + 255) / 256, 256>>>(a, c, n, f);
  cudaDeviceSynchronize();
  return 0;
}
