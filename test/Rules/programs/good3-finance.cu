// Option pricing and market-data kernels: Black-Scholes with 16-byte loads,
// American puts on a binomial tree (one block per option, the tree's layers
// double-buffered in shared memory), a Monte Carlo Asian call with an
// in-register xorshift generator and a two-pass reduction of the payoffs,
// Newton implied volatilities, and per-asset moments of log returns: no
// finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    v += __shfl_xor_sync(kFullMask, v, off);
  return v;
}

// ---------------------------------------------------------------------------
// European call and put (Black-Scholes), rate r and volatility v shared by
// the batch. Prices, strikes and maturities come as float4 (the batch is a
// multiple of 4 options); every thread prices four options per trip of a
// grid-stride loop; the put comes from put-call parity.
__device__ __forceinline__ void bs_price(float S, float X, float T, float r,
                                         float v, float &call, float &put) {
  const float sqrtT = sqrtf(T);
  const float inv_vs = 1.0f / (v * sqrtT);
  const float d1 = (logf(S / X) + fmaf(0.5f * v, v, r) * T) * inv_vs;
  const float d2 = fmaf(-v, sqrtT, d1);
  const float xdisc = X * expf(-r * T);
  call = S * normcdff(d1) - xdisc * normcdff(d2);
  put = call - S + xdisc;
}

__global__ void black_scholes(const float4 *__restrict__ spot,
                              const float4 *__restrict__ strike,
                              const float4 *__restrict__ years, float r,
                              float v, float4 *__restrict__ call,
                              float4 *__restrict__ put, int n4) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 S = spot[i], X = strike[i], T = years[i];
    float4 c, p;
    bs_price(S.x, X.x, T.x, r, v, c.x, p.x);
    bs_price(S.y, X.y, T.y, r, v, c.y, p.y);
    bs_price(S.z, X.z, T.z, r, v, c.z, p.z);
    bs_price(S.w, X.w, T.w, r, v, c.w, p.w);
    call[i] = c;
    put[i] = p;
  }
}

// ---------------------------------------------------------------------------
// American put on a Cox-Ross-Rubinstein tree of kTreeSteps steps, one block
// per option. The kTreeSteps + 1 values of a layer live in shared memory
// (two buffers, one barrier per step); thread t owns nodes t, t + 256, ...
// (consecutive words across a warp) and keeps their spot prices in
// registers: going one layer back multiplies each by u.
constexpr int kTreeThreads = 256, kTreeSteps = 1023;
constexpr int kNodesPerThread = (kTreeSteps + 1) / kTreeThreads;

__global__ void __launch_bounds__(kTreeThreads)
    binomial_american_put(const float *__restrict__ spot,
                          const float *__restrict__ strike,
                          const float *__restrict__ years,
                          const float *__restrict__ vol, float r,
                          float *__restrict__ price) {
  __shared__ float layer[2][kTreeSteps + 1];
  const int opt = blockIdx.x;
  const float S0 = spot[opt], K = strike[opt];
  const float dt = years[opt] * (1.0f / kTreeSteps);
  const float logu = vol[opt] * sqrtf(dt);
  const float u = expf(logu);
  const float growth = expf(r * dt);
  const float pu = (growth - expf(-logu)) / (u - expf(-logu));
  const float disc = 1.0f / growth;
  const float w_up = disc * pu, w_down = disc - w_up;

  float s[kNodesPerThread];
#pragma unroll
  for (int k = 0; k < kNodesPerThread; ++k) {
    const int i = threadIdx.x + k * kTreeThreads;
    s[k] = S0 * expf((float)(2 * i - kTreeSteps) * logu);
    layer[0][i] = fmaxf(K - s[k], 0.0f);
  }
  __syncthreads();
  int cur = 0;
  for (int step = kTreeSteps - 1; step >= 0; --step) {
#pragma unroll
    for (int k = 0; k < kNodesPerThread; ++k) {
      const int i = threadIdx.x + k * kTreeThreads;
      s[k] *= u;
      if (i <= step) {
        const float hold =
            fmaf(w_up, layer[cur][i + 1], w_down * layer[cur][i]);
        layer[cur ^ 1][i] = fmaxf(hold, K - s[k]);
      }
    }
    cur ^= 1;
    __syncthreads();
  }
  if (threadIdx.x == 0)
    price[opt] = layer[cur][0];
}

