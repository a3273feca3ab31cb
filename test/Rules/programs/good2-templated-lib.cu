// Library-style templated kernels (functors, lambdas, policies, vector-width traits, device helper classes, namespaces), a counter-based Philox generator, a persistent work-queue kernel and one-thread setup kernels: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace l1lib {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// ---------------------------------------------------------------------------
// Traits and small helpers shared by the kernels below.

// Every thread moves 16 bytes per access: 4 floats, 8 halves, 2 doubles.
template <typename T> struct VecTraits {
  static constexpr int kWidth = 16 / (int)sizeof(T);
};

template <typename T, int N> struct alignas(sizeof(T) * N) AlignedVec {
  T v[N];
};

// Grid-stride element-wise launches: block size and resident blocks per SM.
struct StreamingPolicy {
  static constexpr int kThreads = 256;
  static constexpr int kBlocksPerSm = 4;
};

template <typename Op, typename T>
__device__ __forceinline__ T warp_allreduce(T v, Op op) {
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    v = op(v, __shfl_xor_sync(kFullMask, v, off));
  return v;
}

// Block-wide reduction with a caller-provided scratch of one slot per warp.
// reduce() leaves the result in thread 0 and ends with a barrier, so the
// scratch may be reused right away.
template <typename T, typename Op, int kThreads> class BlockReducer {
public:
  static constexpr int kWarps = kThreads / kWarp;
  __device__ BlockReducer(T *scratch, Op op, T identity)
      : scratch_(scratch), op_(op), identity_(identity) {}

  __device__ T reduce(T v) const {
    const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
    v = warp_allreduce(v, op_);
    if (lane == 0)
      scratch_[wid] = v;
    __syncthreads();
    if (wid == 0) {
      v = lane < kWarps ? scratch_[lane] : identity_;
      v = warp_allreduce(v, op_);
    }
    __syncthreads();
    return v;
  }

private:
  T *scratch_;
  Op op_;
  T identity_;
};

