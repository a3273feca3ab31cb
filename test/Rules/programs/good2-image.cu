// Image and signal kernels: separable convolution with shared tiles, bilinear resize, RGBA <-> NV12 with uchar4, 2x2 mip reduction, radix-2 FFT in shared memory, k-means with centroids in constant memory: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

// ---------------------------------------------------------------------------
// Separable convolution (radius kRadius, weights in constant memory) on a
// float image. Both passes use a 32x8 block; each thread computes kOut
// outputs kept 32 (rows pass) or 8 (columns pass) apart, so shared-memory
// reads of a warp are consecutive words and global accesses are coalesced.
// Borders clamp to the edge.
constexpr int kRadius = 8, kTaps = 2 * kRadius + 1;
constexpr int kBX = 32, kBY = 8, kOut = 4;
__constant__ float c_taps[kTaps];

__global__ void __launch_bounds__(kBX *kBY)
    conv_rows(const float *__restrict__ src, float *__restrict__ dst,
              int width, int height) {
  constexpr int kTileW = kBX * kOut;
  __shared__ float tile[kBY][kTileW + 2 * kRadius];
  const int x0 = blockIdx.x * kTileW;
  const int y = blockIdx.y * kBY + threadIdx.y;
  const bool row_ok = y < height;
  const float *row = src + (size_t)min(y, height - 1) * width;
  for (int i = threadIdx.x; i < kTileW + 2 * kRadius; i += kBX) {
    const int x = min(max(x0 + i - kRadius, 0), width - 1);
    tile[threadIdx.y][i] = row[x];
  }
  __syncthreads();
  if (!row_ok)
    return;
#pragma unroll
  for (int p = 0; p < kOut; ++p) {
    const int lx = threadIdx.x + p * kBX;
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < kTaps; ++t)
      acc = fmaf(c_taps[t], tile[threadIdx.y][lx + t], acc);
    if (x0 + lx < width)
      dst[(size_t)y * width + x0 + lx] = acc;
  }
}

__global__ void __launch_bounds__(kBX *kBY)
    conv_cols(const float *__restrict__ src, float *__restrict__ dst,
              int width, int height) {
  constexpr int kTileH = kBY * kOut;
  __shared__ float tile[kTileH + 2 * kRadius][kBX];
  const int x = blockIdx.x * kBX + threadIdx.x;
  const int y0 = blockIdx.y * kTileH;
  const int xc = min(x, width - 1);
  for (int j = threadIdx.y; j < kTileH + 2 * kRadius; j += kBY) {
    const int y = min(max(y0 + j - kRadius, 0), height - 1);
    tile[j][threadIdx.x] = src[(size_t)y * width + xc];
  }
  __syncthreads();
  if (x >= width)
    return;
#pragma unroll
  for (int p = 0; p < kOut; ++p) {
    const int ly = threadIdx.y + p * kBY;
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < kTaps; ++t)
      acc = fmaf(c_taps[t], tile[ly + t][threadIdx.x], acc);
    if (y0 + ly < height)
      dst[(size_t)(y0 + ly) * width + x] = acc;
  }
}

// ---------------------------------------------------------------------------
// Bilinear resize of an RGBA image (pixel centres aligned, edges clamped).
// Consecutive threads make consecutive output pixels (coalesced stores); the
// four source pixels of a warp lie in two short runs of two rows, read
// through the read-only cache. Each thread makes kResizeRows pixels of its
// column, blockDim.y rows apart, sharing the horizontal weights and keeping
// four times the gathers in flight.
constexpr int kResizeRows = 4;

__device__ __forceinline__ float4 to_f4(uchar4 p) {
  return make_float4(p.x, p.y, p.z, p.w);
}

