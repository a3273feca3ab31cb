// Graph and sparse kernels: BFS frontier expansion with warp-cooperative neighbour loading, PageRank pull with a warp per vertex, edge list to CSR, SpMM with a warp per row, SELL-32 SpMV, a persistent SpMV fed by an atomic row queue: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <cstddef>
#include <utility>

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarp = 32;
constexpr int kThreads = 256, kWarpsPerBlock = kThreads / kWarp;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    v += __shfl_xor_sync(kFull, v, off);
  return v;
}

// Sum over the block into *out with one atomic per block (any block size
// that is a multiple of 32, at most 1024).
__device__ __forceinline__ void block_sum_atomic(float v, float *out) {
  __shared__ float part[kWarp];
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0)
    part[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < (int)(blockDim.x / kWarp) ? part[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
      atomicAdd(out, v);
  }
}

// ---------------------------------------------------------------------------
// Level-synchronous BFS. Setup, launched once: the source is the whole first
// frontier (labels were set to -1 by a memset).
__global__ void bfs_seed(int *__restrict__ labels, int *__restrict__ frontier,
                         int *__restrict__ frontier_size, int source) {
  labels[source] = 0;
  frontier[0] = source;
  *frontier_size = 1;
}

// One warp per frontier vertex: its lanes read the adjacency list 32
// neighbours at a time (coalesced), claim unvisited neighbours with a
// compare-and-swap, and append the claimed ones to the next frontier with a
// single atomic per warp and chunk (ballot, popc for the ranks).
__global__ void __launch_bounds__(kThreads)
    bfs_expand(const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
               int *__restrict__ labels, const int *__restrict__ frontier,
               const int *__restrict__ frontier_size, int *__restrict__ next,
               int *__restrict__ next_size, int depth) {
  const int lane = threadIdx.x % kWarp;
  const int nwarps = gridDim.x * kWarpsPerBlock;
  const int size = *frontier_size;
  for (int f = (blockIdx.x * kThreads + threadIdx.x) / kWarp; f < size;
       f += nwarps) {
    const int u = frontier[f];
    const int begin = row_ptr[u], end = row_ptr[u + 1];
    for (int base = begin; base < end; base += kWarp) {
      const int e = base + lane;
      int v = -1;
      bool claimed = false;
      if (e < end) {
        v = col_idx[e];
        claimed = labels[v] < 0 && atomicCAS(&labels[v], -1, depth + 1) == -1;
      }
      const unsigned won = __ballot_sync(kFull, claimed);
      if (won == 0u)
        continue;
      int slot = 0;
      if (lane == 0)
        slot = atomicAdd(next_size, __popc(won));
      slot = __shfl_sync(kFull, slot, 0);
      if (claimed)
        next[slot + __popc(won & ((1u << lane) - 1u))] = v;
    }
  }
}

// ---------------------------------------------------------------------------
// PageRank, pull direction. Setup, once per graph: 1 / out-degree (0 marks a
// dangling vertex). Each iteration: the contribution rank / out-degree of
// every vertex and the dangling mass, then a warp per vertex sums the
// contributions of its in-neighbours (incoming CSR) and adds the teleport
// term; the L1 change is summed for the convergence test.
__global__ void inverse_out_degree(const int *__restrict__ row_ptr,
                                   float *__restrict__ inv_deg, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int d = row_ptr[i + 1] - row_ptr[i];
    inv_deg[i] = d > 0 ? 1.0f / (float)d : 0.0f;
  }
}

__global__ void pagerank_contrib(const float *__restrict__ rank,
                                 const float *__restrict__ inv_deg,
                                 float *__restrict__ contrib,
                                 float *__restrict__ dangling, int n) {
  float dang = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    const float r = rank[i], w = inv_deg[i];
    contrib[i] = r * w;
    if (w == 0.0f)
      dang += r;
  }
  block_sum_atomic(dang, dangling);
}

