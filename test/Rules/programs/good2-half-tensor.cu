// Half and bfloat16 kernels, tensor-core GEMMs (half and TF32 WMMA) fed by cp.async pipelines, fused decode attention and online softmax: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace wmma = nvcuda::wmma;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarpSize = 32;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = kWarpSize / 2; off > 0; off >>= 1)
    v += __shfl_xor_sync(kFull, v, off);
  return v;
}

// ---------------------------------------------------------------------------
// Bias + GELU (erf form) on a half [rows x cols] activation, cols a multiple
// of 8. A thread owns one 16-byte column vector: it loads its bias once and
// walks kGeluRows rows of its block; the add is done in half2, the GELU in
// float.
constexpr int kGeluRows = 16;

__device__ __forceinline__ float gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678f));
}

__global__ void bias_gelu_half(const uint4 *__restrict__ x,
                               const uint4 *__restrict__ bias,
                               uint4 *__restrict__ y, int rows, int cols8) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols8)
    return;
  const uint4 bv = bias[c];
  const __half2 *b2 = reinterpret_cast<const __half2 *>(&bv);
  const int r0 = blockIdx.y * kGeluRows;
  const int r1 = min(r0 + kGeluRows, rows);
  for (int r = r0; r < r1; ++r) {
    const size_t e = (size_t)r * cols8 + c;
    uint4 v = x[e];
    __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float2 f = __half22float2(__hadd2(h[k], b2[k]));
      f.x = gelu_erf(f.x);
      f.y = gelu_erf(f.y);
      h[k] = __float22half2_rn(f);
    }
    y[e] = v;
  }
}

// ---------------------------------------------------------------------------
// RMSNorm over bfloat16 rows of kThreads * kVecs * 8 elements, one block per
// row. The row stays in registers between the sum of squares and the scaling
// (one read of global memory); accumulation is in float.
template <int kThreads, int kVecs>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_bf16(const uint4 *__restrict__ x, const uint4 *__restrict__ weight,
                 uint4 *__restrict__ y, float eps) {
  constexpr int kRowVecs = kThreads * kVecs;
  constexpr float kInvHidden = 1.0f / (float)(kRowVecs * 8);
  __shared__ float warp_part[kThreads / kWarpSize];
  __shared__ float inv_rms;
  const uint4 *src = x + (size_t)blockIdx.x * kRowVecs;
  uint4 *dst = y + (size_t)blockIdx.x * kRowVecs;
  uint4 v[kVecs];
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    v[k] = src[threadIdx.x + k * kThreads];
    const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&v[k]);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(b[j]);
      ss = fmaf(f.x, f.x, ss);
      ss = fmaf(f.y, f.y, ss);
    }
  }
  ss = warp_sum(ss);
  const int lane = threadIdx.x % kWarpSize, wid = threadIdx.x / kWarpSize;
  if (lane == 0)
    warp_part[wid] = ss;
  __syncthreads();
  if (wid == 0) {
    float t = lane < kThreads / kWarpSize ? warp_part[lane] : 0.0f;
    t = warp_sum(t);
    if (lane == 0)
      inv_rms = rsqrtf(fmaf(t, kInvHidden, eps));
  }
  __syncthreads();
  const float r = inv_rms;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const uint4 wv = weight[threadIdx.x + k * kThreads];
    const __nv_bfloat162 *wb = reinterpret_cast<const __nv_bfloat162 *>(&wv);
    __nv_bfloat162 *b = reinterpret_cast<__nv_bfloat162 *>(&v[k]);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(b[j]);
      const float2 g = __bfloat1622float2(wb[j]);
      b[j] = __floats2bfloat162_rn(f.x * r * g.x, f.y * r * g.y);
    }
    dst[threadIdx.x + k * kThreads] = v[k];
  }
}