struct Plus {
  template <typename T> __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Square {
  __device__ float operator()(float v) const { return v * v; }
};
struct Abs {
  __device__ float operator()(float v) const { return fabsf(v); }
};

// ---------------------------------------------------------------------------
// y[i] = op(x[i]) for any element type and functor. The body moves one
// AlignedVec of VecTraits<T>::kWidth elements per access; the last
// n % kWidth elements are done one at a time. x and y come from cudaMalloc
// (256-byte aligned).
template <typename T, typename Op, typename Policy = StreamingPolicy>
__global__ void __launch_bounds__(Policy::kThreads)
    unary_transform(const T *__restrict__ x, T *__restrict__ y, size_t n,
                    Op op) {
  constexpr int W = VecTraits<T>::kWidth;
  using V = AlignedVec<T, W>;
  const size_t nvec = n / W;
  const size_t stride = (size_t)gridDim.x * Policy::kThreads;
  const size_t first = (size_t)blockIdx.x * Policy::kThreads + threadIdx.x;
  const V *xv = reinterpret_cast<const V *>(x);
  V *yv = reinterpret_cast<V *>(y);
  for (size_t i = first; i < nvec; i += stride) {
    V v = xv[i];
#pragma unroll
    for (int k = 0; k < W; ++k)
      v.v[k] = op(v.v[k]);
    yv[i] = v;
  }
  for (size_t i = nvec * W + first; i < n; i += stride)
    y[i] = op(x[i]);
}

struct ScaleShift {
  float scale, shift;
  __device__ float operator()(float v) const { return fmaf(v, scale, shift); }
};
struct Softplus {
  __device__ float operator()(float v) const {
    return v > 20.0f ? v : log1pf(expf(v));
  }
};
// g(f(x)): one pass over memory for a chain of element-wise functors.
template <typename G, typename F> struct Compose {
  G g;
  F f;
  __device__ float operator()(float v) const { return g(f(v)); }
};
struct HalfLeakyRelu {
  __half slope;
  __device__ __half operator()(__half v) const {
    return __hgt(v, __float2half(0.0f)) ? v : __hmul(v, slope);
  }
};

// ---------------------------------------------------------------------------
// In-place scaling of float or half data, 16 bytes per access. The half
// path multiplies __half2 pairs (if constexpr picks the arithmetic); the
// scalar tail of fewer than kWidth elements is done by the first threads.
template <typename T, typename Policy = StreamingPolicy>
__global__ void __launch_bounds__(Policy::kThreads)
    scale_inplace(T *__restrict__ data, size_t n, float alpha) {
  constexpr int W = VecTraits<T>::kWidth;
  using V = AlignedVec<T, W>;
  const size_t nvec = n / W;
  const size_t stride = (size_t)gridDim.x * Policy::kThreads;
  const size_t first = (size_t)blockIdx.x * Policy::kThreads + threadIdx.x;
  V *dv = reinterpret_cast<V *>(data);
  for (size_t i = first; i < nvec; i += stride) {
    V v = dv[i];
    if constexpr (std::is_same_v<T, __half>) {
      const __half2 a2 = __float2half2_rn(alpha);
      __half2 *h = reinterpret_cast<__half2 *>(v.v);
#pragma unroll
      for (int k = 0; k < W / 2; ++k)
        h[k] = __hmul2(h[k], a2);
    } else {
#pragma unroll
      for (int k = 0; k < W; ++k)
        v.v[k] = (T)(v.v[k] * alpha);
    }
    dv[i] = v;
  }
  if (first < n - nvec * W) {
    const size_t j = nvec * W + first;
    data[j] = (T)((float)data[j] * alpha);
  }
}

// ---------------------------------------------------------------------------
// Single-pass transform-reduce: every block reduces a grid-stride share and
// writes a partial; the last block to finish (a ticket counter, the usual
// threadfence pattern) folds the partials and resets the counter for the next
// call.
template <typename Transform, typename ReduceOp, int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    transform_reduce(const float *__restrict__ in, size_t n, Transform xf,
                     ReduceOp op, float identity, float *__restrict__ partials,
                     unsigned *__restrict__ tickets,
                     float *__restrict__ result) {
  __shared__ float scratch[kThreads / kWarp];
  __shared__ bool is_last;
  const BlockReducer<float, ReduceOp, kThreads> reducer(scratch, op, identity);
  float acc[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    acc[k] = identity;
  const size_t stride = (size_t)gridDim.x * kThreads;
  for (size_t i = (size_t)blockIdx.x * kThreads + threadIdx.x; i < n;
       i += kItems * stride) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const size_t j = i + k * stride;
      if (j < n)
        acc[k] = op(acc[k], xf(in[j]));
    }
  }
  float v = acc[0];
#pragma unroll
  for (int k = 1; k < kItems; ++k)
    v = op(v, acc[k]);
  v = reducer.reduce(v);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();
    is_last = atomicAdd(tickets, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last)
    return;
  float w = identity;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads)
    w = op(w, __ldcg(&partials[b]));
  w = reducer.reduce(w);
  if (threadIdx.x == 0) {
    *result = w;
    *tickets = 0u;
  }
}

// ---------------------------------------------------------------------------
// Philox4x32-10 counter-based generator: the output for a counter is a pure
// function of (counter, key), so thread i draws from counter i with no state
// in memory.
class Philox4x32 {
public:
  __device__ Philox4x32(uint2 key) : key_(key) {}

  __device__ uint4 operator()(uint4 ctr) const {
    uint2 k = key_;
#pragma unroll
    for (int r = 0; r < 9; ++r) {
      ctr = round(ctr, k);
      k.x += kW0;
      k.y += kW1;
    }
    return round(ctr, k);
  }

private:
  static constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  static constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

  __device__ static uint4 round(uint4 c, uint2 k) {
    const uint32_t hi0 = __umulhi(kM0, c.x), lo0 = kM0 * c.x;
    const uint32_t hi1 = __umulhi(kM1, c.z), lo1 = kM1 * c.z;
    return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
  }

  uint2 key_;
};

// 24 random bits to a float in (0, 1].
__device__ __forceinline__ float to_unit_open0(uint32_t bits) {
  return (float)((bits >> 8) + 1u) * (1.0f / 16777216.0f);
}

// Four uniforms per counter, one float4 store per thread and counter.
// `offset` selects a disjoint block of counters for each call.
__global__ void philox_uniform(float4 *__restrict__ out, size_t n4, uint2 key,
                               uint32_t offset) {
  const Philox4x32 rng(key);
  const size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += stride) {
    const uint4 r =
        rng(make_uint4((uint32_t)i, (uint32_t)(i >> 32), offset, 0u));
    out[i] = make_float4(to_unit_open0(r.x), to_unit_open0(r.y),
                         to_unit_open0(r.z), to_unit_open0(r.w));
  }
}

