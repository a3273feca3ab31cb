// Cooperative groups (tiles, reduce, grid sync), CUB block primitives, warp intrinsics (ballot, popc, match_any, reduce_add), warp-level bitonic top-k, streams and a CUDA graph: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_load.cuh>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdint>

namespace cg = cooperative_groups;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarp = 32;

// ---------------------------------------------------------------------------
// Power iteration for the dominant eigenpair of a dense n x n matrix in one
// cooperative launch. A warp per row computes y = A x (float4 loads); the
// normalisation 1 / ||y|| is folded into the next product instead of a pass
// of its own, so each iteration needs one grid barrier. Every warp folds the
// per-block partial norms itself (a few hundred floats from L2), which saves
// a second barrier; the partials are double-buffered by iteration parity.
// n is a multiple of 4; x0 holds a unit vector.
constexpr int kPowThreads = 256, kPowWarps = kPowThreads / kWarp;

__global__ void __launch_bounds__(kPowThreads)
    power_iteration(const float4 *__restrict__ A, float *x0, float *x1,
                    float *__restrict__ partials,
                    float *__restrict__ eigenvalue, int n, int iters) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kWarp> warp = cg::tiled_partition<kWarp>(block);
  __shared__ float warp_part[kPowWarps];
  const int n4 = n / 4;
  const int gwarp = (int)(grid.thread_rank() / kWarp);
  const int nwarps = (int)(grid.size() / kWarp);
  const int lane = (int)warp.thread_rank();
  float scale = 1.0f;
  float *xin = x0, *xout = x1;
  for (int it = 0; it < iters; ++it) {
    const float4 *xv = reinterpret_cast<const float4 *>(xin);
    float sq = 0.0f;
    for (int row = gwarp; row < n; row += nwarps) {
      const float4 *a = A + (size_t)row * n4;
      float acc = 0.0f;
      for (int c = lane; c < n4; c += kWarp) {
        const float4 av = a[c], xx = xv[c];
        acc = fmaf(av.x, xx.x, acc);
        acc = fmaf(av.y, xx.y, acc);
        acc = fmaf(av.z, xx.z, acc);
        acc = fmaf(av.w, xx.w, acc);
      }
      acc = cg::reduce(warp, acc, cg::plus<float>()) * scale;
      if (lane == 0)
        xout[row] = acc;
      sq = fmaf(acc, acc, sq);
    }
    if (lane == 0)
      warp_part[warp.meta_group_rank()] = sq;
    block.sync();
    float *part = partials + (it & 1) * gridDim.x;
    if (threadIdx.x == 0) {
      float s = 0.0f;
#pragma unroll
      for (int w = 0; w < kPowWarps; ++w)
        s += warp_part[w];
      part[blockIdx.x] = s;
    }
    grid.sync();
    float t = 0.0f;
    for (unsigned b = lane; b < gridDim.x; b += kWarp)
      t += part[b];
    const float norm = sqrtf(cg::reduce(warp, t, cg::plus<float>()));
    scale = 1.0f / norm;
    if (it == iters - 1 && blockIdx.x == 0 && threadIdx.x == 0)
      *eigenvalue = norm;
    float *tmp = xin;
    xin = xout;
    xout = tmp;
  }
  // The last product, normalised, is the eigenvector (in xin after the swap).
  for (size_t i = grid.thread_rank(); i < (size_t)n; i += grid.size())
    xin[i] *= scale;
}

// ---------------------------------------------------------------------------
// Greedy decoding: the argmax of every row of logits, one block per row,
// float4 loads, cub::BlockReduce over (index, value) pairs.
template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    argmax_rows(const float4 *__restrict__ logits, int *__restrict__ token,
                int cols4) {
  using KV = cub::KeyValuePair<int, float>;
  using Reduce = cub::BlockReduce<KV, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const float4 *row = logits + (size_t)blockIdx.x * cols4;
  KV best(0, -INFINITY);
  for (int c = threadIdx.x; c < cols4; c += kThreads) {
    const float4 v = row[c];
    if (v.x > best.value)
      best = KV(4 * c, v.x);
    if (v.y > best.value)
      best = KV(4 * c + 1, v.y);
    if (v.z > best.value)
      best = KV(4 * c + 2, v.z);
    if (v.w > best.value)
      best = KV(4 * c + 3, v.w);
  }
  best = Reduce(tmp).Reduce(best, cub::ArgMax());
  if (threadIdx.x == 0)
    token[blockIdx.x] = best.key;
}

