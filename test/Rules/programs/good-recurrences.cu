// Well-written recurrences: serial dependences that must stay in one thread
// or one block, written as the best kernels for them. No finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

// ---------------------------------------------------------------------------
// Additive lagged-Fibonacci generator x[k] = x[k - 607] + x[k - 273] (mod
// 2^32), one independent stream per block. The shorter lag (273) exceeds the
// block size, so the block computes 256 new values per step in parallel;
// the history lives in a 1024-word ring in shared memory and one barrier per
// step orders the steps.
constexpr int kLongLag = 607, kShortLag = 273;
constexpr int kLfgThreads = 256, kRing = 1024;

// Setup, launched once: the 607 seed words of every stream.
__global__ void lfg_seed(uint32_t *__restrict__ seeds, uint32_t seed,
                         int total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) {
    uint32_t h = seed ^ (0x9e3779b9u * (uint32_t)(i + 1));
    h = (h ^ (h >> 15)) * 0x2c1b3c6du;
    h = (h ^ (h >> 12)) * 0x297a2d39u;
    h ^= h >> 15;
    seeds[i] = h | (i % kLongLag == 0 ? 1u : 0u); // at least one odd seed
  }
}

__global__ void __launch_bounds__(kLfgThreads)
    lfg_generate(const uint32_t *__restrict__ seeds,
                 uint32_t *__restrict__ out, int len) {
  __shared__ uint32_t ring[kRing];
  const uint32_t *my_seeds = seeds + (size_t)blockIdx.x * kLongLag;
  uint32_t *my_out = out + (size_t)blockIdx.x * len;
  for (int j = threadIdx.x; j < kLongLag; j += kLfgThreads)
    ring[j] = my_seeds[j];
  for (int k0 = kLongLag; k0 < kLongLag + len; k0 += kLfgThreads) {
    __syncthreads();
    const int k = k0 + threadIdx.x;
    const uint32_t v =
        ring[(k - kLongLag) & (kRing - 1)] + ring[(k - kShortLag) & (kRing - 1)];
    ring[k & (kRing - 1)] = v;
    if (k - kLongLag < len)
      my_out[k - kLongLag] = v;
  }
}

// ---------------------------------------------------------------------------
// Parallel cyclic reduction: one tridiagonal system of N equations per block,
// one thread per equation, log2(N) reduction steps in shared memory.
template <int N>
__global__ void __launch_bounds__(N)
    pcr_tridiag(const float *__restrict__ a, const float *__restrict__ b,
                const float *__restrict__ c, const float *__restrict__ d,
                float *__restrict__ x) {
  __shared__ float sa[N], sb[N], sc[N], sd[N];
  const int i = threadIdx.x;
  const size_t off = (size_t)blockIdx.x * N;
  sa[i] = a[off + i];
  sb[i] = b[off + i];
  sc[i] = c[off + i];
  sd[i] = d[off + i];
  for (int s = 1; s < N; s <<= 1) {
    __syncthreads();
    const int lo = i - s, hi = i + s;
    float k1 = 0.0f, k2 = 0.0f;
    float a_lo = 0.0f, c_lo = 0.0f, d_lo = 0.0f;
    float a_hi = 0.0f, c_hi = 0.0f, d_hi = 0.0f;
    if (lo >= 0) {
      k1 = sa[i] / sb[lo];
      a_lo = sa[lo];
      c_lo = sc[lo];
      d_lo = sd[lo];
    }
    if (hi < N) {
      k2 = sc[i] / sb[hi];
      a_hi = sa[hi];
      c_hi = sc[hi];
      d_hi = sd[hi];
    }
    const float na = -a_lo * k1;
    const float nb = sb[i] - c_lo * k1 - a_hi * k2;
    const float nc = -c_hi * k2;
    const float nd = sd[i] - d_lo * k1 - d_hi * k2;
    __syncthreads();
    sa[i] = na;
    sb[i] = nb;
    sc[i] = nc;
    sd[i] = nd;
  }
  __syncthreads();
  x[off + i] = sd[i] / sb[i];
}

// ---------------------------------------------------------------------------
// Many independent tridiagonal systems, one thread each (Thomas algorithm),
// in double precision. The coefficients are interleaved (equation-major,
// system index fastest), so a warp reads 32 consecutive doubles per step.
__global__ void thomas_batched(int nsys, int neq,
                               const double *__restrict__ a,
                               const double *__restrict__ b,
                               const double *__restrict__ c,
                               const double *__restrict__ d,
                               double *__restrict__ cp,
                               double *__restrict__ dp,
                               double *__restrict__ x) {
  const int sys = blockIdx.x * blockDim.x + threadIdx.x;
  if (sys >= nsys)
    return;
  double m = 1.0 / b[sys];
  double cprev = c[sys] * m;
  double dprev = d[sys] * m;
  cp[sys] = cprev;
  dp[sys] = dprev;
  for (int k = 1; k < neq; ++k) {
    const size_t e = (size_t)k * nsys + sys;
    const double ak = a[e];
    m = 1.0 / (b[e] - ak * cprev);
    cprev = c[e] * m;
    dprev = (d[e] - ak * dprev) * m;
    cp[e] = cprev;
    dp[e] = dprev;
  }
  double xnext = dprev;
  x[(size_t)(neq - 1) * nsys + sys] = xnext;
  for (int k = neq - 2; k >= 0; --k) {
    const size_t e = (size_t)k * nsys + sys;
    xnext = dp[e] - cp[e] * xnext;
    x[e] = xnext;
  }
}

