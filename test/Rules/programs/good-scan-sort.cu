// Well-written histogram, scan, compaction, radix and bitonic kernels:
// no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarpSize = 32;

// ---------------------------------------------------------------------------
// 256-bin byte histogram: per-block bins in shared memory, four bytes per
// load, one global atomic per non-empty bin per block.
constexpr int kBins = 256;
__global__ void histogram256(const unsigned char *__restrict__ data, size_t n,
                             unsigned *__restrict__ hist) {
  __shared__ unsigned bins[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    bins[b] = 0u;
  __syncthreads();
  const size_t stride = (size_t)blockDim.x * gridDim.x;
  const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t n4 = n / 4;
  const uchar4 *d4 = reinterpret_cast<const uchar4 *>(data);
  for (size_t i = first; i < n4; i += stride) {
    const uchar4 v = d4[i];
    atomicAdd(&bins[v.x], 1u);
    atomicAdd(&bins[v.y], 1u);
    atomicAdd(&bins[v.z], 1u);
    atomicAdd(&bins[v.w], 1u);
  }
  for (size_t i = 4 * n4 + first; i < n; i += stride)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    const unsigned c = bins[b];
    if (c != 0u)
      atomicAdd(&hist[b], c);
  }
}

// Histogram of 20-bit keys: a million bins (4 MiB) do not fit in shared
// memory, the keys are spread over them, so global atomics (resolved in L2)
// are the right tool.
constexpr int kBigBinBits = 20, kBigBins = 1 << kBigBinBits;
__global__ void histogram_20bit(const uint32_t *__restrict__ keys, int n,
                                unsigned *__restrict__ hist) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&hist[keys[i] & (kBigBins - 1)], 1u);
}

// ---------------------------------------------------------------------------
// Work-efficient (Blelloch) exclusive scan of 2 * THREADS elements per block
// in shared memory, padded by one word per 32 to spread the tree's strided
// accesses over the banks. Each block also writes its total. It may run in
// place (in == out: each block reads its span before it writes it), so in
// and out are not __restrict__.
#define PAD(i) ((i) + ((i) >> 5))
template <int THREADS>
__global__ void scan_blelloch(const unsigned *in, unsigned *out,
                              unsigned *__restrict__ block_sums, int n) {
  constexpr int N = 2 * THREADS;
  __shared__ unsigned s[N + N / 32];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * N;
  const int a0 = tid, b0 = tid + THREADS;
  s[PAD(a0)] = base + a0 < n ? in[base + a0] : 0u;
  s[PAD(b0)] = base + b0 < n ? in[base + b0] : 0u;
  int offset = 1;
#pragma unroll
  for (int d = N / 2; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1;
      const int bi = offset * (2 * tid + 2) - 1;
      s[PAD(bi)] += s[PAD(ai)];
    }
    offset *= 2;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = s[PAD(N - 1)];
    s[PAD(N - 1)] = 0u;
  }
#pragma unroll
  for (int d = 1; d < N; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1;
      const int bi = offset * (2 * tid + 2) - 1;
      const unsigned t = s[PAD(ai)];
      s[PAD(ai)] = s[PAD(bi)];
      s[PAD(bi)] += t;
    }
  }
  __syncthreads();
  if (base + a0 < n)
    out[base + a0] = s[PAD(a0)];
  if (base + b0 < n)
    out[base + b0] = s[PAD(b0)];
}

// Adds each block's scanned offset to its 2 * blockDim.x elements.
__global__ void scan_add_offsets(unsigned *__restrict__ data,
                                 const unsigned *__restrict__ offsets, int n) {
  const unsigned add = offsets[blockIdx.x];
  const int base = blockIdx.x * 2 * blockDim.x;
  const int i0 = base + threadIdx.x, i1 = i0 + blockDim.x;
  if (i0 < n)
    data[i0] += add;
  if (i1 < n)
    data[i1] += add;
}