// ---------------------------------------------------------------------------
// Descending sort of every 2048-element segment (probabilities with their
// positions) by cub::BlockRadixSort: blocked load through a warp transpose,
// sort to a striped arrangement, striped (coalesced) stores.
template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    sort_segments_desc(const float *__restrict__ keys_in,
                       float *__restrict__ keys_out,
                       int *__restrict__ order_out) {
  constexpr int kSeg = kThreads * kItems;
  using Load = cub::BlockLoad<float, kThreads, kItems,
                              cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<float, kThreads, kItems, int>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
  } tmp;
  const size_t off = (size_t)blockIdx.x * kSeg;
  float keys[kItems];
  int vals[kItems];
  Load(tmp.load).Load(keys_in + off, keys);
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    vals[k] = threadIdx.x * kItems + k; // blocked arrangement
  __syncthreads();
  Sort(tmp.sort).SortDescendingBlockedToStriped(keys, vals);
  cub::StoreDirectStriped<kThreads>(threadIdx.x, keys_out + off, keys);
  cub::StoreDirectStriped<kThreads>(threadIdx.x, order_out + off, vals);
}

// ---------------------------------------------------------------------------
// Inclusive cumulative sum of every row (top-p sampling over sorted
// probabilities), one block per row, tiles of kThreads * kItems through
// BlockLoad / BlockScan / BlockStore; the running total is carried from tile
// to tile by BlockScan's prefix callback.
struct RunningTotal {
  float total;
  __device__ float operator()(float tile_sum) {
    const float before = total;
    total += tile_sum;
    return before;
  }
};

template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    row_cumsum(const float *__restrict__ in, float *__restrict__ out,
               int cols) {
  constexpr int kTile = kThreads * kItems;
  using Load = cub::BlockLoad<float, kThreads, kItems,
                              cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<float, kThreads, kItems,
                                cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<float, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } tmp;
  const float *src = in + (size_t)blockIdx.x * cols;
  float *dst = out + (size_t)blockIdx.x * cols;
  RunningTotal prefix{0.0f};
  for (int base = 0; base < cols; base += kTile) {
    const int valid = min(kTile, cols - base);
    float items[kItems];
    Load(tmp.load).Load(src + base, items, valid, 0.0f);
    __syncthreads();
    Scan(tmp.scan).InclusiveSum(items, items, prefix);
    __syncthreads();
    Store(tmp.store).Store(dst + base, items, valid);
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------
// Top-32 of every row, one warp per row, by warp-level bitonic networks in
// registers. The warp holds its current best 32 sorted descending (one per
// lane). Each 32-element chunk of the row is skipped when none of it beats
// the 32nd best; otherwise it is bitonic-sorted across the lanes, paired
// against the best list reversed (a bitonic sequence of the 32 largest) and
// merged in five compare-exchange steps.
__device__ __forceinline__ void cmp_exchange(float &v, int &i, int stride,
                                             bool keep_larger) {
  const float ov = __shfl_xor_sync(kFull, v, stride);
  const int oi = __shfl_xor_sync(kFull, i, stride);
  if (keep_larger ? ov > v : ov < v) {
    v = ov;
    i = oi;
  }
}

__device__ __forceinline__ void warp_sort_desc(float &v, int &i, int lane) {
#pragma unroll
  for (int size = 2; size <= kWarp; size <<= 1) {
    const bool desc = (lane & size) == 0;
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1)
      cmp_exchange(v, i, stride, ((lane & stride) == 0) == desc);
  }
}