__global__ void __launch_bounds__(kThreads)
    pagerank_pull(const int *__restrict__ in_ptr,
                  const int *__restrict__ in_src,
                  const float *__restrict__ contrib,
                  const float *__restrict__ rank_old,
                  float *__restrict__ rank_new,
                  const float *__restrict__ dangling, float *__restrict__ delta,
                  int n, float damping) {
  const int lane = threadIdx.x % kWarp;
  const int nwarps = gridDim.x * kWarpsPerBlock;
  const float teleport = fmaf(damping, *dangling, 1.0f - damping) / (float)n;
  float change = 0.0f;
  for (int v = (blockIdx.x * kThreads + threadIdx.x) / kWarp; v < n;
       v += nwarps) {
    const int begin = in_ptr[v], end = in_ptr[v + 1];
    float s = 0.0f;
    for (int e = begin + lane; e < end; e += kWarp)
      s += __ldg(&contrib[in_src[e]]);
    s = warp_sum(s);
    if (lane == 0) {
      const float r = fmaf(damping, s, teleport);
      rank_new[v] = r;
      change += fabsf(r - rank_old[v]);
    }
  }
  block_sum_atomic(change, delta);
}

// ---------------------------------------------------------------------------
// Edge list (COO, source and destination arrays) -> CSR: out-degrees, an
// exclusive scan (cub::DeviceScan), then each edge takes the next free slot
// of its source row. One counter per vertex (millions): far beyond shared
// memory, and the edges are spread over them, so the atomics go to global
// memory (resolved in L2).
__global__ void count_out_degrees(const int *__restrict__ src, int nedges,
                                  int *__restrict__ degree) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nedges;
       i += blockDim.x * gridDim.x)
    atomicAdd(&degree[src[i]], 1);
}

__global__ void fill_csr(const int *__restrict__ src,
                         const int *__restrict__ dst, int nedges,
                         int *__restrict__ cursor, int *__restrict__ col_idx) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nedges;
       i += blockDim.x * gridDim.x)
    col_idx[atomicAdd(&cursor[src[i]], 1)] = dst[i];
}

// ---------------------------------------------------------------------------
// SpMM, C = A * B with A sparse (CSR) and B, C dense row-major with
// kVecPerLane * 128 columns. One warp per row of A: lanes load 32 (column,
// value) pairs at once and broadcast them by shuffle; for each, the warp
// reads one row of B as float4s (512 contiguous bytes per lane vector).
template <int kVecPerLane>
__global__ void __launch_bounds__(kThreads)
    spmm_csr_warp_row(const int *__restrict__ row_ptr,
                      const int *__restrict__ col_idx,
                      const float *__restrict__ vals,
                      const float4 *__restrict__ B, float4 *__restrict__ C,
                      int m) {
  constexpr int kRow4 = kVecPerLane * kWarp;
  const int lane = threadIdx.x % kWarp;
  const int row = (blockIdx.x * kThreads + threadIdx.x) / kWarp;
  if (row >= m)
    return;
  float4 acc[kVecPerLane];
#pragma unroll
  for (int v = 0; v < kVecPerLane; ++v)
    acc[v] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  for (int base = begin; base < end; base += kWarp) {
    const int e = base + lane;
    const int my_col = e < end ? col_idx[e] : 0;
    const float my_val = e < end ? vals[e] : 0.0f;
    const int cnt = min(kWarp, end - base);
    for (int j = 0; j < cnt; ++j) {
      const int c = __shfl_sync(kFull, my_col, j);
      const float a = __shfl_sync(kFull, my_val, j);
      const float4 *b = B + (size_t)c * kRow4;
#pragma unroll
      for (int v = 0; v < kVecPerLane; ++v) {
        const float4 bv = b[lane + v * kWarp];
        acc[v].x = fmaf(a, bv.x, acc[v].x);
        acc[v].y = fmaf(a, bv.y, acc[v].y);
        acc[v].z = fmaf(a, bv.z, acc[v].z);
        acc[v].w = fmaf(a, bv.w, acc[v].w);
      }
    }
  }
  float4 *c = C + (size_t)row * kRow4;
#pragma unroll
  for (int v = 0; v < kVecPerLane; ++v)
    c[lane + v * kWarp] = acc[v];
}