constexpr int kScanThreads = 512, kScanTile = 2 * kScanThreads;

// Exclusive scan of up to kScanTile * kScanTile values in place (two levels).
static void exclusive_scan(unsigned *data, unsigned *sums, unsigned *scratch,
                           int n) {
  const int blocks = (n + kScanTile - 1) / kScanTile;
  scan_blelloch<kScanThreads><<<blocks, kScanThreads>>>(data, data, sums, n);
  if (blocks > 1) {
    scan_blelloch<kScanThreads><<<1, kScanThreads>>>(sums, sums, scratch,
                                                     blocks);
    scan_add_offsets<<<blocks, kScanThreads>>>(data, sums, n);
  }
}

// ---------------------------------------------------------------------------
// Ordered stream compaction in two kernels around a scan of block counts:
// count survivors per block with warp ballots, then scatter each survivor to
// its block's offset plus its rank in the block.
constexpr int kCompactThreads = 256, kCompactWarps = kCompactThreads / 32;

__global__ void compact_count(const float *__restrict__ in, float threshold,
                              unsigned *__restrict__ block_counts, int n) {
  __shared__ unsigned warp_counts[kCompactWarps];
  const int i = blockIdx.x * kCompactThreads + threadIdx.x;
  const bool keep = i < n && in[i] > threshold;
  const unsigned ballot = __ballot_sync(kFull, keep);
  const int lane = threadIdx.x % kWarpSize, wid = threadIdx.x / kWarpSize;
  if (lane == 0)
    warp_counts[wid] = __popc(ballot);
  __syncthreads();
  if (wid == 0) {
    unsigned c = lane < kCompactWarps ? warp_counts[lane] : 0u;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      c += __shfl_xor_sync(kFull, c, off);
    if (lane == 0)
      block_counts[blockIdx.x] = c;
  }
}

__global__ void compact_scatter(const float *__restrict__ in, float threshold,
                                const unsigned *__restrict__ block_offsets,
                                float *__restrict__ out, int n) {
  __shared__ unsigned warp_base[kCompactWarps];
  const int i = blockIdx.x * kCompactThreads + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const bool keep = i < n && v > threshold;
  const unsigned ballot = __ballot_sync(kFull, keep);
  const int lane = threadIdx.x % kWarpSize, wid = threadIdx.x / kWarpSize;
  if (lane == 0)
    warp_base[wid] = __popc(ballot);
  __syncthreads();
  if (wid == 0) {
    const unsigned c = lane < kCompactWarps ? warp_base[lane] : 0u;
    unsigned incl = c;
#pragma unroll
    for (int off = 1; off < kWarpSize; off <<= 1) {
      const unsigned up = __shfl_up_sync(kFull, incl, off);
      if (lane >= off)
        incl += up;
    }
    if (lane < kCompactWarps)
      warp_base[lane] = incl - c;
  }
  __syncthreads();
  if (keep) {
    const unsigned rank = __popc(ballot & ((1u << lane) - 1u));
    out[block_offsets[blockIdx.x] + warp_base[wid] + rank] = v;
  }
}

// ---------------------------------------------------------------------------
// One least-significant-digit radix pass (4-bit digits). Each block owns a
// contiguous range of keys. Counts are laid out digit-major so that one
// exclusive scan gives every (digit, block) its first output position.
constexpr int kDigitBits = 4, kDigits = 1 << kDigitBits;
constexpr int kRadixThreads = 256, kRadixWarps = kRadixThreads / 32;