__device__ __forceinline__ void warp_merge_desc(float &v, int &i, int lane) {
#pragma unroll
  for (int stride = kWarp / 2; stride > 0; stride >>= 1)
    cmp_exchange(v, i, stride, (lane & stride) == 0);
}

constexpr int kTopkWarps = 8;
__global__ void __launch_bounds__(kTopkWarps *kWarp)
    topk_rows(const float *__restrict__ x, float *__restrict__ top_vals,
              int *__restrict__ top_idx, int rows, int cols, int k) {
  const int lane = threadIdx.x % kWarp;
  const int row = blockIdx.x * kTopkWarps + threadIdx.x / kWarp;
  if (row >= rows)
    return;
  const float *src = x + (size_t)row * cols;
  float best = -INFINITY;
  int best_i = -1;
  for (int base = 0; base < cols; base += kWarp) {
    const int c = base + lane;
    float v = c < cols ? src[c] : -INFINITY;
    int vi = c;
    const float kth = __shfl_sync(kFull, best, kWarp - 1);
    if (__ballot_sync(kFull, v > kth) == 0u)
      continue;
    warp_sort_desc(v, vi, lane);
    const float rv = __shfl_sync(kFull, v, kWarp - 1 - lane);
    const int ri = __shfl_sync(kFull, vi, kWarp - 1 - lane);
    if (rv > best) {
      best = rv;
      best_i = ri;
    }
    warp_merge_desc(best, best_i, lane);
  }
  if (lane < k) {
    top_vals[(size_t)row * k + lane] = best;
    top_idx[(size_t)row * k + lane] = best_i;
  }
}

// ---------------------------------------------------------------------------
// Cosine similarity of many pairs of 64-float embeddings: an 8-thread tile
// per pair (two float4 per thread, 128 contiguous bytes per tile and load),
// reduced with cg::reduce on the tile.
constexpr int kEmbDim = 64, kPairTile = 8;
constexpr int kEmbVecs = kEmbDim / 4, kVecsPerThread = kEmbVecs / kPairTile;

__global__ void cosine_pairs(const float4 *__restrict__ a,
                             const float4 *__restrict__ b,
                             float *__restrict__ sim, int npairs) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kPairTile> tile = cg::tiled_partition<kPairTile>(block);
  const int pair = (int)((blockIdx.x * blockDim.x + threadIdx.x) / kPairTile);
  if (pair >= npairs) // uniform across the tile
    return;
  const float4 *pa = a + (size_t)pair * kEmbVecs;
  const float4 *pb = b + (size_t)pair * kEmbVecs;
  float dot = 0.0f, na = 0.0f, nb = 0.0f;
#pragma unroll
  for (int k = 0; k < kVecsPerThread; ++k) {
    const float4 u = pa[tile.thread_rank() + k * kPairTile];
    const float4 w = pb[tile.thread_rank() + k * kPairTile];
    dot += u.x * w.x + u.y * w.y + u.z * w.z + u.w * w.w;
    na += u.x * u.x + u.y * u.y + u.z * u.z + u.w * u.w;
    nb += w.x * w.x + w.y * w.y + w.z * w.z + w.w * w.w;
  }
  dot = cg::reduce(tile, dot, cg::plus<float>());
  na = cg::reduce(tile, na, cg::plus<float>());
  nb = cg::reduce(tile, nb, cg::plus<float>());
  if (tile.thread_rank() == 0)
    sim[pair] = dot * rsqrtf(fmaxf(na * nb, 1e-30f));
}

// ---------------------------------------------------------------------------
// Batched 32x32 matrix products C[b] = A[b] * B[b], one block per product.
// The block copies A[b] and B[b] (4 KiB each) into shared memory with
// cooperative_groups::memcpy_async (cp.async underneath) and waits once.
// Thread t computes column t % 32 of rows t / 32 + 8 i: a warp reads one
// A element (broadcast) and 32 consecutive B elements per step.
constexpr int kSmall = 32, kSmallThreads = 256;
constexpr int kSmallRowsPerThread = kSmall * kSmall / kSmallThreads;