// ---------------------------------------------------------------------------
// Rotary position embedding (interleaved pairs) in half precision, in place
// on a [tokens][heads][kHeadDim] tensor. Each thread rotates four pairs (one
// 16-byte vector); the table holds (cos, sin) as __half2 per position and
// pair, so the rotation is one multiply and one fused multiply-add in half2:
//   (x0, x1) * (c, c) + (x1, x0) * (-s, s).
template <int kHeadDim>
__global__ void rope_half2(uint4 *__restrict__ qk,
                           const uint4 *__restrict__ cos_sin,
                           const int *__restrict__ positions, int heads) {
  constexpr unsigned kVecsPerHead = kHeadDim / 8;
  const unsigned t = blockIdx.y * blockDim.x + threadIdx.x;
  if (t >= heads * kVecsPerHead)
    return;
  const unsigned token = blockIdx.x;
  const int pos = positions[token];
  const unsigned j = t % kVecsPerHead;
  const uint4 csv = cos_sin[(size_t)pos * kVecsPerHead + j];
  const size_t e = (size_t)token * heads * kVecsPerHead + t;
  uint4 xv = qk[e];
  const __half2 *cs = reinterpret_cast<const __half2 *>(&csv);
  __half2 *h = reinterpret_cast<__half2 *>(&xv);
  const __half2 sign = __floats2half2_rn(-1.0f, 1.0f);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const __half2 c2 = __low2half2(cs[k]);
    const __half2 s2 = __hmul2(__high2half2(cs[k]), sign);
    h[k] = __hfma2(__lowhigh2highlow(h[k]), s2, __hmul2(h[k], c2));
  }
  qk[e] = xv;
}

// ---------------------------------------------------------------------------
// Half GEMM on tensor cores, C (float) = A * B, all row-major; M, N multiples
// of 128, K a multiple of 32. A 128x128 block tile, 8 warps of 64x32, three
// pipeline stages of (A, B) tiles filled with cuda::memcpy_async (cp.async,
// 16 bytes per copy) while the previous stage feeds the MMAs. The stages
// take 55.5 KiB of dynamic shared memory (opt-in above 48 KiB).
struct HgemmCfg {
  static constexpr int BM = 128, BN = 128, BK = 32, kStages = 3, kPad = 8;
  static constexpr int kWarpsM = 2, kWarpsN = 4;
  static constexpr int kThreads = kWarpSize * kWarpsM * kWarpsN;
  static constexpr int WM = BM / kWarpsM, WN = BN / kWarpsN;
  static constexpr int FM = WM / 16, FN = WN / 16;
  static constexpr int kALd = BK + kPad, kBLd = BN + kPad;
  static constexpr int kAStage = BM * kALd, kBStage = BK * kBLd;
  static constexpr int kAChunks = BM * BK / 8, kBChunks = BK * BN / 8;
  static constexpr size_t kSmemBytes =
      (size_t)kStages * (kAStage + kBStage) * sizeof(__half);
};