__global__ void radix_count(const unsigned *__restrict__ keys, int n,
                            int per_block, int shift,
                            unsigned *__restrict__ counts) {
  __shared__ unsigned c[kDigits];
  if (threadIdx.x < kDigits)
    c[threadIdx.x] = 0u;
  __syncthreads();
  const int lane = threadIdx.x % kWarpSize;
  const int begin = blockIdx.x * per_block;
  const int end = min(begin + per_block, n);
  for (int base = begin; base < end; base += kRadixThreads) {
    const int i = base + threadIdx.x;
    const bool valid = i < end;
    const unsigned d = valid ? (keys[i] >> shift) & (kDigits - 1) : kDigits;
    const unsigned peers = __match_any_sync(kFull, d);
    if (valid && (__ffs(peers) - 1) == lane)
      atomicAdd(&c[d], (unsigned)__popc(peers));
  }
  __syncthreads();
  if (threadIdx.x < kDigits)
    counts[threadIdx.x * gridDim.x + blockIdx.x] = c[threadIdx.x];
}

// Stable scatter: each tile of 256 keys is ordered by digit in shared memory
// (ranks from __match_any_sync and a scan over warps), then written out so
// that consecutive threads store consecutive positions of a digit's run.
__global__ void radix_scatter(const unsigned *__restrict__ keys_in,
                              unsigned *__restrict__ keys_out, int n,
                              int per_block, int shift,
                              const unsigned *__restrict__ offsets) {
  __shared__ unsigned run[kDigits];       // next output position per digit
  __shared__ unsigned start[kDigits];     // first slot of a digit in the tile
  __shared__ unsigned total[kDigits];     // keys of a digit in the tile
  __shared__ unsigned wpre[kRadixWarps][kDigits];
  __shared__ unsigned tile[kRadixThreads];
  const int lane = threadIdx.x % kWarpSize, wid = threadIdx.x / kWarpSize;
  if (threadIdx.x < kDigits)
    run[threadIdx.x] = offsets[threadIdx.x * gridDim.x + blockIdx.x];
  const int begin = blockIdx.x * per_block;
  const int end = min(begin + per_block, n);
  for (int base = begin; base < end; base += kRadixThreads) {
    static_assert(kRadixWarps * kDigits <= kRadixThreads, "one pass");
    if (threadIdx.x < kRadixWarps * kDigits)
      wpre[threadIdx.x / kDigits][threadIdx.x % kDigits] = 0u;
    __syncthreads();
    const int i = base + threadIdx.x;
    const bool valid = i < end;
    const unsigned key = valid ? keys_in[i] : 0u;
    const unsigned d = valid ? (key >> shift) & (kDigits - 1) : kDigits;
    const unsigned peers = __match_any_sync(kFull, d);
    const unsigned rank = __popc(peers & ((1u << lane) - 1u));
    if (valid && rank == 0u)
      wpre[wid][d] = __popc(peers);
    __syncthreads();
    if (wid == 0) {
      unsigned tot = 0u;
      if (lane < kDigits) {
#pragma unroll
        for (int w = 0; w < kRadixWarps; ++w) {
          const unsigned cnt = wpre[w][lane];
          wpre[w][lane] = tot;
          tot += cnt;
        }
      }
      unsigned incl = tot;
#pragma unroll
      for (int off = 1; off < kDigits; off <<= 1) {
        const unsigned up = __shfl_up_sync(kFull, incl, off);
        if (lane >= off)
          incl += up;
      }
      if (lane < kDigits) {
        start[lane] = incl - tot;
        total[lane] = tot;
      }
    }
    __syncthreads();
    if (valid)
      tile[start[d] + wpre[wid][d] + rank] = key;
    __syncthreads();
    if (threadIdx.x < end - base) {
      const unsigned k = tile[threadIdx.x];
      const unsigned kd = (k >> shift) & (kDigits - 1);
      keys_out[run[kd] + threadIdx.x - start[kd]] = k;
    }
    __syncthreads();
    if (threadIdx.x < kDigits)
      run[threadIdx.x] += total[threadIdx.x];
  }
}

// ---------------------------------------------------------------------------
// Bitonic sort of a power-of-two array. Stages whose compare distance fits a
// block run in shared memory; longer distances run as one global step each.
constexpr int kSortThreads = 512, kSortTile = 2 * kSortThreads;