// ---------------------------------------------------------------------------
// SpMV in SELL-32 (sliced ELLPACK, slices of 32 rows sorted by length): a
// warp per slice, a lane per row; entry k of the slice's 32 rows is
// contiguous, so every step reads 128 bytes of values and of columns.
// Padding entries have value 0 and a valid column. perm maps a sorted row to
// its original index.
__global__ void spmv_sell32(const int *__restrict__ slice_ptr,
                            const int *__restrict__ cols,
                            const float *__restrict__ vals,
                            const int *__restrict__ perm,
                            const float *__restrict__ x,
                            float *__restrict__ y, int nrows) {
  const int lane = threadIdx.x % kWarp;
  const int slice = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  const int row = slice * kWarp + lane;
  if (slice * kWarp >= nrows)
    return;
  const int start = slice_ptr[slice];
  const int width = (slice_ptr[slice + 1] - start) / kWarp;
  const int *sc = cols + start + lane;
  const float *sv = vals + start + lane;
  float acc = 0.0f;
  for (int k = 0; k < width; ++k)
    acc = fmaf(sv[k * kWarp], __ldg(&x[sc[k * kWarp]]), acc);
  if (row < nrows)
    y[perm[row]] = acc;
}

// ---------------------------------------------------------------------------
// CSR SpMV for power-law matrices, persistent: row lengths vary by orders of
// magnitude, so warps take chunks of kGrab rows from a global counter (one
// atomic per chunk, by design) until the rows run out. A warp handles each
// row of its chunk with all lanes; lane r keeps row r's sum, so the chunk's
// results leave in one coalesced store.
constexpr int kGrab = 32;

__global__ void __launch_bounds__(kThreads)
    spmv_csr_dynamic(const int *__restrict__ row_ptr,
                     const int *__restrict__ col_idx,
                     const float *__restrict__ vals,
                     const float *__restrict__ x, float *__restrict__ y,
                     int nrows, unsigned *__restrict__ next_row) {
  const int lane = threadIdx.x % kWarp;
  for (;;) {
    unsigned grabbed = 0u;
    if (lane == 0)
      grabbed = atomicAdd(next_row, (unsigned)kGrab);
    const int first = (int)__shfl_sync(kFull, grabbed, 0);
    if (first >= nrows)
      return;
    const int count = min(kGrab, nrows - first);
    float mine = 0.0f;
    for (int r = 0; r < count; ++r) {
      const int row = first + r;
      float s = 0.0f;
      for (int e = row_ptr[row] + lane; e < row_ptr[row + 1]; e += kWarp)
        s = fmaf(vals[e], __ldg(&x[col_idx[e]]), s);
      s = warp_sum(s);
      if (lane == r)
        mine = s;
    }
    if (lane < count)
      y[first + lane] = mine;
  }
}

// ---------------------------------------------------------------------------
static int capped_blocks(long long work_threads, int threads, int cap) {
  const long long b = (work_threads + threads - 1) / threads;
  return (int)(b < 1 ? 1 : (b < cap ? b : cap));
}