__global__ void __launch_bounds__(HgemmCfg::kThreads)
    hgemm_wmma_pipelined(int M, int N, int K, const __half *__restrict__ A,
                         const __half *__restrict__ B, float *__restrict__ C) {
  using Cfg = HgemmCfg;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __half *As = reinterpret_cast<__half *>(smem_raw);
  __half *Bs = As + Cfg::kStages * Cfg::kAStage;
  const int warp = threadIdx.x / kWarpSize;
  const int wm = warp / Cfg::kWarpsN, wn = warp % Cfg::kWarpsN;
  const int row0 = blockIdx.y * Cfg::BM, col0 = blockIdx.x * Cfg::BN;
  const int ktiles = K / Cfg::BK;

  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  auto load_stage = [&](int stage, int kt) {
    __half *as = As + stage * Cfg::kAStage;
    __half *bs = Bs + stage * Cfg::kBStage;
    const int k0 = kt * Cfg::BK;
#pragma unroll
    for (int c = threadIdx.x; c < Cfg::kAChunks; c += Cfg::kThreads) {
      const int r = c / (Cfg::BK / 8), k = (c % (Cfg::BK / 8)) * 8;
      cuda::memcpy_async(as + r * Cfg::kALd + k,
                         A + (size_t)(row0 + r) * K + k0 + k,
                         cuda::aligned_size_t<16>(16), pipe);
    }
#pragma unroll
    for (int c = threadIdx.x; c < Cfg::kBChunks; c += Cfg::kThreads) {
      const int r = c / (Cfg::BN / 8), n = (c % (Cfg::BN / 8)) * 8;
      cuda::memcpy_async(bs + r * Cfg::kBLd + n,
                         B + (size_t)(k0 + r) * N + col0 + n,
                         cuda::aligned_size_t<16>(16), pipe);
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[Cfg::FM][Cfg::FN];
#pragma unroll
  for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::FN; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  int fetch = 0;
  for (; fetch < Cfg::kStages - 1 && fetch < ktiles; ++fetch) {
    pipe.producer_acquire();
    load_stage(fetch, fetch);
    pipe.producer_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    // The stage refilled here was consumed in the previous iteration, which
    // ended with a barrier.
    if (fetch < ktiles) {
      pipe.producer_acquire();
      load_stage(fetch % Cfg::kStages, fetch);
      pipe.producer_commit();
      ++fetch;
    }
    pipe.consumer_wait();
    __syncthreads();
    const __half *as = As + (kt % Cfg::kStages) * Cfg::kAStage;
    const __half *bs = Bs + (kt % Cfg::kStages) * Cfg::kBStage;
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>
          fa[Cfg::FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>
          fb[Cfg::FN];
#pragma unroll
      for (int i = 0; i < Cfg::FM; ++i)
        wmma::load_matrix_sync(
            fa[i], as + (wm * Cfg::WM + i * 16) * Cfg::kALd + kk, Cfg::kALd);
#pragma unroll
      for (int j = 0; j < Cfg::FN; ++j)
        wmma::load_matrix_sync(
            fb[j], bs + kk * Cfg::kBLd + wn * Cfg::WN + j * 16, Cfg::kBLd);
#pragma unroll
      for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::FN; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
    pipe.consumer_release();
  }
#pragma unroll
  for (int i = 0; i < Cfg::FM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::FN; ++j)
      wmma::store_matrix_sync(C + (size_t)(row0 + wm * Cfg::WM + i * 16) * N +
                                  col0 + wn * Cfg::WN + j * 16,
                              acc[i][j], N, wmma::mem_row_major);
}

// ---------------------------------------------------------------------------
// FP32 GEMM on tensor cores in TF32 (m16n16k8), C = A * B row-major; M, N
// multiples of 64, K a multiple of 16. Double-buffered tiles copied with the
// __pipeline_memcpy_async primitives; fragments are rounded to TF32 after
// loading.
constexpr int kTfBM = 64, kTfBN = 64, kTfBK = 16, kTfPad = 4, kTfThreads = 128;
constexpr int kTfALd = kTfBK + kTfPad, kTfBLd = kTfBN + kTfPad;

__global__ void __launch_bounds__(kTfThreads, 4)
    sgemm_tf32_wmma(int M, int N, int K, const float *__restrict__ A,
                    const float *__restrict__ B, float *__restrict__ C) {
  __shared__ __align__(128) float As[2][kTfBM][kTfALd];
  __shared__ __align__(128) float Bs[2][kTfBK][kTfBLd];
  const int warp = threadIdx.x / kWarpSize;
  const int wm = warp / 2, wn = warp % 2;
  const int row0 = blockIdx.y * kTfBM, col0 = blockIdx.x * kTfBN;
  const int ktiles = K / kTfBK;

  auto load_stage = [&](int s, int kt) {
    const int k0 = kt * kTfBK;
#pragma unroll
    for (int c = threadIdx.x; c < kTfBM * kTfBK / 4; c += kTfThreads) {
      const int r = c / (kTfBK / 4), k = (c % (kTfBK / 4)) * 4;
      __pipeline_memcpy_async(&As[s][r][k], A + (size_t)(row0 + r) * K + k0 + k,
                              16);
    }
#pragma unroll
    for (int c = threadIdx.x; c < kTfBK * kTfBN / 4; c += kTfThreads) {
      const int r = c / (kTfBN / 4), n = (c % (kTfBN / 4)) * 4;
      __pipeline_memcpy_async(&Bs[s][r][n], B + (size_t)(k0 + r) * N + col0 + n,
                              16);
    }
    __pipeline_commit();
  };

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  load_stage(0, 0);
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt & 1;
    if (kt + 1 < ktiles) {
      load_stage(s ^ 1, kt + 1);
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTfBK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32,
                     wmma::row_major>
          fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32,
                     wmma::row_major>
          fb[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        wmma::load_matrix_sync(fa[i], &As[s][wm * 32 + i * 16][kk], kTfALd);
#pragma unroll
        for (int e = 0; e < fa[i].num_elements; ++e)
          fa[i].x[e] = wmma::__float_to_tf32(fa[i].x[e]);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        wmma::load_matrix_sync(fb[j], &Bs[s][kk][wn * 32 + j * 16], kTfBLd);
#pragma unroll
        for (int e = 0; e < fb[j].num_elements; ++e)
          fb[j].x[e] = wmma::__float_to_tf32(fb[j].x[e]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads(); // stage s is refilled in the next iteration
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(
          C + (size_t)(row0 + wm * 32 + i * 16) * N + col0 + wn * 32 + j * 16,
          acc[i][j], N, wmma::mem_row_major);
}

// ---------------------------------------------------------------------------
// Decode attention for one query per (batch, head): out = softmax(q K^T /
// sqrt(D)) V in a single pass over K and V with an online softmax. A warp
// takes every kWarps-th key; its 32 lanes hold 4 of the 128 head dimensions
// each, so a key or value row is one coalesced 256-byte load per warp. The
// warps' partial (max, sum, accumulator) triples are merged in shared memory.
// Scores are kept in base 2 (q is prescaled by log2(e) / sqrt(D)).
template <int kHeadDim, int kWarps>
__global__ void __launch_bounds__(kWarps *kWarpSize)
    decode_attention(const __half *__restrict__ q, const __half *__restrict__ k,
                     const __half *__restrict__ v, __half *__restrict__ out,
                     int seq_len, float qscale_log2) {
  static_assert(kHeadDim == 4 * kWarpSize, "four dimensions per lane");
  static_assert(kWarps * kWarpSize == kHeadDim, "one thread per output");
  __shared__ float part_m[kWarps], part_l[kWarps];
  __shared__ __align__(16) float part_acc[kWarps][kHeadDim];
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const size_t bh = blockIdx.x;
  const uint2 qv =
      *reinterpret_cast<const uint2 *>(q + bh * kHeadDim + 4 * lane);
  const float2 q01 = __half22float2(reinterpret_cast<const __half2 *>(&qv)[0]);
  const float2 q23 = __half22float2(reinterpret_cast<const __half2 *>(&qv)[1]);
  const float qf[4] = {q01.x * qscale_log2, q01.y * qscale_log2,
                       q23.x * qscale_log2, q23.y * qscale_log2};
  const __half *kb = k + bh * seq_len * kHeadDim + 4 * lane;
  const __half *vb = v + bh * seq_len * kHeadDim + 4 * lane;
  float m = -INFINITY, l = 0.0f;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int j = warp; j < seq_len; j += kWarps) {
    const uint2 kr =
        *reinterpret_cast<const uint2 *>(kb + (size_t)j * kHeadDim);
    const uint2 vr =
        *reinterpret_cast<const uint2 *>(vb + (size_t)j * kHeadDim);
    const float2 k01 = __half22float2(reinterpret_cast<const __half2 *>(&kr)[0]);
    const float2 k23 = __half22float2(reinterpret_cast<const __half2 *>(&kr)[1]);
    float s = qf[0] * k01.x;
    s = fmaf(qf[1], k01.y, s);
    s = fmaf(qf[2], k23.x, s);
    s = fmaf(qf[3], k23.y, s);
    s = warp_sum(s);
    const float m_new = fmaxf(m, s);
    const float corr = exp2f(m - m_new);
    const float p = exp2f(s - m_new);
    l = fmaf(l, corr, p);
    const float2 v01 = __half22float2(reinterpret_cast<const __half2 *>(&vr)[0]);
    const float2 v23 = __half22float2(reinterpret_cast<const __half2 *>(&vr)[1]);
    acc[0] = fmaf(acc[0], corr, p * v01.x);
    acc[1] = fmaf(acc[1], corr, p * v01.y);
    acc[2] = fmaf(acc[2], corr, p * v23.x);
    acc[3] = fmaf(acc[3], corr, p * v23.y);
    m = m_new;
  }
  if (lane == 0) {
    part_m[warp] = m;
    part_l[warp] = l;
  }
  // One 16-byte store per lane: conflict-free, unlike four strided words.
  *reinterpret_cast<float4 *>(&part_acc[warp][4 * lane]) =
      make_float4(acc[0], acc[1], acc[2], acc[3]);
  __syncthreads();
  // seq_len >= kWarps, so every warp saw at least one key.
  float gm = part_m[0];
#pragma unroll
  for (int w = 1; w < kWarps; ++w)
    gm = fmaxf(gm, part_m[w]);
  float gl = 0.0f, o = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const float f = exp2f(part_m[w] - gm);
    gl = fmaf(part_l[w], f, gl);
    o = fmaf(part_acc[w][threadIdx.x], f, o);
  }
  out[bh * kHeadDim + threadIdx.x] = __float2half_rn(o / gl);
}

// ---------------------------------------------------------------------------
// Softmax over long half rows (a vocabulary), one block per row. Pass one
// keeps an online (max, sum) pair per thread, rescaling the sum once per
// 8-element vector; the pairs are merged across the block. Pass two writes
// exp(x - max) / sum. cols is a multiple of 8.
struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY)
    return {m, 0.0f};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    softmax_online_half(const uint4 *__restrict__ x, uint4 *__restrict__ y,
                        int cols8) {
  __shared__ MaxSum warp_part[kThreads / kWarpSize];
  __shared__ MaxSum row_stats;
  const uint4 *src = x + (size_t)blockIdx.x * cols8;
  uint4 *dst = y + (size_t)blockIdx.x * cols8;
  MaxSum acc = {-INFINITY, 0.0f};
  for (int c = threadIdx.x; c < cols8; c += kThreads) {
    const uint4 v = src[c];
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
    float2 f[4];
    float vmax = -INFINITY;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      f[k] = __half22float2(h[k]);
      vmax = fmaxf(vmax, fmaxf(f[k].x, f[k].y));
    }
    const float m = fmaxf(acc.m, vmax);
    float s = acc.s * __expf(acc.m - m);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      s += __expf(f[k].x - m) + __expf(f[k].y - m);
    acc = {m, s};
  }
#pragma unroll
  for (int off = kWarpSize / 2; off > 0; off >>= 1) {
    const MaxSum other = {__shfl_xor_sync(kFull, acc.m, off),
                          __shfl_xor_sync(kFull, acc.s, off)};
    acc = merge(acc, other);
  }
  const int lane = threadIdx.x % kWarpSize, wid = threadIdx.x / kWarpSize;
  if (lane == 0)
    warp_part[wid] = acc;
  __syncthreads();
  if (wid == 0) {
    acc = lane < kThreads / kWarpSize ? warp_part[lane]
                                      : MaxSum{-INFINITY, 0.0f};
#pragma unroll
    for (int off = kWarpSize / 2; off > 0; off >>= 1) {
      const MaxSum other = {__shfl_xor_sync(kFull, acc.m, off),
                            __shfl_xor_sync(kFull, acc.s, off)};
      acc = merge(acc, other);
    }
    if (lane == 0)
      row_stats = acc;
  }
  __syncthreads();
  const float m = row_stats.m, inv = 1.0f / row_stats.s;
  for (int c = threadIdx.x; c < cols8; c += kThreads) {
    uint4 v = src[c];
    __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = __half22float2(h[k]);
      h[k] = __floats2half2_rn(__expf(f.x - m) * inv, __expf(f.y - m) * inv);
    }
    dst[c] = v;
  }
}

// ---------------------------------------------------------------------------
// Mixed-precision AdamW step: fp32 master weights and moments, a bfloat16
// copy of the weights for the next forward pass. Four elements per thread
// (float4), grid-stride; n is a multiple of 4. The bias corrections are
// computed once on the host; the parameters stay in the kernel's parameter
// space (__grid_constant__: no per-thread copy).
struct AdamParams {
  float lr, beta1, beta2, one_minus_beta1, one_minus_beta2, eps, decay;
  float inv_bc1, inv_bc2; // 1 / (1 - beta^t)
};

__device__ __forceinline__ float adam_update(float &w, float g, float &m,
                                             float &v, const AdamParams &p) {
  m = fmaf(p.beta1, m, p.one_minus_beta1 * g);
  v = fmaf(p.beta2, v, p.one_minus_beta2 * g * g);
  const float step = (m * p.inv_bc1) / (sqrtf(v * p.inv_bc2) + p.eps);
  w -= p.lr * fmaf(p.decay, w, step);
  return w;
}

__global__ void adamw_bf16_copy(float4 *__restrict__ w,
                                const float4 *__restrict__ g,
                                float4 *__restrict__ m, float4 *__restrict__ v,
                                uint2 *__restrict__ w_bf16, size_t n4,
                                const __grid_constant__ AdamParams p) {
  const size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += stride) {
    float4 wv = w[i], mv = m[i], vv = v[i];
    const float4 gv = g[i];
    adam_update(wv.x, gv.x, mv.x, vv.x, p);
    adam_update(wv.y, gv.y, mv.y, vv.y, p);
    adam_update(wv.z, gv.z, mv.z, vv.z, p);
    adam_update(wv.w, gv.w, mv.w, vv.w, p);
    w[i] = wv;
    m[i] = mv;
    v[i] = vv;
    __nv_bfloat162 packed[2] = {__floats2bfloat162_rn(wv.x, wv.y),
                                __floats2bfloat162_rn(wv.z, wv.w)};
    w_bf16[i] = *reinterpret_cast<const uint2 *>(packed);
  }
}

