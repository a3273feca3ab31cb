// Well-written stencils, n-body, Monte Carlo and option pricing: no finding
// at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

// ---------------------------------------------------------------------------
// 1-D convolution of radius R with weights in constant memory; the block's
// span (ITEMS outputs per thread, striped) plus a halo of R on each side is
// staged in shared memory. Points outside the array count as zero.
constexpr int kMaxRadius = 8;
__constant__ float c_weights[2 * kMaxRadius + 1];

template <int BLOCK, int ITEMS, int R>
__global__ void stencil1d(const float *__restrict__ in,
                          float *__restrict__ out, int n) {
  constexpr int SPAN = BLOCK * ITEMS;
  __shared__ float s[SPAN + 2 * R];
  const int base = blockIdx.x * SPAN;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int gi = base + k * BLOCK + threadIdx.x;
    s[R + k * BLOCK + threadIdx.x] = gi < n ? in[gi] : 0.0f;
  }
  if (threadIdx.x < R) {
    const int left = base - R + threadIdx.x, right = base + SPAN + threadIdx.x;
    s[threadIdx.x] = left >= 0 ? in[left] : 0.0f;
    s[R + SPAN + threadIdx.x] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int li = k * BLOCK + threadIdx.x;
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t <= 2 * R; ++t)
      acc = fmaf(c_weights[t], s[li + t], acc);
    if (base + li < n)
      out[base + li] = acc;
  }
}

// ---------------------------------------------------------------------------
// Explicit heat equation step, 5-point Laplacian. A 32x8 block updates a
// 32x32 tile, four rows per thread (four loads in flight), staged with its
// halo in shared memory. Boundary points keep their value.
constexpr int kBX = 32, kBY = 8, kTileRows = 4 * kBY;
__global__ void heat2d_step(const float *__restrict__ u,
                            float *__restrict__ u_next, int nx, int ny,
                            float alpha) {
  __shared__ float s[kTileRows + 2][kBX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBX + tx;
  const int y0 = blockIdx.y * kTileRows;
  if (x < nx) {
#pragma unroll
    for (int q = 0; q < kTileRows / kBY; ++q) {
      const int r = ty + q * kBY, y = y0 + r;
      if (y < ny) {
        const int idx = y * nx + x;
        s[r + 1][tx + 1] = u[idx];
        if (tx == 0 && x > 0)
          s[r + 1][0] = u[idx - 1];
        if (tx == kBX - 1 && x + 1 < nx)
          s[r + 1][kBX + 1] = u[idx + 1];
      }
    }
    if (ty == 0 && y0 > 0)
      s[0][tx + 1] = u[(y0 - 1) * nx + x];
    if (ty == kBY - 1 && y0 + kTileRows < ny)
      s[kTileRows + 1][tx + 1] = u[(y0 + kTileRows) * nx + x];
  }
  __syncthreads();
  if (x >= nx)
    return;
#pragma unroll
  for (int q = 0; q < kTileRows / kBY; ++q) {
    const int r = ty + q * kBY + 1, y = y0 + r - 1;
    if (y >= ny)
      break;
    const float c = s[r][tx + 1];
    const bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    const float lap =
        s[r][tx] + s[r][tx + 2] + s[r - 1][tx + 1] + s[r + 1][tx + 1] - 4.0f * c;
    u_next[y * nx + x] = edge ? c : fmaf(alpha, lap, c);
  }
}

// ---------------------------------------------------------------------------
// 7-point 3-D stencil marching in z: each thread keeps the points below and
// above its column in registers, the current plane sits in shared memory
// with its x/y halo. Interior points only; the caller keeps the boundary.
__global__ void laplace3d_march(const float *__restrict__ in,
                                float *__restrict__ out, int nx, int ny,
                                int nz, float c0, float c1) {
  __shared__ float plane[kBY + 2][kBX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kBX + tx, y = blockIdx.y * kBY + ty;
  const bool inside = x < nx && y < ny;
  const size_t stride_z = (size_t)nx * ny;
  const size_t col = (size_t)y * nx + x;
  float below = 0.0f, cur = 0.0f, above = 0.0f;
  if (inside) {
    cur = in[col];
    above = in[stride_z + col];
  }
  for (int z = 1; z < nz - 1; ++z) {
    below = cur;
    cur = above;
    if (inside)
      above = in[(size_t)(z + 1) * stride_z + col];
    const size_t idx = (size_t)z * stride_z + col;
    __syncthreads();
    if (inside) {
      plane[ty + 1][tx + 1] = cur;
      if (tx == 0 && x > 0)
        plane[ty + 1][0] = in[idx - 1];
      if (tx == kBX - 1 && x + 1 < nx)
        plane[ty + 1][kBX + 1] = in[idx + 1];
      if (ty == 0 && y > 0)
        plane[0][tx + 1] = in[idx - nx];
      if (ty == kBY - 1 && y + 1 < ny)
        plane[kBY + 1][tx + 1] = in[idx + nx];
    }
    __syncthreads();
    if (inside && x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
      const float nb = plane[ty + 1][tx] + plane[ty + 1][tx + 2] +
                       plane[ty][tx + 1] + plane[ty + 2][tx + 1] + below +
                       above;
      out[idx] = fmaf(c1, nb, c0 * cur);
    }
  }
}

// ---------------------------------------------------------------------------
// All-pairs n-body accelerations: positions (xyz, mass in w) staged through
// shared memory one block-sized tile at a time; rsqrtf for 1/r.
constexpr int kBodyThreads = 256;
__global__ void nbody_accel(const float4 *__restrict__ pos,
                            float3 *__restrict__ accel, int n, float eps2) {
  __shared__ float4 tile[kBodyThreads];
  const int i = blockIdx.x * kBodyThreads + threadIdx.x;
  const float4 pi = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += kBodyThreads) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kBodyThreads; ++k) {
      const float4 pj = tile[k];
      const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
      const float d2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
      const float inv = rsqrtf(d2);
      const float s = pj.w * inv * inv * inv;
      ax = fmaf(dx, s, ax);
      ay = fmaf(dy, s, ay);
      az = fmaf(dz, s, az);
    }
    __syncthreads();
  }
  if (i < n)
    accel[i] = make_float3(ax, ay, az);
}