void run_graph(const int *esrc, const int *edst, int nedges, int n, int *degree,
               int *row_ptr, int *cursor, int *col_idx, const int *in_ptr,
               const int *in_src, int *labels, int *frontier_a,
               int *frontier_b, int *size_a, int *size_b, int source,
               float *rank_a, float *rank_b, float *inv_deg, float *contrib,
               float *scalars /* dangling, delta */, float damping, float tol,
               int max_iters, const int *a_ptr, const int *a_col,
               const float *a_val, const float4 *B, float4 *C, int m,
               const int *slice_ptr, const int *sell_cols,
               const float *sell_vals, const int *perm, const float *x,
               float *y, float *y2, unsigned *next_row, cudaStream_t s) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  // Edge list -> CSR (degree has n + 1 entries; the scan of the zero last
  // entry gives row_ptr[n] = nedges).
  cudaMemsetAsync(degree, 0, sizeof(int) * (n + 1), s);
  count_out_degrees<<<4 * sms, kThreads, 0, s>>>(esrc, nedges, degree);
  size_t temp_bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, degree, row_ptr, n + 1,
                                s);
  void *temp = nullptr;
  cudaMallocAsync(&temp, temp_bytes, s);
  cub::DeviceScan::ExclusiveSum(temp, temp_bytes, degree, row_ptr, n + 1, s);
  cudaFreeAsync(temp, s);
  cudaMemcpyAsync(cursor, row_ptr, sizeof(int) * n, cudaMemcpyDeviceToDevice,
                  s);
  fill_csr<<<4 * sms, kThreads, 0, s>>>(esrc, edst, nedges, cursor, col_idx);

  // BFS: the frontier size comes back to the host after every level, to
  // size the next grid and to stop.
  cudaMemsetAsync(labels, 0xff, sizeof(int) * n, s);
  bfs_seed<<<1, 1, 0, s>>>(labels, frontier_a, size_a, source);
  int frontier = 1;
  for (int depth = 0; frontier > 0; ++depth) {
    cudaMemsetAsync(size_b, 0, sizeof(int), s);
    bfs_expand<<<capped_blocks((long long)frontier * kWarp, kThreads,
                               8 * sms),
                 kThreads, 0, s>>>(row_ptr, col_idx, labels, frontier_a,
                                   size_a, frontier_b, size_b, depth);
    cudaMemcpyAsync(&frontier, size_b, sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::swap(frontier_a, frontier_b);
    std::swap(size_a, size_b);
  }

  // PageRank until the L1 change drops below tol.
  inverse_out_degree<<<(n + kThreads - 1) / kThreads, kThreads, 0, s>>>(
      row_ptr, inv_deg, n);
  const int pr_blocks = capped_blocks((long long)n * kWarp, kThreads, 16 * sms);
  float delta_host = 0.0f;
  for (int it = 0; it < max_iters; ++it) {
    cudaMemsetAsync(scalars, 0, 2 * sizeof(float), s);
    pagerank_contrib<<<4 * sms, kThreads, 0, s>>>(rank_a, inv_deg, contrib,
                                                  scalars, n);
    pagerank_pull<<<pr_blocks, kThreads, 0, s>>>(in_ptr, in_src, contrib,
                                                 rank_a, rank_b, scalars,
                                                 scalars + 1, n, damping);
    cudaMemcpyAsync(&delta_host, scalars + 1, sizeof(float),
                    cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::swap(rank_a, rank_b);
    if (delta_host < tol)
      break;
  }

  // 256 dense columns: two float4 per lane.
  spmm_csr_warp_row<2><<<(m + kWarpsPerBlock - 1) / kWarpsPerBlock, kThreads,
                         0, s>>>(a_ptr, a_col, a_val, B, C, m);

  const int nslices = (m + kWarp - 1) / kWarp;
  spmv_sell32<<<(nslices + kWarpsPerBlock - 1) / kWarpsPerBlock, kThreads, 0,
                s>>>(slice_ptr, sell_cols, sell_vals, perm, x, y, m);

  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spmv_csr_dynamic,
                                                kThreads, 0);
  cudaMemsetAsync(next_row, 0, sizeof(unsigned), s);
  spmv_csr_dynamic<<<sms * per_sm, kThreads, 0, s>>>(a_ptr, a_col, a_val, x,
                                                     y2, m, next_row);
  cudaStreamSynchronize(s);
}