// Four normals per counter by Box-Muller on two pairs of uniforms.
__global__ void philox_normal(float4 *__restrict__ out, size_t n4, uint2 key,
                              uint32_t offset, float mean, float stddev) {
  const Philox4x32 rng(key);
  const size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += stride) {
    const uint4 r =
        rng(make_uint4((uint32_t)i, (uint32_t)(i >> 32), offset, 1u));
    const float r0 = stddev * sqrtf(-2.0f * logf(to_unit_open0(r.x)));
    const float r1 = stddev * sqrtf(-2.0f * logf(to_unit_open0(r.z)));
    float s0, c0, s1, c1;
    sincospif(2.0f * to_unit_open0(r.y), &s0, &c0);
    sincospif(2.0f * to_unit_open0(r.w), &s1, &c1);
    out[i] = make_float4(fmaf(r0, c0, mean), fmaf(r0, s0, mean),
                         fmaf(r1, c1, mean), fmaf(r1, s1, mean));
  }
}

// ---------------------------------------------------------------------------
// Embedding bag (sum, or mean) with one warp per bag. The row width is
// kVecPerLane * 128 floats: every lane owns kVecPerLane float4 columns, so a
// table row is read by the warp in 512-byte coalesced pieces. The bag's
// indices are loaded 32 at a time, one per lane, and broadcast by shuffle.
template <int kVecPerLane, int kWarpsPerBlock>
__global__ void __launch_bounds__(kWarpsPerBlock *kWarp)
    embedding_bag(const float4 *__restrict__ table,
                  const int *__restrict__ indices,
                  const int *__restrict__ offsets, float4 *__restrict__ out,
                  int nbags, bool mean) {
  constexpr int kRowVecs = kVecPerLane * kWarp;
  const int lane = threadIdx.x % kWarp;
  const int bag = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarp;
  if (bag >= nbags)
    return;
  const int begin = offsets[bag], end = offsets[bag + 1];
  float4 acc[kVecPerLane];
#pragma unroll
  for (int v = 0; v < kVecPerLane; ++v)
    acc[v] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int base = begin; base < end; base += kWarp) {
    const int mine = base + lane < end ? indices[base + lane] : 0;
    const int cnt = min(kWarp, end - base);
    for (int j = 0; j < cnt; ++j) {
      const int row = __shfl_sync(kFullMask, mine, j);
      const float4 *src = table + (size_t)row * kRowVecs;
#pragma unroll
      for (int v = 0; v < kVecPerLane; ++v) {
        const float4 e = src[lane + v * kWarp];
        acc[v].x += e.x;
        acc[v].y += e.y;
        acc[v].z += e.z;
        acc[v].w += e.w;
      }
    }
  }
  const float scale = mean && end > begin ? 1.0f / (float)(end - begin) : 1.0f;
  float4 *dst = out + (size_t)bag * kRowVecs;
#pragma unroll
  for (int v = 0; v < kVecPerLane; ++v)
    dst[lane + v * kWarp] = make_float4(acc[v].x * scale, acc[v].y * scale,
                                        acc[v].z * scale, acc[v].w * scale);
}

// ---------------------------------------------------------------------------
// NCHW -> NHWC permutation, a batched transpose of C x HW planes through a
// padded shared tile; the tile shape is a policy.
struct PermuteTile {
  static constexpr int kDim = 32;  // tile is kDim x kDim
  static constexpr int kRows = 8;  // block is kDim x kRows threads
};

template <typename T, typename Tile>
__global__ void __launch_bounds__(Tile::kDim *Tile::kRows)
    nchw_to_nhwc(const T *__restrict__ in, T *__restrict__ out, int C,
                 int HW) {
  __shared__ T tile[Tile::kDim][Tile::kDim + 1];
  const size_t plane = (size_t)C * HW;
  const T *src = in + blockIdx.z * plane;
  T *dst = out + blockIdx.z * plane;
  const int hw0 = blockIdx.x * Tile::kDim, c0 = blockIdx.y * Tile::kDim;
  const int hw = hw0 + threadIdx.x;
#pragma unroll
  for (int r = threadIdx.y; r < Tile::kDim; r += Tile::kRows) {
    const int c = c0 + r;
    if (c < C && hw < HW)
      tile[r][threadIdx.x] = src[(size_t)c * HW + hw];
  }
  __syncthreads();
  const int c = c0 + threadIdx.x;
#pragma unroll
  for (int r = threadIdx.y; r < Tile::kDim; r += Tile::kRows) {
    const int p = hw0 + r;
    if (p < HW && c < C)
      dst[(size_t)p * C + c] = tile[threadIdx.x][r];
  }
}