// ---------------------------------------------------------------------------
void run_half_tensor(const __half *act, const __half *bias, __half *act_out,
                     int rows, int cols, const __nv_bfloat16 *hidden,
                     const __nv_bfloat16 *norm_w, __nv_bfloat16 *normed,
                     int tokens, __half *qk, const __half *rope_table,
                     const int *positions, int heads, const __half *hA,
                     const __half *hB, float *hC, int M, int N, int K,
                     const float *fA, const float *fB, float *fC,
                     const __half *q, const __half *kc, const __half *vc,
                     __half *attn_out, int batch_heads, int seq_len,
                     const __half *logits, __half *probs, int vocab_rows,
                     int vocab, float *w, const float *g, float *m1, float *m2,
                     __nv_bfloat16 *w16, size_t nparams, int step,
                     cudaStream_t s0, cudaStream_t s1) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  const int cols8 = cols / 8;
  const dim3 ggrid((cols8 + 127) / 128, (rows + kGeluRows - 1) / kGeluRows);
  bias_gelu_half<<<ggrid, 128, 0, s0>>>(
      reinterpret_cast<const uint4 *>(act),
      reinterpret_cast<const uint4 *>(bias), reinterpret_cast<uint4 *>(act_out),
      rows, cols8);

  // hidden size 4096 = 256 threads * 2 vectors * 8.
  rmsnorm_bf16<256, 2><<<tokens, 256, 0, s0>>>(
      reinterpret_cast<const uint4 *>(hidden),
      reinterpret_cast<const uint4 *>(norm_w), reinterpret_cast<uint4 *>(normed),
      1e-6f);

  constexpr int kHd = 128;
  const int per_token = heads * (kHd / 8);
  rope_half2<kHd><<<dim3(tokens, (per_token + 255) / 256), 256, 0, s0>>>(
      reinterpret_cast<uint4 *>(qk), reinterpret_cast<const uint4 *>(rope_table),
      positions, heads);

  cudaFuncSetAttribute(hgemm_wmma_pipelined,
                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                       (int)HgemmCfg::kSmemBytes);
  hgemm_wmma_pipelined<<<dim3(N / HgemmCfg::BN, M / HgemmCfg::BM),
                         HgemmCfg::kThreads, HgemmCfg::kSmemBytes, s1>>>(
      M, N, K, hA, hB, hC);
  sgemm_tf32_wmma<<<dim3(N / kTfBN, M / kTfBM), kTfThreads, 0, s1>>>(M, N, K, fA,
                                                                    fB, fC);

  const float qscale = 1.4426950409f / sqrtf((float)kHd);
  decode_attention<kHd, 4><<<batch_heads, 128, 0, s0>>>(q, kc, vc, attn_out,
                                                       seq_len, qscale);

  softmax_online_half<512><<<vocab_rows, 512, 0, s0>>>(
      reinterpret_cast<const uint4 *>(logits), reinterpret_cast<uint4 *>(probs),
      vocab / 8);

  AdamParams p;
  p.lr = 3e-4f;
  p.beta1 = 0.9f;
  p.beta2 = 0.999f;
  p.one_minus_beta1 = 1.0f - p.beta1;
  p.one_minus_beta2 = 1.0f - p.beta2;
  p.eps = 1e-8f;
  p.decay = 0.01f;
  p.inv_bc1 = 1.0f / (1.0f - std::pow(p.beta1, (float)step));
  p.inv_bc2 = 1.0f / (1.0f - std::pow(p.beta2, (float)step));
  const size_t n4 = nparams / 4;
  adamw_bf16_copy<<<8 * sms, 256, 0, s1>>>(
      reinterpret_cast<float4 *>(w), reinterpret_cast<const float4 *>(g),
      reinterpret_cast<float4 *>(m1), reinterpret_cast<float4 *>(m2),
      reinterpret_cast<uint2 *>(w16), n4, p);
  cudaStreamSynchronize(s0);
  cudaStreamSynchronize(s1);
}