__global__ void __launch_bounds__(kSmallThreads)
    batched_gemm32(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C) {
  __shared__ __align__(16) float As[kSmall][kSmall];
  __shared__ __align__(16) float Bs[kSmall][kSmall];
  cg::thread_block block = cg::this_thread_block();
  const size_t off = (size_t)blockIdx.x * kSmall * kSmall;
  cg::memcpy_async(block, &As[0][0], A + off,
                   cuda::aligned_size_t<16>(sizeof(As)));
  cg::memcpy_async(block, &Bs[0][0], B + off,
                   cuda::aligned_size_t<16>(sizeof(Bs)));
  cg::wait(block);
  const int col = threadIdx.x % kSmall, row0 = threadIdx.x / kSmall;
  float acc[kSmallRowsPerThread] = {};
#pragma unroll
  for (int k = 0; k < kSmall; ++k) {
    const float b = Bs[k][col];
#pragma unroll
    for (int i = 0; i < kSmallRowsPerThread; ++i)
      acc[i] = fmaf(As[row0 + i * (kSmallThreads / kSmall)][k], b, acc[i]);
  }
#pragma unroll
  for (int i = 0; i < kSmallRowsPerThread; ++i)
    C[off + (size_t)(row0 + i * (kSmallThreads / kSmall)) * kSmall + col] =
        acc[i];
}

// ---------------------------------------------------------------------------
// Sign bitmap of a vector: bit j of word w is x[32 w + j] > 0. A warp packs
// 32 consecutive words: chunk w is one coalesced 128-byte load and one
// ballot, lane w keeps the result, and the 32 words go out in one coalesced
// store.
__global__ void pack_positive_bits(const float *__restrict__ x,
                                   unsigned *__restrict__ bits, int nwords) {
  const int lane = threadIdx.x % kWarp;
  const int word0 = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp * kWarp;
  if (word0 >= nwords)
    return;
  const float *src = x + (size_t)word0 * kWarp;
  const int words = min(kWarp, nwords - word0);
  unsigned mine = 0u;
#pragma unroll 8
  for (int w = 0; w < words; ++w) {
    const unsigned m = __ballot_sync(kFull, src[w * kWarp + lane] > 0.0f);
    if (lane == w)
      mine = m;
  }
  if (lane < words)
    bits[word0 + lane] = mine;
}

// Set bits per row of a row-major bitmap (CSR row lengths of a sparsity
// mask), one warp per row: __popc per word, __reduce_add_sync per warp.
__global__ void bitmap_row_counts(const unsigned *__restrict__ bits,
                                  int words_per_row, int rows,
                                  int *__restrict__ row_nnz) {
  const int lane = threadIdx.x % kWarp;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  if (row >= rows)
    return;
  const unsigned *src = bits + (size_t)row * words_per_row;
  unsigned cnt = 0u;
  for (int w = lane; w < words_per_row; w += kWarp)
    cnt += __popc(src[w]);
  cnt = __reduce_add_sync(kFull, cnt);
  if (lane == 0)
    row_nnz[row] = (int)cnt;
}

// ---------------------------------------------------------------------------
// Occurrences of 18-bit keys (a 1 MiB count table: too large for shared
// memory, so the counts live in global memory). Keys arrive in runs, so a
// warp first groups equal keys with __match_any_sync and only the lowest lane
// of each group adds the group's size.
constexpr int kKeyBits = 18;
constexpr unsigned kKeyMask = (1u << kKeyBits) - 1u;

__global__ void count_keys_aggregated(const unsigned *__restrict__ keys, int n,
                                      unsigned *__restrict__ counts) {
  const int lane = threadIdx.x % kWarp;
  const int stride = blockDim.x * gridDim.x;   // a multiple of 32
  const int n_warps = (n + kWarp - 1) / kWarp * kWarp;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_warps;
       i += stride) {
    const bool valid = i < n;
    const unsigned key = valid ? keys[i] & kKeyMask : ~0u;
    const unsigned peers = __match_any_sync(kFull, key);
    if (valid && __ffs(peers) - 1 == lane)
      atomicAdd(&counts[key], (unsigned)__popc(peers));
  }
}