// Semi-implicit Euler update of velocities and positions.
__global__ void nbody_integrate(float4 *__restrict__ pos,
                                float4 *__restrict__ vel,
                                const float3 *__restrict__ accel, int n,
                                float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float3 a = accel[i];
  float4 v = vel[i];
  float4 p = pos[i];
  v.x = fmaf(a.x, dt, v.x);
  v.y = fmaf(a.y, dt, v.y);
  v.z = fmaf(a.z, dt, v.z);
  p.x = fmaf(v.x, dt, p.x);
  p.y = fmaf(v.y, dt, p.y);
  p.z = fmaf(v.z, dt, p.z);
  vel[i] = v;
  pos[i] = p;
}

// ---------------------------------------------------------------------------
// Monte-Carlo estimate of pi. Every thread owns a xorshift32 state, kept in
// a register for the whole run and written back for the next launch.
__device__ __forceinline__ uint32_t xorshift32(uint32_t &s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

__device__ __forceinline__ float to_unit(uint32_t r) {
  return (float)(r >> 8) * (1.0f / 16777216.0f);
}

// Setup, launched once: a distinct non-zero state per thread.
__global__ void seed_states(uint32_t *__restrict__ states, uint32_t seed,
                            int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint32_t h = seed + 0x9e3779b9u * (uint32_t)(i + 1);
    h = (h ^ (h >> 16)) * 0x85ebca6bu;
    h = (h ^ (h >> 13)) * 0xc2b2ae35u;
    h ^= h >> 16;
    states[i] = h != 0u ? h : 0x6d2b79f5u;
  }
}