// ---------------------------------------------------------------------------
// Arithmetic-average Asian call by Monte Carlo. Every thread runs its own
// xorshift128+ stream (seeded through splitmix64 from its global index) and
// simulates paths of kMcSteps geometric Brownian steps, two normals per
// Box-Muller pair. Each block writes the sum and sum of squares of its
// discounted payoffs; one block folds the partials.
constexpr int kMcSteps = 252, kMcThreads = 256;

__device__ __forceinline__ uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Xorshift128p {
  uint64_t a, b;
  __device__ uint64_t next() {
    uint64_t t = a;
    const uint64_t s = b;
    a = s;
    t ^= t << 23;
    t ^= t >> 17;
    t ^= s ^ (s >> 26);
    b = t;
    return t + s;
  }
};

__global__ void __launch_bounds__(kMcThreads)
    mc_asian_call(uint64_t seed, int npaths, float S0, float K, float r,
                  float sigma, float years, float2 *__restrict__ partials) {
  __shared__ float2 warp_part[kMcThreads / kWarp];
  const int gid = blockIdx.x * kMcThreads + threadIdx.x;
  uint64_t sm = seed ^ ((uint64_t)gid << 32);
  Xorshift128p rng{splitmix64(sm), splitmix64(sm)};
  const float dt = years * (1.0f / kMcSteps);
  const float drift = (r - 0.5f * sigma * sigma) * dt;
  const float vol = sigma * sqrtf(dt);
  const float disc = expf(-r * years);
  float sum = 0.0f, sum2 = 0.0f;
  for (int p = gid; p < npaths; p += gridDim.x * kMcThreads) {
    float S = S0, avg = 0.0f;
    for (int t = 0; t < kMcSteps; t += 2) {
      const uint64_t bits = rng.next();
      const float u1 = (float)((bits >> 40) + 1u) * 0x1p-24f; // (0, 1]
      const float u2 = (float)((bits >> 16) & 0xffffffu) * 0x1p-24f;
      const float rad = sqrtf(-2.0f * logf(u1));
      float sn, cs;
      sincospif(2.0f * u2, &sn, &cs);
      S *= expf(fmaf(vol, rad * cs, drift));
      avg += S;
      S *= expf(fmaf(vol, rad * sn, drift));
      avg += S;
    }
    const float payoff = disc * fmaxf(avg * (1.0f / kMcSteps) - K, 0.0f);
    sum += payoff;
    sum2 = fmaf(payoff, payoff, sum2);
  }
  sum = warp_sum(sum);
  sum2 = warp_sum(sum2);
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0)
    warp_part[wid] = make_float2(sum, sum2);
  __syncthreads();
  if (wid == 0) {
    const float2 w = lane < kMcThreads / kWarp ? warp_part[lane]
                                                : make_float2(0.0f, 0.0f);
    sum = warp_sum(w.x);
    sum2 = warp_sum(w.y);
    if (lane == 0)
      partials[blockIdx.x] = make_float2(sum, sum2);
  }
}

// Second pass: price and standard error, in double to keep the few hundred
// partials' sums exact enough.
__global__ void mc_finalize(const float2 *__restrict__ partials, int nparts,
                            int npaths, double *__restrict__ result) {
  __shared__ double warp_s[kWarp], warp_s2[kWarp];
  double s = 0.0, s2 = 0.0;
  for (int b = threadIdx.x; b < nparts; b += blockDim.x) {
    const float2 p = partials[b];
    s += p.x;
    s2 += p.y;
  }
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1) {
    s += __shfl_xor_sync(kFullMask, s, off);
    s2 += __shfl_xor_sync(kFullMask, s2, off);
  }
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0) {
    warp_s[wid] = s;
    warp_s2[wid] = s2;
  }
  __syncthreads();
  if (wid == 0) {
    const int nw = blockDim.x / kWarp;
    s = lane < nw ? warp_s[lane] : 0.0;
    s2 = lane < nw ? warp_s2[lane] : 0.0;
#pragma unroll
    for (int off = kWarp / 2; off > 0; off >>= 1) {
      s += __shfl_xor_sync(kFullMask, s, off);
      s2 += __shfl_xor_sync(kFullMask, s2, off);
    }
    if (lane == 0) {
      const double mean = s / npaths;
      const double var = fmax(s2 / npaths - mean * mean, 0.0);
      result[0] = mean;
      result[1] = sqrt(var / npaths);
    }
  }
}