// ---------------------------------------------------------------------------
// Single-pass exclusive prefix sum of 32-bit counts (decoupled look-back).
// Tiles are numbered in the order blocks start (an atomic ticket, so every
// predecessor of a tile is already running and the look-back cannot wait on
// a block that has not been scheduled). A tile scans its 2048 values with
// cub::BlockScan, publishes its aggregate, then its first warp inspects the
// status words of up to 32 predecessors at once until it meets an inclusive
// prefix, and publishes its own. Status words pack (flag << 32 | value);
// they and the ticket start at zero.
constexpr int kLbThreads = 256, kLbItems = 8, kLbTile = kLbThreads * kLbItems;
constexpr unsigned long long kFlagAggregate = 1ull << 32;
constexpr unsigned long long kFlagInclusive = 2ull << 32;

__global__ void __launch_bounds__(kLbThreads)
    scan_lookback(const unsigned *__restrict__ in, unsigned *__restrict__ out,
                  int n, unsigned long long *__restrict__ status,
                  unsigned *__restrict__ ticket) {
  using Load = cub::BlockLoad<unsigned, kLbThreads, kLbItems,
                              cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<unsigned, kLbThreads, kLbItems,
                                cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<unsigned, kLbThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } tmp;
  __shared__ int s_tile;
  __shared__ unsigned s_prefix;
  if (threadIdx.x == 0)
    s_tile = (int)atomicAdd(ticket, 1u);
  __syncthreads();
  const int tile = s_tile;
  const int base = tile * kLbTile;
  const int valid = min(kLbTile, n - base);
  unsigned items[kLbItems];
  Load(tmp.load).Load(in + base, items, valid, 0u);
  __syncthreads();
  unsigned aggregate;
  Scan(tmp.scan).ExclusiveSum(items, items, aggregate);
  if (threadIdx.x < kWarp) {
    const int lane = threadIdx.x;
    if (tile == 0) {
      if (lane == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> st(
            status[0]);
        st.store(kFlagInclusive | aggregate, cuda::memory_order_release);
        s_prefix = 0u;
      }
    } else {
      if (lane == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> st(
            status[tile]);
        st.store(kFlagAggregate | aggregate, cuda::memory_order_release);
      }
      unsigned prefix = 0u;
      for (int look = tile - 1;;) {
        const int j = look - lane;
        unsigned long long word = kFlagInclusive; // before tile 0: nothing
        if (j >= 0) {
          cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> st(
              status[j]);
          word = st.load(cuda::memory_order_acquire);
        }
        const unsigned flag = (unsigned)(word >> 32);
        if (__any_sync(kFull, flag == 0u)) {
          __nanosleep(64); // a predecessor has not published yet
          continue;
        }
        const unsigned incl = __ballot_sync(kFull, flag == 2u);
        const int stop = incl ? __ffs(incl) - 1 : kWarp - 1;
        prefix += __reduce_add_sync(kFull, lane <= stop ? (unsigned)word : 0u);
        if (incl)
          break;
        look -= kWarp;
      }
      if (lane == 0) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> st(
            status[tile]);
        st.store(kFlagInclusive | (prefix + aggregate),
                 cuda::memory_order_release);
        s_prefix = prefix;
      }
    }
  }
  __syncthreads();
  const unsigned prefix = s_prefix;
#pragma unroll
  for (int k = 0; k < kLbItems; ++k)
    items[k] += prefix;
  Store(tmp.store).Store(out + base, items, valid);
}

// ---------------------------------------------------------------------------
// Host side: the sampling steps of a decoder are captured once into a CUDA
// graph and replayed per step; independent work runs on a second stream,
// joined through events.
constexpr int kSortThreads = 256, kSortItems = 8;
constexpr int kSeg = kSortThreads * kSortItems;