__global__ void mc_pi(uint32_t *__restrict__ states, int samples,
                      unsigned long long *__restrict__ hits) {
  __shared__ unsigned warp_hits[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t s = states[i];
  unsigned inside = 0;
  for (int k = 0; k < samples; ++k) {
    const float x = to_unit(xorshift32(s));
    const float y = to_unit(xorshift32(s));
    inside += fmaf(x, x, y * y) <= 1.0f;
  }
  states[i] = s;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    inside += __shfl_xor_sync(0xffffffffu, inside, off);
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  if (lane == 0)
    warp_hits[wid] = inside;
  __syncthreads();
  if (wid == 0) {
    unsigned v = lane < blockDim.x / 32 ? warp_hits[lane] : 0u;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0)
      atomicAdd(hits, (unsigned long long)v);
  }
}

// ---------------------------------------------------------------------------
// Black-Scholes European call and put prices, all in single precision;
// four options per thread (striped), their loads issued together.
constexpr int kOptItems = 4;
__device__ __forceinline__ void bs_price(float S, float K, float T, float rate,
                                         float vol, float &call, float &put) {
  const float sqrtT = sqrtf(T);
  const float d1 = (logf(S / K) + (rate + 0.5f * vol * vol) * T) /
                   (vol * sqrtT);
  const float d2 = d1 - vol * sqrtT;
  const float disc = K * expf(-rate * T);
  const float nd1 = normcdff(d1), nd2 = normcdff(d2);
  call = S * nd1 - disc * nd2;
  put = disc * (1.0f - nd2) - S * (1.0f - nd1);
}

__global__ void black_scholes(const float *__restrict__ spot,
                              const float *__restrict__ strike,
                              const float *__restrict__ expiry,
                              float *__restrict__ call,
                              float *__restrict__ put, float rate, float vol,
                              int n) {
  const int base = blockIdx.x * blockDim.x * kOptItems + threadIdx.x;
  float S[kOptItems], K[kOptItems], T[kOptItems];
#pragma unroll
  for (int k = 0; k < kOptItems; ++k) {
    const int i = base + k * blockDim.x;
    const bool ok = i < n;
    S[k] = ok ? spot[i] : 1.0f;
    K[k] = ok ? strike[i] : 1.0f;
    T[k] = ok ? expiry[i] : 1.0f;
  }
#pragma unroll
  for (int k = 0; k < kOptItems; ++k) {
    const int i = base + k * blockDim.x;
    if (i < n)
      bs_price(S[k], K[k], T[k], rate, vol, call[i], put[i]);
  }
}

// FIR filter whose tap count is known only at run time (up to kMaxTaps): the
// taps and the block's input span are staged in shared memory (dynamic size).
constexpr int kMaxTaps = 128, kFirThreads = 256;
__global__ void fir_filter(const float *__restrict__ x,
                           const float *__restrict__ taps, int ntaps,
                           float *__restrict__ y, int n) {
  extern __shared__ float fir_smem[];
  float *s_taps = fir_smem;            // ntaps
  float *s_x = fir_smem + kMaxTaps;    // kFirThreads + ntaps - 1
  const int base = blockIdx.x * kFirThreads;
  for (int k = threadIdx.x; k < ntaps; k += kFirThreads)
    s_taps[k] = taps[k];
  for (int j = threadIdx.x; j < kFirThreads + ntaps - 1; j += kFirThreads) {
    const int g = base + j - (ntaps - 1);
    s_x[j] = g >= 0 && g < n ? x[g] : 0.0f;
  }
  __syncthreads();
  const int i = base + threadIdx.x;
  if (i >= n)
    return;
  const float *window = s_x + threadIdx.x + ntaps - 1;
  float acc = 0.0f;
#pragma unroll 4
  for (int k = 0; k < ntaps; ++k)
    acc = fmaf(s_taps[k], window[-k], acc);
  y[i] = acc;
}