// ---------------------------------------------------------------------------
// Implied volatility of European calls by safeguarded Newton iterations
// (vega from the normal density), one option per thread, starting from the
// Brenner-Subrahmanyam guess. Options without a solution get NaN.
constexpr int kNewtonIters = 16;

__global__ void implied_vol(const float *__restrict__ price,
                            const float *__restrict__ spot,
                            const float *__restrict__ strike,
                            const float *__restrict__ years, float r,
                            float *__restrict__ vol, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float C = price[i], S = spot[i], X = strike[i], T = years[i];
  const float sqrtT = sqrtf(T);
  const float xdisc = X * expf(-r * T);
  const float log_sx = logf(S / X);
  const float inv_sqrt_2pi = 0.3989422804f;
  float v = fmaxf(2.5066283f * C / (S * sqrtT), 0.01f);
  float result = nanf("");
  for (int it = 0; it < kNewtonIters; ++it) {
    const float vs = v * sqrtT;
    const float d1 = fmaf(0.5f * v, v * T, fmaf(r, T, log_sx)) / vs;
    const float d2 = d1 - vs;
    const float diff = S * normcdff(d1) - xdisc * normcdff(d2) - C;
    const float vega = S * sqrtT * inv_sqrt_2pi * expf(-0.5f * d1 * d1);
    if (fabsf(diff) < 1e-5f * C) {
      result = v;
      break;
    }
    if (vega < 1e-8f)
      break;
    v = fminf(fmaxf(v - diff / vega, 1e-4f), 5.0f);
  }
  vol[i] = result;
}

// ---------------------------------------------------------------------------
// Sum and sum of squares of the daily log returns of every asset, prices
// stored day-major (prices[d * nassets + a]). A 32x8 block covers 32 assets
// (a warp reads 32 consecutive prices of one day); its 8 rows of threads
// and the grid's y dimension split the days into contiguous runs, so that
// each price is loaded once and its logarithm taken once (the previous
// day's stays in a register); the
// rows' partial sums are combined in shared memory and added once per block
// and asset.
constexpr int kRetRows = 8;

__global__ void log_return_moments(const float *__restrict__ prices,
                                   int ndays, int nassets,
                                   float *__restrict__ sum,
                                   float *__restrict__ sumsq) {
  __shared__ float ps[kRetRows][kWarp + 1], ps2[kRetRows][kWarp + 1];
  const int a = blockIdx.x * kWarp + threadIdx.x;
  const int nruns = kRetRows * gridDim.y;
  const int run = blockIdx.y * kRetRows + threadIdx.y;
  const int per_run = (ndays - 1 + nruns - 1) / nruns;
  const int d0 = run * per_run, d1 = min(d0 + per_run, ndays - 1);
  float s = 0.0f, s2 = 0.0f;
  if (a < nassets && d0 < d1) {
    const float *col = prices + a;
    float log_prev = logf(col[(size_t)d0 * nassets]);
    for (int d = d0 + 1; d <= d1; ++d) {
      const float log_cur = logf(col[(size_t)d * nassets]);
      const float ret = log_cur - log_prev;
      s += ret;
      s2 = fmaf(ret, ret, s2);
      log_prev = log_cur;
    }
  }
  ps[threadIdx.y][threadIdx.x] = s;
  ps2[threadIdx.y][threadIdx.x] = s2;
  __syncthreads();
  if (threadIdx.y == 0 && a < nassets) {
#pragma unroll
    for (int k = 1; k < kRetRows; ++k) {
      s += ps[k][threadIdx.x];
      s2 += ps2[k][threadIdx.x];
    }
    atomicAdd(&sum[a], s);
    atomicAdd(&sumsq[a], s2);
  }
}