// ---------------------------------------------------------------------------
// Persistent kernel over a ragged batch: row r (offsets[r] .. offsets[r+1])
// is scaled to sum to one. Row lengths vary by orders of magnitude, so blocks
// take rows from a queue (one atomic per row, by design) instead of a fixed
// assignment. The grid is one wave of resident blocks.
struct WorkQueue {
  unsigned head;
  unsigned count;
};

// Setup, launched once before the persistent kernel: empty queue of n rows.
__global__ void init_queue(WorkQueue *__restrict__ q, unsigned n) {
  q->head = 0u;
  q->count = n;
}

constexpr int kQueueThreads = 256;
__global__ void __launch_bounds__(kQueueThreads)
    normalize_ragged_rows(WorkQueue *__restrict__ q,
                          const int *__restrict__ offsets,
                          float *__restrict__ vals) {
  __shared__ float scratch[kQueueThreads / kWarp];
  __shared__ unsigned row_slot;
  __shared__ float row_scale;
  const BlockReducer<float, Plus, kQueueThreads> reducer(scratch, Plus(),
                                                          0.0f);
  const unsigned count = q->count;
  for (;;) {
    if (threadIdx.x == 0)
      row_slot = atomicAdd(&q->head, 1u);
    __syncthreads();
    const unsigned row = row_slot;
    if (row >= count)
      return;
    const int begin = offsets[row], end = offsets[row + 1];
    float s = 0.0f;
    for (int i = begin + threadIdx.x; i < end; i += kQueueThreads)
      s += vals[i];
    s = reducer.reduce(s); // its barriers also order row_slot's next write
    if (threadIdx.x == 0)
      row_scale = s != 0.0f ? 1.0f / s : 0.0f;
    __syncthreads();
    const float scale = row_scale;
    for (int i = begin + threadIdx.x; i < end; i += kQueueThreads)
      vals[i] *= scale;
  }
}

// ---------------------------------------------------------------------------
// Symmetric int8 quantization per row, one warp per row: a pass for the
// row's largest magnitude, a pass writing round(x * 127 / amax) four at a
// time (char4). cols is a multiple of 4. The reductions take lambdas.
constexpr int kQuantWarps = 8;
__global__ void __launch_bounds__(kQuantWarps *kWarp)
    quantize_rows_int8(const float4 *__restrict__ in, char4 *__restrict__ q,
                       float *__restrict__ row_scale, int rows, int cols) {
  const int lane = threadIdx.x % kWarp;
  const int row = blockIdx.x * kQuantWarps + threadIdx.x / kWarp;
  if (row >= rows)
    return;
  const int cols4 = cols / 4;
  const float4 *src = in + (size_t)row * cols4;
  char4 *dst = q + (size_t)row * cols4;
  auto absmax = [](float a, float b) { return fmaxf(a, b); };
  float amax = 0.0f;
  for (int c = lane; c < cols4; c += kWarp) {
    const float4 v = src[c];
    amax = fmaxf(fmaxf(amax, fabsf(v.x)), fabsf(v.y));
    amax = fmaxf(fmaxf(amax, fabsf(v.z)), fabsf(v.w));
  }
  amax = warp_allreduce(amax, absmax);
  const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
  auto q8 = [inv](float x) {
    return (signed char)__float2int_rn(fminf(fmaxf(x * inv, -127.0f), 127.0f));
  };
  for (int c = lane; c < cols4; c += kWarp) {
    const float4 v = src[c];
    dst[c] = make_char4(q8(v.x), q8(v.y), q8(v.z), q8(v.w));
  }
  if (lane == 0)
    row_scale[row] = amax * (1.0f / 127.0f);
}

// Setup, launched once: the dequantization factor of a global tensor from
// its largest magnitude (computed on the device by transform_reduce), kept
// on the device so nothing waits for the host.
__global__ void write_dequant_scale(const float *__restrict__ amax,
                                    float *__restrict__ scale) {
  const float a = *amax;
  *scale = a > 0.0f ? a * (1.0f / 127.0f) : 1.0f;
}

} // namespace l1lib

// ---------------------------------------------------------------------------
using namespace l1lib;