__global__ void resize_bilinear_rgba(const uchar4 *__restrict__ src, int sw,
                                     int sh, uchar4 *__restrict__ dst, int dw,
                                     int dh, float sx, float sy) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= dw)
    return;
  const float fx = fmaxf(fmaf((float)x + 0.5f, sx, -0.5f), 0.0f);
  const int x0 = min((int)fx, sw - 1), x1 = min(x0 + 1, sw - 1);
  const float ax = fx - (float)x0;
  const int ybase = blockIdx.y * blockDim.y * kResizeRows + threadIdx.y;
#pragma unroll
  for (int r = 0; r < kResizeRows; ++r) {
    const int y = ybase + r * blockDim.y;
    if (y >= dh)
      break;
    const float fy = fmaxf(fmaf((float)y + 0.5f, sy, -0.5f), 0.0f);
    const int y0 = min((int)fy, sh - 1), y1 = min(y0 + 1, sh - 1);
    const float ay = fy - (float)y0;
    const uchar4 *r0 = src + (size_t)y0 * sw;
    const uchar4 *r1 = src + (size_t)y1 * sw;
    const float4 p00 = to_f4(__ldg(&r0[x0])), p01 = to_f4(__ldg(&r0[x1]));
    const float4 p10 = to_f4(__ldg(&r1[x0])), p11 = to_f4(__ldg(&r1[x1]));
    auto lerp2 = [ax, ay](float a, float b, float c, float d) {
      const float top = fmaf(ax, b - a, a), bot = fmaf(ax, d - c, c);
      return (unsigned char)__float2uint_rn(fmaf(ay, bot - top, top));
    };
    dst[(size_t)y * dw + x] =
        make_uchar4(lerp2(p00.x, p01.x, p10.x, p11.x),
                    lerp2(p00.y, p01.y, p10.y, p11.y),
                    lerp2(p00.z, p01.z, p10.z, p11.z),
                    lerp2(p00.w, p01.w, p10.w, p11.w));
  }
}

// ---------------------------------------------------------------------------
// RGBA -> NV12 (BT.601 full range, 8-bit fixed point). A thread converts a
// 4x2 pixel block: one 16-byte load per input row, one 4-byte store per luma
// row and one 4-byte store (U0 V0 U1 V1) of interleaved chroma. width is a
// multiple of 4, height of 2.
__device__ __forceinline__ unsigned char clamp_u8(int v) {
  return (unsigned char)min(max(v, 0), 255);
}
__device__ __forceinline__ unsigned char luma(uchar4 p) {
  return (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z + 128) >> 8);
}

__global__ void rgba_to_nv12(const uint4 *__restrict__ rgba,
                             uchar4 *__restrict__ y_plane,
                             uchar4 *__restrict__ uv_plane, int width,
                             int height) {
  const int qx = blockIdx.x * blockDim.x + threadIdx.x; // 4-pixel column
  const int py = blockIdx.y * blockDim.y + threadIdx.y; // row pair
  const int qw = width / 4;
  if (qx >= qw || 2 * py >= height)
    return;
  uint4 rows[2] = {rgba[(size_t)(2 * py) * qw + qx],
                   rgba[(size_t)(2 * py + 1) * qw + qx]};
  const uchar4 *a = reinterpret_cast<const uchar4 *>(&rows[0]);
  const uchar4 *b = reinterpret_cast<const uchar4 *>(&rows[1]);
  y_plane[(size_t)(2 * py) * qw + qx] =
      make_uchar4(luma(a[0]), luma(a[1]), luma(a[2]), luma(a[3]));
  y_plane[(size_t)(2 * py + 1) * qw + qx] =
      make_uchar4(luma(b[0]), luma(b[1]), luma(b[2]), luma(b[3]));
  unsigned char uv[4];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    // Sums of the 2x2 block: four times the mean, folded into the shift.
    const int r = a[2 * h].x + a[2 * h + 1].x + b[2 * h].x + b[2 * h + 1].x;
    const int g = a[2 * h].y + a[2 * h + 1].y + b[2 * h].y + b[2 * h + 1].y;
    const int bl = a[2 * h].z + a[2 * h + 1].z + b[2 * h].z + b[2 * h + 1].z;
    uv[2 * h] = clamp_u8(((-43 * r - 85 * g + 128 * bl + 512) >> 10) + 128);
    uv[2 * h + 1] = clamp_u8(((128 * r - 107 * g - 21 * bl + 512) >> 10) + 128);
  }
  uv_plane[(size_t)py * qw + qx] = make_uchar4(uv[0], uv[1], uv[2], uv[3]);
}

