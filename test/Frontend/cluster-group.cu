// Thread-block clusters (sm_90): cooperative_groups declares
// cg::this_cluster(), cluster_group and map_shared_rank only under nvcc,
// NVRTC or _CG_CLUSTER_INTRINSICS_AVAILABLE, which the tool defines in its
// compatibility header: the file parses, the kernel and its launch are
// found, and (a well-written distributed-shared-memory histogram) nothing is
// reported.
// RUN: %cuda-l1-rewrite --list-kernels %s | FileCheck %s
// CHECK: histogram_cluster
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck --check-prefix=ADVISE %s -allow-empty -implicit-check-not='{{warning|error}}:'
// ADVISE-NOT: warning:
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cooperative_groups.h>
#include <cstdint>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;
constexpr int kClusterBlocks = 4, kClusterBins = 16384;
constexpr int kBinsPerBlock = kClusterBins / kClusterBlocks;

// Histogram of 16384 bins spread over the distributed shared memory of a
// 4-block thread-block cluster (Hopper).
__global__ void __cluster_dims__(kClusterBlocks, 1, 1)
    histogram_cluster(const uint32_t *__restrict__ keys, int n,
                      unsigned *__restrict__ hist) {
  __shared__ unsigned bins[kBinsPerBlock];
  cg::cluster_group cluster = cg::this_cluster();
  for (int b = threadIdx.x; b < kBinsPerBlock; b += blockDim.x)
    bins[b] = 0u;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    const uint32_t bin = keys[i] % kClusterBins;
    unsigned *owner = cluster.map_shared_rank(bins, bin / kBinsPerBlock);
    atomicAdd(owner + bin % kBinsPerBlock, 1u);
  }
  cluster.sync();
  const unsigned rank = cluster.block_rank();
  for (int b = threadIdx.x; b < kBinsPerBlock; b += blockDim.x) {
    const unsigned c = bins[b];
    if (c != 0u)
      atomicAdd(&hist[rank * kBinsPerBlock + b], c);
  }
}

void run(const uint32_t *keys, int n, unsigned *hist, int sms) {
  histogram_cluster<<<4 * sms, 512>>>(keys, n, hist);
}