// ---------------------------------------------------------------------------
// Inclusive prefix sum of every row of a matrix, one block per row: the row
// is walked in block-sized chunks (coalesced), each chunk scanned with warp
// shuffles and a scan of the warp totals, and the running total carried
// from chunk to chunk in shared memory.
constexpr int kRowScanThreads = 256, kRowScanWarps = kRowScanThreads / 32;
__global__ void __launch_bounds__(kRowScanThreads)
    row_inclusive_scan(const float *__restrict__ in, float *__restrict__ out,
                       int cols) {
  __shared__ float warp_tot[kRowScanWarps];
  const float *row_in = in + (size_t)blockIdx.x * cols;
  float *row_out = out + (size_t)blockIdx.x * cols;
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  float carry = 0.0f; // the row's sum so far, the same in every thread
  for (int base = 0; base < cols; base += kRowScanThreads) {
    const int c = base + threadIdx.x;
    float v = c < cols ? row_in[c] : 0.0f;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const float up = __shfl_up_sync(0xffffffffu, v, off);
      if (lane >= off)
        v += up;
    }
    if (lane == 31)
      warp_tot[wid] = v;
    __syncthreads();
    if (wid == 0) {
      float t = lane < kRowScanWarps ? warp_tot[lane] : 0.0f;
#pragma unroll
      for (int off = 1; off < kRowScanWarps; off <<= 1) {
        const float up = __shfl_up_sync(0xffffffffu, t, off);
        if (lane >= off)
          t += up;
      }
      if (lane < kRowScanWarps)
        warp_tot[lane] = t; // inclusive scan of the warp totals
    }
    __syncthreads();
    const float prefix = carry + (wid > 0 ? warp_tot[wid - 1] : 0.0f);
    if (c < cols)
      row_out[c] = v + prefix;
    carry += warp_tot[kRowScanWarps - 1];
    __syncthreads(); // warp_tot is rewritten by the next chunk
  }
}

// ---------------------------------------------------------------------------
// First-order IIR filter y[t] = a * y[t-1] + b * x[t] on many channels, one
// thread per channel; samples are time-major, so each step is one coalesced
// row.
__global__ void iir_first_order(const float *__restrict__ x,
                                float *__restrict__ y,
                                const float *__restrict__ state_in,
                                float *__restrict__ state_out, int channels,
                                int steps, float a, float b) {
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= channels)
    return;
  float acc = state_in[ch];
  for (int t = 0; t < steps; ++t) {
    const size_t e = (size_t)t * channels + ch;
    acc = fmaf(a, acc, b * x[e]);
    y[e] = acc;
  }
  state_out[ch] = acc;
}

// ---------------------------------------------------------------------------
void run_recurrences(uint32_t *seeds, uint32_t *streams, int nstreams,
                     int len, const float *a, const float *b, const float *c,
                     const float *d, float *x, int nsystems,
                     const double *da, const double *db, const double *dc,
                     const double *dd, double *cp, double *dp, double *dx,
                     int nsys, int neq, const float *m, float *scanned,
                     int rows, int cols, const float *sig, float *filt,
                     float *state0, float *state1, int channels, int blocks_t,
                     int chunk) {
  const int total = nstreams * kLongLag;
  lfg_seed<<<(total + 255) / 256, 256>>>(seeds, 2024u, total);
  lfg_generate<<<nstreams, kLfgThreads>>>(seeds, streams, len);

  pcr_tridiag<512><<<nsystems, 512>>>(a, b, c, d, x);

  thomas_batched<<<(nsys + 127) / 128, 128>>>(nsys, neq, da, db, dc, dd, cp,
                                              dp, dx);

  row_inclusive_scan<<<rows, kRowScanThreads>>>(m, scanned, cols);

  // The signal arrives in blocks of `chunk` samples; the filter state is
  // carried between launches (ping-pong), with no synchronisation per block.
  for (int t = 0; t < blocks_t; ++t) {
    const size_t off = (size_t)t * chunk * channels;
    iir_first_order<<<(channels + 255) / 256, 256>>>(
        sig + off, filt + off, state0, state1, channels, chunk, 0.95f, 0.05f);
    float *tmp = state0;
    state0 = state1;
    state1 = tmp;
  }
  cudaDeviceSynchronize();
}