static int grid_for(size_t work_items, int threads, int sms, int per_sm) {
  const size_t needed = (work_items + threads - 1) / threads;
  const size_t cap = (size_t)sms * per_sm;
  return (int)(needed < cap ? (needed > 0 ? needed : 1) : cap);
}

void run_library(const float *x, float *y, size_t n, const __half *hx,
                 __half *hy, size_t hn, float *partials, unsigned *tickets,
                 float *norm2, float *amax, float *dq_scale, float4 *uni,
                 float4 *gauss, size_t n4, const float4 *table,
                 const int *bag_idx, const int *bag_off, float4 *bag_out,
                 int nbags, const float *nchw, float *nhwc, int batch, int C,
                 int HW, WorkQueue *queue, const int *ragged_off,
                 float *ragged_vals, unsigned nrows_ragged, const float4 *qin,
                 char4 *qout, float *qscale, int qrows, int qcols,
                 __half *hgrad, float *fgrad, size_t ngrad,
                 cudaStream_t stream) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  constexpr int T = StreamingPolicy::kThreads;
  constexpr int P = StreamingPolicy::kBlocksPerSm;
  unary_transform<<<grid_for(n / 4, T, sms, P), T, 0, stream>>>(
      x, y, n, Compose<Softplus, ScaleShift>{Softplus{}, {2.0f, -1.0f}});
  unary_transform<<<grid_for(hn / 8, T, sms, P), T, 0, stream>>>(
      hx, hy, hn, HalfLeakyRelu{__float2half(0.01f)});
  // Mixed-precision training: gradients produced by the backward pass are
  // unscaled by the loss scale before the optimizer reads them.
  const float inv_loss_scale = 1.0f / 1024.0f;
  scale_inplace<<<grid_for(ngrad / 8, T, sms, P), T, 0, stream>>>(
      hgrad, ngrad, inv_loss_scale);
  scale_inplace<<<grid_for(ngrad / 4, T, sms, P), T, 0, stream>>>(
      fgrad, ngrad, inv_loss_scale);

  // Both reductions share the partials and the ticket counter (which starts
  // at zero and is reset by each call's last block); the stream orders them.
  constexpr int RT = 512, RI = 4;
  const int rblocks = 2 * sms;
  transform_reduce<Square, Plus, RT, RI><<<rblocks, RT, 0, stream>>>(
      y, n, Square{}, Plus{}, 0.0f, partials, tickets, norm2);
  transform_reduce<Abs, Max, RT, RI><<<rblocks, RT, 0, stream>>>(
      y, n, Abs{}, Max{}, 0.0f, partials, tickets, amax);
  write_dequant_scale<<<1, 1, 0, stream>>>(amax, dq_scale);

  const uint2 key = make_uint2(0x12345678u, 0x9abcdef0u);
  philox_uniform<<<grid_for(n4, 256, sms, 8), 256, 0, stream>>>(uni, n4, key,
                                                                0u);
  philox_normal<<<grid_for(n4, 256, sms, 8), 256, 0, stream>>>(
      gauss, n4, key, 1u, 0.0f, 1.0f);

  // 256-float rows: two float4 per lane.
  constexpr int kBagWarps = 8;
  embedding_bag<2, kBagWarps>
      <<<(nbags + kBagWarps - 1) / kBagWarps, kBagWarps * kWarp, 0, stream>>>(
          table, bag_idx, bag_off, bag_out, nbags, true);

  const dim3 pgrid((HW + PermuteTile::kDim - 1) / PermuteTile::kDim,
                   (C + PermuteTile::kDim - 1) / PermuteTile::kDim, batch);
  nchw_to_nhwc<float, PermuteTile>
      <<<pgrid, dim3(PermuteTile::kDim, PermuteTile::kRows), 0, stream>>>(
          nchw, nhwc, C, HW);

  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalize_ragged_rows,
                                                kQueueThreads, 0);
  init_queue<<<1, 1, 0, stream>>>(queue, nrows_ragged);
  normalize_ragged_rows<<<sms * per_sm, kQueueThreads, 0, stream>>>(
      queue, ragged_off, ragged_vals);

  quantize_rows_int8<<<(qrows + kQuantWarps - 1) / kQuantWarps,
                       kQuantWarps * kWarp, 0, stream>>>(qin, qout, qscale,
                                                         qrows, qcols);
  cudaStreamSynchronize(stream);
}