static void sampling_step(cudaStream_t s, const float *logits, int *tokens,
                          const float *cand, float *sorted, int *order,
                          float *cum, float *tv, int *ti, int rows,
                          int vocab) {
  argmax_rows<256><<<rows, 256, 0, s>>>(
      reinterpret_cast<const float4 *>(logits), tokens, vocab / 4);
  topk_rows<<<(rows + kTopkWarps - 1) / kTopkWarps, kTopkWarps * kWarp, 0,
              s>>>(logits, tv, ti, rows, vocab, 32);
  // 2048 candidate probabilities per row, sorted, then accumulated.
  sort_segments_desc<kSortThreads, kSortItems>
      <<<rows, kSortThreads, 0, s>>>(cand, sorted, order);
  row_cumsum<256, 8><<<rows, 256, 0, s>>>(sorted, cum, kSeg);
}

void run_cg_cub(const float *A, float *x0, float *x1, float *partials,
                float *eig, int n, int iters, const float *logits,
                int *tokens, const float *cand, float *sorted, int *order,
                float *cum, float *tv,
                int *ti, int rows, int vocab, int steps, const float4 *ea,
                const float4 *eb, float *sim, int npairs, const float *sig,
                unsigned *bits, int nwords, int *row_nnz, int words_per_row,
                const unsigned *keys, int nkeys, unsigned *counts,
                const float *bA, const float *bB, float *bC, int batch,
                const unsigned *scan_in, unsigned *scan_out, int scan_n,
                unsigned long long *scan_status, unsigned *scan_ticket) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaStream_t main_s, side_s;
  cudaStreamCreateWithFlags(&main_s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&side_s, cudaStreamNonBlocking);
  cudaEvent_t side_done;
  cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming);

  // Cooperative launch: one resident wave, as grid.sync() requires.
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, power_iteration,
                                                kPowThreads, 0);
  const float4 *A4 = reinterpret_cast<const float4 *>(A);
  void *args[] = {&A4, &x0, &x1, &partials, &eig, &n, &iters};
  cudaLaunchCooperativeKernel((const void *)power_iteration,
                              dim3(sms * per_sm), dim3(kPowThreads), args, 0,
                              main_s);

  // Independent work on the side stream.
  cosine_pairs<<<(npairs * kPairTile + 255) / 256, 256, 0, side_s>>>(
      ea, eb, sim, npairs);
  const int pack_warps = (nwords + kWarp - 1) / kWarp;
  pack_positive_bits<<<(pack_warps * kWarp + 255) / 256, 256, 0, side_s>>>(
      sig, bits, nwords);
  const int bitmap_rows = nwords / words_per_row;
  bitmap_row_counts<<<(bitmap_rows * kWarp + 255) / 256, 256, 0, side_s>>>(
      bits, words_per_row, bitmap_rows, row_nnz);
  cudaMemsetAsync(counts, 0, (kKeyMask + 1u) * sizeof(unsigned), side_s);
  count_keys_aggregated<<<4 * sms, 256, 0, side_s>>>(keys, nkeys, counts);
  batched_gemm32<<<batch, kSmallThreads, 0, side_s>>>(bA, bB, bC);
  const int scan_tiles = (scan_n + kLbTile - 1) / kLbTile;
  cudaMemsetAsync(scan_status, 0, sizeof(unsigned long long) * scan_tiles,
                  side_s);
  cudaMemsetAsync(scan_ticket, 0, sizeof(unsigned), side_s);
  scan_lookback<<<scan_tiles, kLbThreads, 0, side_s>>>(
      scan_in, scan_out, scan_n, scan_status, scan_ticket);
  cudaEventRecord(side_done, side_s);

  // Capture one decoding step, replay it `steps` times.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(main_s, cudaStreamCaptureModeThreadLocal);
  sampling_step(main_s, logits, tokens, cand, sorted, order, cum, tv, ti, rows,
                vocab);
  cudaStreamEndCapture(main_s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaStreamWaitEvent(main_s, side_done, 0);
  for (int s = 0; s < steps; ++s)
    cudaGraphLaunch(exec, main_s);
  cudaStreamSynchronize(main_s);

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(side_done);
  cudaStreamDestroy(side_s);
  cudaStreamDestroy(main_s);
}