// NV12 -> RGBA, the same 4x2 blocks: two 4-byte luma loads, one 4-byte
// chroma load, one 16-byte store per output row.
__device__ __forceinline__ uchar4 yuv_to_rgba(int yv, int du, int dv) {
  return make_uchar4(clamp_u8(yv + ((359 * dv + 128) >> 8)),
                     clamp_u8(yv + ((-88 * du - 183 * dv + 128) >> 8)),
                     clamp_u8(yv + ((454 * du + 128) >> 8)), 255);
}

__global__ void nv12_to_rgba(const uchar4 *__restrict__ y_plane,
                             const uchar4 *__restrict__ uv_plane,
                             uint4 *__restrict__ rgba, int width, int height) {
  const int qx = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  const int qw = width / 4;
  if (qx >= qw || 2 * py >= height)
    return;
  const uchar4 c = uv_plane[(size_t)py * qw + qx];
  const int du0 = c.x - 128, dv0 = c.y - 128, du1 = c.z - 128, dv1 = c.w - 128;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const size_t e = (size_t)(2 * py + r) * qw + qx;
    const uchar4 l = y_plane[e];
    uchar4 out[4] = {yuv_to_rgba(l.x, du0, dv0), yuv_to_rgba(l.y, du0, dv0),
                     yuv_to_rgba(l.z, du1, dv1), yuv_to_rgba(l.w, du1, dv1)};
    rgba[e] = *reinterpret_cast<const uint4 *>(out);
  }
}

// ---------------------------------------------------------------------------
// One level of an RGBA mip chain (2x2 box filter, rounded): a thread makes
// two output pixels (one 8-byte store) from a 4x2 input block (two 16-byte
// loads). The source width is a multiple of 4.
__device__ __forceinline__ uchar4 avg4(uchar4 a, uchar4 b, uchar4 c, uchar4 d) {
  return make_uchar4((a.x + b.x + c.x + d.x + 2) >> 2,
                     (a.y + b.y + c.y + d.y + 2) >> 2,
                     (a.z + b.z + c.z + d.z + 2) >> 2,
                     (a.w + b.w + c.w + d.w + 2) >> 2);
}

__global__ void mip_down2(const uint4 *__restrict__ src, uint2 *__restrict__ dst,
                          int src_w, int src_h) {
  const int qx = blockIdx.x * blockDim.x + threadIdx.x;
  const int oy = blockIdx.y * blockDim.y + threadIdx.y;
  const int qw = src_w / 4;
  if (qx >= qw || oy >= src_h / 2)
    return;
  const uint4 top = src[(size_t)(2 * oy) * qw + qx];
  const uint4 bot = src[(size_t)(2 * oy + 1) * qw + qx];
  const uchar4 *t = reinterpret_cast<const uchar4 *>(&top);
  const uchar4 *b = reinterpret_cast<const uchar4 *>(&bot);
  uchar4 out[2] = {avg4(t[0], t[1], b[0], b[1]), avg4(t[2], t[3], b[2], b[3])};
  dst[(size_t)oy * qw + qx] = *reinterpret_cast<const uint2 *>(out);
}

// ---------------------------------------------------------------------------
// Batched complex FFT of kFftN points, one transform per block of kFftN / 2
// threads: the input is loaded in bit-reversed order, then log2(kFftN)
// radix-2 decimation-in-time stages run in shared memory, one butterfly per
// thread and stage. The twiddle factors are computed once per block into a
// shared table.
constexpr int kFftLog2 = 10, kFftN = 1 << kFftLog2, kFftThreads = kFftN / 2;

