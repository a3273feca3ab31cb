// sync-shared-histogram, run: per-cluster sums and counts whose cluster
// index is read from data (k-means' accumulation) and key counts whose
// array is small at the launch go through per-block copies in shared
// memory sized from the allocations the tool sees (8 counts, 32 sums, 48
// keys). Built again with more clusters and keys (-DNCLUST=16
// -DNKEYS=80, a launch the tool did not see), half the clusters and the
// largest key fall outside those copies and must still reach global
// memory. Original and rewritten program, on the CPU emulation
// (utils/bench/cuemu), print the same values, and the values are the ones
// computed apart in Python from the same generator.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  sync-shared-histogram.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=APPLIED %s
// APPLIED: applied 2 fixes in 1 file
// RUN: FileCheck --check-prefix=WINDOWS %s < %t/t.cu
// WINDOWS: __shared__ int cudal1_bins[8];
// WINDOWS: __shared__ float cudal1_bins_2[32];
// WINDOWS: __shared__ unsigned int cudal1_bins[48];
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: counts: 63 62 63 62 62 63 62 63
// RUNS: sums: 248.00 311.00 374.00 437.00 last 626.00
// RUNS: keys: 0 27 27 27 last 27
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -DNCLUST=16 -DNKEYS=80 -o %t/orig-big %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -DNCLUST=16 -DNKEYS=80 -o %t/new-big %t/t.cu
// RUN: %t/orig-big > %t/orig-big.txt
// RUN: %t/new-big > %t/new-big.txt
// RUN: diff %t/orig-big.txt %t/new-big.txt
// RUN: FileCheck --check-prefix=BIG %s < %t/new-big.txt
// BIG: counts: 32 31 31 31 31 32 31 31 31 31 32 31 31 31 31 32
// BIG: sums: 0.00 32.00 64.00 96.00 last 192.00
// BIG: keys: 0 27 27 27 last 27
#include <cstdio>
#include <cuda_runtime.h>

#define NPTS 500
#define NDIM 4
#ifndef NCLUST
#define NCLUST 8
#endif
#ifndef NKEYS
#define NKEYS 48
#endif

__global__ void accumulate(const float *pts, const int *member, float *sums,
                           int *counts, int n, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int c = member[i];
  atomicAdd(&counts[c], 1);
  for (int f = 0; f < dim; f++)
    atomicAdd(&sums[c * dim + f], pts[i * dim + f]);
}

// Key counts: the allocation holds NKEYS counters.
__global__ void key_count(const unsigned int *keys, unsigned int *hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(hist + keys[i], 1u);
}

int main() {
  float h_pts[NPTS * NDIM];
  int h_member[NPTS];
  unsigned int h_keys[NPTS];
  for (int i = 0; i < NPTS; i++) {
    h_member[i] = (i * 5) % NCLUST;
    h_keys[i] = (i % 19 == 0) ? (unsigned int)(NKEYS - 8) : (unsigned int)(i % 19);
    for (int f = 0; f < NDIM; f++)
      h_pts[i * NDIM + f] = (float)((i + f) % 16);
  }
  float *pts, *sums;
  int *member, *counts;
  unsigned int *keys, *hist;
  cudaMalloc(&pts, sizeof(float) * NPTS * NDIM);
  cudaMalloc(&member, sizeof(int) * NPTS);
  cudaMalloc(&sums, sizeof(float) * NCLUST * NDIM);
  cudaMalloc(&counts, sizeof(int) * NCLUST);
  cudaMalloc(&keys, sizeof(unsigned int) * NPTS);
  cudaMalloc(&hist, sizeof(unsigned int) * NKEYS);
  cudaMemcpy(pts, h_pts, sizeof(h_pts), cudaMemcpyHostToDevice);
  cudaMemcpy(member, h_member, sizeof(h_member), cudaMemcpyHostToDevice);
  cudaMemcpy(keys, h_keys, sizeof(h_keys), cudaMemcpyHostToDevice);
  cudaMemset(sums, 0, sizeof(float) * NCLUST * NDIM);
  cudaMemset(counts, 0, sizeof(int) * NCLUST);
  cudaMemset(hist, 0, sizeof(unsigned int) * NKEYS);
  accumulate<<<(NPTS + 127) / 128, 128>>>(pts, member, sums, counts, NPTS, NDIM);
  key_count<<<2, 64>>>(keys, hist, NPTS);
  float h_sums[NCLUST * NDIM];
  int h_counts[NCLUST];
  unsigned int h_hist[NKEYS];
  cudaMemcpy(h_sums, sums, sizeof(h_sums), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_counts, counts, sizeof(h_counts), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_hist, hist, sizeof(h_hist), cudaMemcpyDeviceToHost);
  printf("counts:");
  for (int c = 0; c < NCLUST; c++)
    printf(" %d", h_counts[c]);
  printf("\nsums: %.2f %.2f %.2f %.2f last %.2f\n", h_sums[0], h_sums[1], h_sums[2], h_sums[3],
         h_sums[NCLUST * NDIM - 1]);
  printf("keys: %u %u %u %u last %u\n", h_hist[0], h_hist[1], h_hist[2], h_hist[3], h_hist[NKEYS - 8]);
  return 0;
}