// 2-D convolution with a (2R+1)^2 filter in constant memory; the block's
// 32x8 outputs and their halo are loaded into shared memory by a loop over
// the tile (it is larger than the block).
constexpr int kConvR = 2, kConvW = 2 * kConvR + 1;
__constant__ float c_filter2d[kConvW * kConvW];
template <int BX, int BY, int R>
__global__ void conv2d_smem(const float *__restrict__ in,
                            float *__restrict__ out, int width, int height) {
  constexpr int TW = BX + 2 * R, TH = BY + 2 * R;
  __shared__ float tile[TH][TW + 1];
  const int x0 = blockIdx.x * BX - R, y0 = blockIdx.y * BY - R;
  for (int t = threadIdx.y * BX + threadIdx.x; t < TW * TH; t += BX * BY) {
    const int ty = t / TW, tx = t % TW;
    const int gx = min(max(x0 + tx, 0), width - 1);
    const int gy = min(max(y0 + ty, 0), height - 1);
    tile[ty][tx] = in[gy * width + gx];
  }
  __syncthreads();
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y = blockIdx.y * BY + threadIdx.y;
  if (x >= width || y >= height)
    return;
  float acc = 0.0f;
#pragma unroll
  for (int dy = 0; dy < 2 * R + 1; ++dy)
#pragma unroll
    for (int dx = 0; dx < 2 * R + 1; ++dx)
      acc = fmaf(c_filter2d[dy * (2 * R + 1) + dx],
                 tile[threadIdx.y + dy][threadIdx.x + dx], acc);
  out[y * width + x] = acc;
}

// ---------------------------------------------------------------------------
void run_stencil_sim(int n, const float *weights, const float *sig,
                     float *filtered, float *u0, float *u1, int nx, int ny,
                     int nz, int steps, float *v0, float *v1, float4 *pos,
                     float4 *vel, float3 *accel, int nbodies, float dt,
                     uint32_t *states, unsigned long long *hits,
                     const float *S, const float *K, const float *T,
                     float *call, float *put) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  cudaMemcpyToSymbol(c_weights, weights, (2 * 4 + 1) * sizeof(float));
  stencil1d<256, 4, 4><<<(n + 1023) / 1024, 256>>>(sig, filtered, n);

  const dim3 block(kBX, kBY);
  const dim3 heat_grid((nx + kBX - 1) / kBX, (ny + kTileRows - 1) / kTileRows);
  for (int t = 0; t < steps; ++t) {
    heat2d_step<<<heat_grid, block>>>(u0, u1, nx, ny, 0.2f);
    float *tmp = u0;
    u0 = u1;
    u1 = tmp;
  }

  const dim3 grid((nx + kBX - 1) / kBX, (ny + kBY - 1) / kBY);
  for (int t = 0; t < steps; ++t) {
    laplace3d_march<<<grid, block>>>(v0, v1, nx, ny, nz, 0.4f, 0.1f);
    float *tmp = v0;
    v0 = v1;
    v1 = tmp;
  }

  const int bblocks = (nbodies + kBodyThreads - 1) / kBodyThreads;
  for (int t = 0; t < steps; ++t) {
    nbody_accel<<<bblocks, kBodyThreads>>>(pos, accel, nbodies, 1e-4f);
    nbody_integrate<<<bblocks, kBodyThreads>>>(pos, vel, accel, nbodies, dt);
  }

  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mc_pi, 256, 0);
  const int mc_threads = sms * per_sm * 256;
  seed_states<<<(mc_threads + 255) / 256, 256>>>(states, 1234u, mc_threads);
  cudaMemset(hits, 0, sizeof(unsigned long long));
  mc_pi<<<sms * per_sm, 256>>>(states, 4096, hits);

  const int opt_blocks = (n + 256 * kOptItems - 1) / (256 * kOptItems);
  black_scholes<<<opt_blocks, 256>>>(S, K, T, call, put, 0.02f, 0.3f, n);
  cudaDeviceSynchronize();
}

void run_filters(const float *sig, const float *taps, int ntaps, float *out,
                 int n, const float *filter2d, const float *img, float *img_out,
                 int width, int height) {
  const size_t smem = (kMaxTaps + kFirThreads + ntaps - 1) * sizeof(float);
  fir_filter<<<(n + kFirThreads - 1) / kFirThreads, kFirThreads, smem>>>(
      sig, taps, ntaps, out, n);
  cudaMemcpyToSymbol(c_filter2d, filter2d, kConvW * kConvW * sizeof(float));
  const dim3 grid((width + 31) / 32, (height + 7) / 8);
  conv2d_smem<32, 8, kConvR><<<grid, dim3(32, 8)>>>(img, img_out, width,
                                                    height);
  cudaDeviceSynchronize();
}