__global__ void __launch_bounds__(kFftThreads)
    fft_radix2(const float2 *__restrict__ in, float2 *__restrict__ out) {
  __shared__ float2 buf[kFftN];
  __shared__ float2 tw[kFftN / 2];
  const unsigned t = threadIdx.x;
  const size_t off = (size_t)blockIdx.x * kFftN;
  float s, c;
  sincospif((float)t * (-2.0f / (float)kFftN), &s, &c);
  tw[t] = make_float2(c, s);
  // Coalesced reads of t and t + N/2; their bit-reversed slots.
  buf[__brev(t) >> (32 - kFftLog2)] = in[off + t];
  buf[__brev(t + kFftThreads) >> (32 - kFftLog2)] = in[off + t + kFftThreads];
#pragma unroll
  for (int lg = 0; lg < kFftLog2; ++lg) {
    __syncthreads();
    const unsigned half = 1u << lg;
    const unsigned pos = t & (half - 1u);
    const unsigned i0 = ((t >> lg) << (lg + 1)) + pos, i1 = i0 + half;
    const float2 w = tw[pos << (kFftLog2 - 1 - lg)];
    const float2 a = buf[i0], b = buf[i1];
    const float2 wb = make_float2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
    buf[i0] = make_float2(a.x + wb.x, a.y + wb.y);
    buf[i1] = make_float2(a.x - wb.x, a.y - wb.y);
  }
  __syncthreads();
  out[off + t] = buf[t];
  out[off + t + kFftThreads] = buf[t + kFftThreads];
}

// ---------------------------------------------------------------------------
// k-means (Lloyd) on points stored dimension-major (x[d * n + i], so a warp
// reads 32 consecutive floats per dimension). The assignment step reads the
// centroids from constant memory (every thread of a warp reads the same
// centroid coordinate at the same time: a broadcast) and also accumulates
// the per-cluster sums and counts in shared memory; each block then adds its
// non-empty clusters to the global sums once.
constexpr int kDims = 8, kMaxK = 64;
__constant__ float c_centroids[kMaxK * kDims];

__global__ void kmeans_assign_accumulate(const float *__restrict__ x, int n,
                                         int k, int *__restrict__ labels,
                                         float *__restrict__ sums,
                                         unsigned *__restrict__ counts) {
  __shared__ float s_sums[kMaxK * kDims];
  __shared__ unsigned s_counts[kMaxK];
  for (int j = threadIdx.x; j < k * kDims; j += blockDim.x)
    s_sums[j] = 0.0f;
  for (int j = threadIdx.x; j < k; j += blockDim.x)
    s_counts[j] = 0u;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float p[kDims];
#pragma unroll
    for (int d = 0; d < kDims; ++d)
      p[d] = x[(size_t)d * n + i];
    int best = 0;
    float best_d2 = INFINITY;
    for (int c = 0; c < k; ++c) {
      float d2 = 0.0f;
#pragma unroll
      for (int d = 0; d < kDims; ++d) {
        const float diff = p[d] - c_centroids[c * kDims + d];
        d2 = fmaf(diff, diff, d2);
      }
      if (d2 < best_d2) {
        best_d2 = d2;
        best = c;
      }
    }
    labels[i] = best;
    atomicAdd(&s_counts[best], 1u);
#pragma unroll
    for (int d = 0; d < kDims; ++d)
      atomicAdd(&s_sums[best * kDims + d], p[d]);
  }
  __syncthreads();
  // One global atomic per non-empty cluster coordinate, consecutive threads
  // on consecutive words.
  for (unsigned j = threadIdx.x; j < k * kDims; j += blockDim.x)
    if (s_counts[j / kDims] != 0u)
      atomicAdd(&sums[j], s_sums[j]);
  for (unsigned j = threadIdx.x; j < k; j += blockDim.x) {
    const unsigned cnt = s_counts[j];
    if (cnt != 0u)
      atomicAdd(&counts[j], cnt);
  }
}