__device__ __forceinline__ void compare_swap(unsigned &a, unsigned &b,
                                             bool ascending) {
  if ((a > b) == ascending) {
    const unsigned t = a;
    a = b;
    b = t;
  }
}

__global__ void bitonic_sort_tile(unsigned *__restrict__ keys) {
  __shared__ unsigned s[kSortTile];
  const unsigned base = blockIdx.x * kSortTile;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + kSortThreads] = keys[base + threadIdx.x + kSortThreads];
  for (unsigned size = 2; size <= kSortTile; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      compare_swap(s[pos], s[pos + stride], ((base + pos) & size) == 0);
    }
  }
  __syncthreads();
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + kSortThreads] = s[threadIdx.x + kSortThreads];
}

__global__ void bitonic_step_global(unsigned *__restrict__ keys,
                                    unsigned stride, unsigned size) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned pos = 2 * t - (t & (stride - 1));
  unsigned a = keys[pos], b = keys[pos + stride];
  compare_swap(a, b, (pos & size) == 0);
  keys[pos] = a;
  keys[pos + stride] = b;
}

__global__ void bitonic_merge_tile(unsigned *__restrict__ keys,
                                   unsigned size) {
  __shared__ unsigned s[kSortTile];
  const unsigned base = blockIdx.x * kSortTile;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + kSortThreads] = keys[base + threadIdx.x + kSortThreads];
  const bool ascending = (base & size) == 0;
  for (unsigned stride = kSortTile / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    compare_swap(s[pos], s[pos + stride], ascending);
  }
  __syncthreads();
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + kSortThreads] = s[threadIdx.x + kSortThreads];
}

// `len` is a power of two, at least kSortTile.
static void bitonic_sort(unsigned *keys, unsigned len) {
  const unsigned tiles = len / kSortTile;
  bitonic_sort_tile<<<tiles, kSortThreads>>>(keys);
  for (unsigned size = 2 * kSortTile; size <= len; size <<= 1) {
    for (unsigned stride = size / 2; stride >= kSortTile; stride >>= 1)
      bitonic_step_global<<<len / 2 / 256, 256>>>(keys, stride, size);
    bitonic_merge_tile<<<tiles, kSortThreads>>>(keys, size);
  }
}

// ---------------------------------------------------------------------------
void run_scan_sort(const unsigned char *bytes, size_t nbytes, unsigned *hist,
                   const float *vals, float *compacted, unsigned *block_counts,
                   unsigned *sums, unsigned *scratch, const unsigned *keys,
                   unsigned *keys_out, unsigned *counts, int n,
                   unsigned *sort_keys, unsigned sort_len,
                   unsigned *big_hist) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  cudaMemset(hist, 0, kBins * sizeof(unsigned));
  histogram256<<<2 * sms, 512>>>(bytes, nbytes, hist);
  cudaMemset(big_hist, 0, kBigBins * sizeof(unsigned));
  histogram_20bit<<<4 * sms, 256>>>(keys, n, big_hist);

  const int cblocks = (n + kCompactThreads - 1) / kCompactThreads;
  compact_count<<<cblocks, kCompactThreads>>>(vals, 0.0f, block_counts, n);
  exclusive_scan(block_counts, sums, scratch, cblocks);
  compact_scatter<<<cblocks, kCompactThreads>>>(vals, 0.0f, block_counts,
                                                compacted, n);

  const int rblocks = 4 * sms;
  int per_block = (n + rblocks - 1) / rblocks;
  per_block = (per_block + kRadixThreads - 1) / kRadixThreads * kRadixThreads;
  radix_count<<<rblocks, kRadixThreads>>>(keys, n, per_block, 0, counts);
  exclusive_scan(counts, sums, scratch, kDigits * rblocks);
  radix_scatter<<<rblocks, kRadixThreads>>>(keys, keys_out, n, per_block, 0,
                                            counts);

  bitonic_sort(sort_keys, sort_len);
  cudaDeviceSynchronize();
}