// ---------------------------------------------------------------------------
int run_finance(cudaStream_t st) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  // 16M European options.
  const int nopt = 1 << 24, n4 = nopt / 4;
  float4 *spot4, *strike4, *years4, *call4, *put4;
  cudaMalloc(&spot4, n4 * sizeof(float4));
  cudaMalloc(&strike4, n4 * sizeof(float4));
  cudaMalloc(&years4, n4 * sizeof(float4));
  cudaMalloc(&call4, n4 * sizeof(float4));
  cudaMalloc(&put4, n4 * sizeof(float4));
  black_scholes<<<8 * sms, 256, 0, st>>>(spot4, strike4, years4, 0.02f, 0.3f,
                                         call4, put4, n4);

  // Implied volatilities of the calls just priced.
  float *vols;
  cudaMalloc(&vols, nopt * sizeof(float));
  implied_vol<<<(nopt + 255) / 256, 256, 0, st>>>(
      reinterpret_cast<const float *>(call4),
      reinterpret_cast<const float *>(spot4),
      reinterpret_cast<const float *>(strike4),
      reinterpret_cast<const float *>(years4), 0.02f, vols, nopt);

  // 8192 American puts.
  const int namer = 8192;
  float *a_spot, *a_strike, *a_years, *a_vol, *a_price;
  cudaMalloc(&a_spot, namer * sizeof(float));
  cudaMalloc(&a_strike, namer * sizeof(float));
  cudaMalloc(&a_years, namer * sizeof(float));
  cudaMalloc(&a_vol, namer * sizeof(float));
  cudaMalloc(&a_price, namer * sizeof(float));
  binomial_american_put<<<namer, kTreeThreads, 0, st>>>(
      a_spot, a_strike, a_years, a_vol, 0.02f, a_price);

  // 16M Asian paths.
  const int npaths = 1 << 24;
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mc_asian_call,
                                                kMcThreads, 0);
  const int mc_blocks = sms * per_sm;
  float2 *partials;
  double *mc_result;
  cudaMalloc(&partials, mc_blocks * sizeof(float2));
  cudaMalloc(&mc_result, 2 * sizeof(double));
  mc_asian_call<<<mc_blocks, kMcThreads, 0, st>>>(
      0x5eedf00dull, npaths, 100.0f, 100.0f, 0.02f, 0.3f, 1.0f, partials);
  mc_finalize<<<1, 512, 0, st>>>(partials, mc_blocks, npaths, mc_result);

  // Ten years of daily prices for 4096 assets.
  const int ndays = 2520, nassets = 4096;
  float *prices, *rsum, *rsumsq;
  cudaMalloc(&prices, (size_t)ndays * nassets * sizeof(float));
  cudaMalloc(&rsum, nassets * sizeof(float));
  cudaMalloc(&rsumsq, nassets * sizeof(float));
  cudaMemsetAsync(rsum, 0, nassets * sizeof(float), st);
  cudaMemsetAsync(rsumsq, 0, nassets * sizeof(float), st);
  const int col_blocks = nassets / kWarp;
  const int split = (4 * sms + col_blocks - 1) / col_blocks;
  log_return_moments<<<dim3(col_blocks, split), dim3(kWarp, kRetRows), 0, st>>>(
      prices, ndays, nassets, rsum, rsumsq);
  cudaStreamSynchronize(st);

  cudaFree(spot4);
  cudaFree(strike4);
  cudaFree(years4);
  cudaFree(call4);
  cudaFree(put4);
  cudaFree(vols);
  cudaFree(a_spot);
  cudaFree(a_strike);
  cudaFree(a_years);
  cudaFree(a_vol);
  cudaFree(a_price);
  cudaFree(partials);
  cudaFree(mc_result);
  cudaFree(prices);
  cudaFree(rsum);
  cudaFree(rsumsq);
  return 0;
}