// Update step, k * kDims threads in one block (at most 512): the new
// centroids, and the accumulators cleared for the next iteration. An empty
// cluster keeps its centroid.
__global__ void kmeans_update(float *__restrict__ centroids,
                              float *__restrict__ sums,
                              unsigned *__restrict__ counts, int k) {
  const int j = threadIdx.x;
  if (j < k * kDims) {
    const unsigned cnt = counts[j / kDims];
    if (cnt > 0u)
      centroids[j] = sums[j] / (float)cnt;
    sums[j] = 0.0f;
  }
  __syncthreads(); // every count is read before it is cleared
  if (j < k)
    counts[j] = 0u;
}

// ---------------------------------------------------------------------------
void run_image(const float *img, float *tmp, float *blurred, int width,
               int height, const float *taps, const uchar4 *rgba, int sw,
               int sh, uchar4 *resized, int dw, int dh, uchar4 *y_plane,
               uchar4 *uv_plane, uint4 *rgba_back, uint2 *mip,
               const float2 *signal, float2 *spectrum, int nffts,
               const float *points, int npoints, int k, int *labels,
               float *centroids, float *sums, unsigned *counts, int iters,
               cudaStream_t stream) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  cudaMemcpyToSymbolAsync(c_taps, taps, sizeof(float) * kTaps, 0,
                          cudaMemcpyHostToDevice, stream);
  const dim3 blk(kBX, kBY);
  conv_rows<<<dim3((width + kBX * kOut - 1) / (kBX * kOut),
                   (height + kBY - 1) / kBY),
              blk, 0, stream>>>(img, tmp, width, height);
  conv_cols<<<dim3((width + kBX - 1) / kBX,
                   (height + kBY * kOut - 1) / (kBY * kOut)),
              blk, 0, stream>>>(tmp, blurred, width, height);

  const float sx = (float)sw / (float)dw, sy = (float)sh / (float)dh;
  resize_bilinear_rgba<<<dim3((dw + 31) / 32,
                              (dh + 8 * kResizeRows - 1) / (8 * kResizeRows)),
                         dim3(32, 8), 0, stream>>>(rgba, sw, sh, resized, dw,
                                                   dh, sx, sy);

  const int qw = sw / 4;
  const dim3 qgrid((qw + 31) / 32, (sh / 2 + 7) / 8);
  rgba_to_nv12<<<qgrid, dim3(32, 8), 0, stream>>>(
      reinterpret_cast<const uint4 *>(rgba), y_plane, uv_plane, sw, sh);
  nv12_to_rgba<<<qgrid, dim3(32, 8), 0, stream>>>(y_plane, uv_plane, rgba_back,
                                                  sw, sh);
  mip_down2<<<qgrid, dim3(32, 8), 0, stream>>>(rgba_back, mip, sw, sh);

  fft_radix2<<<nffts, kFftThreads, 0, stream>>>(signal, spectrum);

  // k-means: the centroids live in `centroids` (device) and are copied into
  // constant memory before each assignment step; sums and counts start at
  // zero and are cleared by every update.
  cudaMemsetAsync(sums, 0, sizeof(float) * k * kDims, stream);
  cudaMemsetAsync(counts, 0, sizeof(unsigned) * k, stream);
  for (int it = 0; it < iters; ++it) {
    cudaMemcpyToSymbolAsync(c_centroids, centroids, sizeof(float) * k * kDims,
                            0, cudaMemcpyDeviceToDevice, stream);
    kmeans_assign_accumulate<<<4 * sms, 256, 0, stream>>>(points, npoints, k,
                                                          labels, sums, counts);
    kmeans_update<<<1, kMaxK * kDims, 0, stream>>>(centroids, sums, counts, k);
  }
  cudaStreamSynchronize(stream);
}
