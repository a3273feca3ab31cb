// Convolutional-network and training kernels in fp32: im2col for a GEMM
// convolution, 3x3 stride-2 max pooling (forward with argmax, backward as a
// gather), global average pooling with a warp per plane, batch
// normalisation (per-channel statistics split over the grid, a finalize
// step, fused scale/shift/ReLU with 16-byte accesses), fused softmax
// cross-entropy forward and backward (online max/sum, one block per row),
// token plus position embedding, Nesterov SGD and dropout with
// ballot-packed masks: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cfloat>
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
// im2col of a batch of NCHW images for a KxK convolution: col is, per image,
// a [C * K * K][OH * OW] row-major matrix. A thread owns one output pixel of
// one channel (grid.y: channel, grid.z: image) and writes its K * K column
// entries; consecutive threads make consecutive pixels, so every store of a
// warp is one contiguous run and the loads follow the input rows.
template <int K>
__global__ void im2col(const float *__restrict__ in, float *__restrict__ col,
                       int C, int H, int W, int OH, int OW, int stride,
                       int pad) {
  const int npix = OH * OW;
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npix)
    return;
  const int c = blockIdx.y, n = blockIdx.z;
  const int oh = p / OW, ow = p - oh * OW;
  const float *src = in + ((size_t)n * C + c) * H * W;
  float *dst = col + ((size_t)n * C + c) * K * K * npix + p;
  const int ih0 = oh * stride - pad, iw0 = ow * stride - pad;
#pragma unroll
  for (int kh = 0; kh < K; ++kh) {
    const int ih = ih0 + kh;
    const bool row_ok = ih >= 0 && ih < H;
#pragma unroll
    for (int kw = 0; kw < K; ++kw) {
      const int iw = iw0 + kw;
      dst[(size_t)(kh * K + kw) * npix] =
          row_ok && iw >= 0 && iw < W ? src[ih * W + iw] : 0.0f;
    }
  }
}

// ---------------------------------------------------------------------------
// 3x3 max pooling, stride 2, padding 1 (a ResNet stem), one output per
// thread (grid.y: the N * C planes), keeping the flat index of the maximum
// for the backward pass.
constexpr int kPoolK = 3, kPoolS = 2, kPoolPad = 1;

__global__ void maxpool_fwd(const float *__restrict__ in, float *__restrict__ out,
                            int *__restrict__ argmax, int H, int W, int OH,
                            int OW) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= OH * OW)
    return;
  const size_t plane = blockIdx.y;
  const float *src = in + plane * H * W;
  const int oh = p / OW, ow = p - oh * OW;
  const int h0 = oh * kPoolS - kPoolPad, w0 = ow * kPoolS - kPoolPad;
  float best = -FLT_MAX;
  int best_idx = max(h0, 0) * W + max(w0, 0);
#pragma unroll
  for (int dh = 0; dh < kPoolK; ++dh) {
    const int h = h0 + dh;
    if (h < 0 || h >= H)
      continue;
#pragma unroll
    for (int dw = 0; dw < kPoolK; ++dw) {
      const int w = w0 + dw;
      if (w < 0 || w >= W)
        continue;
      const float v = src[h * W + w];
      if (v > best) {
        best = v;
        best_idx = h * W + w;
      }
    }
  }
  out[plane * OH * OW + p] = best;
  argmax[plane * OH * OW + p] = best_idx;
}

// Backward as a gather: a thread owns one input element and adds the
// gradients of the (at most 2x2) windows that chose it; no atomics.
__global__ void maxpool_bwd(const float *__restrict__ grad_out,
                            const int *__restrict__ argmax,
                            float *__restrict__ grad_in, int H, int W, int OH,
                            int OW) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= H * W)
    return;
  const size_t plane = blockIdx.y;
  const int ih = p / W, iw = p - ih * W;
  const int oh0 = ih + kPoolPad < kPoolK ? 0 : (ih + kPoolPad - kPoolK) / kPoolS + 1;
  const int oh1 = min((ih + kPoolPad) / kPoolS, OH - 1);
  const int ow0 = iw + kPoolPad < kPoolK ? 0 : (iw + kPoolPad - kPoolK) / kPoolS + 1;
  const int ow1 = min((iw + kPoolPad) / kPoolS, OW - 1);
  const float *g = grad_out + plane * OH * OW;
  const int *am = argmax + plane * OH * OW;
  float acc = 0.0f;
  constexpr int kMaxWin = (kPoolK + kPoolS - 1) / kPoolS; // windows per axis
#pragma unroll
  for (int dh = 0; dh < kMaxWin; ++dh) {
    const int oh = oh0 + dh;
    if (oh > oh1)
      break;
#pragma unroll
    for (int dw = 0; dw < kMaxWin; ++dw) {
      const int ow = ow0 + dw;
      if (ow > ow1)
        break;
      const int o = oh * OW + ow;
      if (am[o] == p)
        acc += g[o];
    }
  }
  grad_in[plane * H * W + p] = acc;
}

// ---------------------------------------------------------------------------
// Global average pooling, one warp per (image, channel) plane.
__global__ void global_avg_pool(const float *__restrict__ in,
                                float *__restrict__ out, int planes, int hw) {
  const int lane = threadIdx.x % kWarp;
  const int plane = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  if (plane >= planes)
    return;
  const float *src = in + (size_t)plane * hw;
  float acc = 0.0f;
  for (int i = lane; i < hw; i += kWarp)
    acc += src[i];
  acc = warp_sum(acc);
  if (lane == 0)
    out[plane] = acc / (float)hw;
}

// ---------------------------------------------------------------------------
// Batch normalisation (training). Statistics: grid (C, split); block (c, y)
// walks images y, y + split, ... of channel c with 16-byte loads (HW is a
// multiple of 4), reduces in the block and adds its sum and sum of squares
// to the channel's double accumulators.
constexpr int kBnThreads = 256;

__global__ void __launch_bounds__(kBnThreads)
    bn_stats(const float4 *__restrict__ x, int N, int C, int hw4,
             double *__restrict__ sum, double *__restrict__ sumsq) {
  __shared__ float2 part[kBnThreads / kWarp];
  const int c = blockIdx.x;
  float s = 0.0f, s2 = 0.0f;
  for (int n = blockIdx.y; n < N; n += gridDim.y) {
    const float4 *src = x + ((size_t)n * C + c) * hw4;
    for (int i = threadIdx.x; i < hw4; i += kBnThreads) {
      const float4 v = src[i];
      s += (v.x + v.y) + (v.z + v.w);
      s2 = fmaf(v.x, v.x, fmaf(v.y, v.y, fmaf(v.z, v.z, fmaf(v.w, v.w, s2))));
    }
  }
  s = warp_sum(s);
  s2 = warp_sum(s2);
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0)
    part[wid] = make_float2(s, s2);
  __syncthreads();
  if (wid == 0) {
    const float2 p =
        lane < kBnThreads / kWarp ? part[lane] : make_float2(0.0f, 0.0f);
    s = warp_sum(p.x);
    s2 = warp_sum(p.y);
    if (lane == 0) {
      atomicAdd(&sum[c], (double)s);
      atomicAdd(&sumsq[c], (double)s2);
    }
  }
}

// Per channel: the fused scale and shift, and the running statistics.
__global__ void bn_finalize(const double *__restrict__ sum,
                            const double *__restrict__ sumsq,
                            const float *__restrict__ gamma,
                            const float *__restrict__ beta,
                            float *__restrict__ running_mean,
                            float *__restrict__ running_var,
                            float2 *__restrict__ scale_shift, int C,
                            double count, float momentum, float eps) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C)
    return;
  const double mean = sum[c] / count;
  const double var = fmax(sumsq[c] / count - mean * mean, 0.0);
  const float scale = gamma[c] * rsqrtf((float)var + eps);
  scale_shift[c] = make_float2(scale, fmaf(-(float)mean, scale, beta[c]));
  const float unbiased = (float)(var * count / (count - 1.0));
  running_mean[c] = fmaf(momentum, (float)mean - running_mean[c], running_mean[c]);
  running_var[c] = fmaf(momentum, unbiased - running_var[c], running_var[c]);
}

// y = max(x * scale + shift, 0): grid (hw4 / 256, N * C), the channel's
// scale and shift read once per thread.
__global__ void bn_apply_relu(const float4 *__restrict__ x,
                              const float2 *__restrict__ scale_shift,
                              float4 *__restrict__ y, int C, int hw4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= hw4)
    return;
  const size_t plane = blockIdx.y;
  const float2 ss = scale_shift[plane % C];
  const float4 v = x[plane * hw4 + i];
  y[plane * hw4 + i] = make_float4(fmaxf(fmaf(v.x, ss.x, ss.y), 0.0f),
                                   fmaxf(fmaf(v.y, ss.x, ss.y), 0.0f),
                                   fmaxf(fmaf(v.z, ss.x, ss.y), 0.0f),
                                   fmaxf(fmaf(v.w, ss.x, ss.y), 0.0f));
}

// ---------------------------------------------------------------------------
// Softmax cross-entropy over a vocabulary (a multiple of 4), one block per
// row. Pass 1 keeps a running maximum and a sum of exponentials rescaled
// when the maximum grows (one read of the logits); the (max, sum) pairs are
// merged across the warp and the block. Pass 2 writes the gradient
// (softmax - one-hot) / rows. Rows labelled -1 (padding) get zero loss and
// gradient.
constexpr int kCeThreads = 512;

__device__ __forceinline__ void merge_max_sum(float &m, float &s, float m2,
                                              float s2) {
  const float mn = fmaxf(m, m2);
  s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
  m = mn;
}

__global__ void __launch_bounds__(kCeThreads)
    cross_entropy_fwd_bwd(const float4 *__restrict__ logits,
                          const int *__restrict__ labels, int v4,
                          float inv_rows, float *__restrict__ loss,
                          float4 *__restrict__ grad) {
  __shared__ float2 part[kCeThreads / kWarp];
  __shared__ float s_logz;
  const size_t row = blockIdx.x;
  const float4 *x = logits + row * v4;
  float4 *g = grad + row * v4;
  const int label = labels[row];
  if (label < 0) {
    for (int i = threadIdx.x; i < v4; i += kCeThreads)
      g[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (threadIdx.x == 0)
      loss[row] = 0.0f;
    return;
  }
  float m = -FLT_MAX, s = 0.0f;
  for (int i = threadIdx.x; i < v4; i += kCeThreads) {
    const float4 v = x[i];
    const float mx = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
    if (mx > m) {
      s *= __expf(m - mx);
      m = mx;
    }
    s += (__expf(v.x - m) + __expf(v.y - m)) + (__expf(v.z - m) + __expf(v.w - m));
  }
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    merge_max_sum(m, s, __shfl_xor_sync(kFullMask, m, off),
                  __shfl_xor_sync(kFullMask, s, off));
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0)
    part[wid] = make_float2(m, s);
  __syncthreads();
  if (wid == 0) {
    const float2 p =
        lane < kCeThreads / kWarp ? part[lane] : make_float2(-FLT_MAX, 0.0f);
    m = p.x;
    s = p.y;
#pragma unroll
    for (int off = kWarp / 2; off > 0; off >>= 1)
      merge_max_sum(m, s, __shfl_xor_sync(kFullMask, m, off),
                    __shfl_xor_sync(kFullMask, s, off));
    if (lane == 0) {
      const float logz = m + __logf(s);
      s_logz = logz;
      loss[row] = logz - reinterpret_cast<const float *>(x)[label];
    }
  }
  __syncthreads();
  const float logz = s_logz;
  for (int i = threadIdx.x; i < v4; i += kCeThreads) {
    const float4 v = x[i];
    const int base = 4 * i;
    g[i] = make_float4(
        fmaf(__expf(v.x - logz), inv_rows, base == label ? -inv_rows : 0.0f),
        fmaf(__expf(v.y - logz), inv_rows, base + 1 == label ? -inv_rows : 0.0f),
        fmaf(__expf(v.z - logz), inv_rows, base + 2 == label ? -inv_rows : 0.0f),
        fmaf(__expf(v.w - logz), inv_rows, base + 3 == label ? -inv_rows : 0.0f));
  }
}

// ---------------------------------------------------------------------------
// Token plus learned position embedding: one block per token, a thread per
// 16-byte chunk of the model dimension (d4 = d_model / 4 threads).
__global__ void embed_tokens(const int *__restrict__ ids,
                             const float4 *__restrict__ tok_table,
                             const float4 *__restrict__ pos_table, int seq_len,
                             int d4, float4 *__restrict__ out) {
  const size_t t = blockIdx.x;
  const int j = threadIdx.x;
  if (j >= d4)
    return;
  const float4 a = tok_table[(size_t)ids[t] * d4 + j];
  const float4 b = pos_table[(size_t)(t % seq_len) * d4 + j];
  out[t * d4 + j] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// ---------------------------------------------------------------------------
// Nesterov SGD with weight decay, 16-byte accesses in a grid-stride loop:
// v = mu v + (g + wd w); w -= lr ((g + wd w) + mu v).
__device__ __forceinline__ void sgd_one(float &w, float &v, float g, float lr,
                                        float mu, float wd) {
  const float d = fmaf(wd, w, g);
  v = fmaf(mu, v, d);
  w = fmaf(-lr, fmaf(mu, v, d), w);
}

__global__ void sgd_nesterov(float4 *__restrict__ w, float4 *__restrict__ v,
                             const float4 *__restrict__ g, size_t n4, float lr,
                             float mu, float wd) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += stride) {
    float4 wi = w[i], vi = v[i];
    const float4 gi = g[i];
    sgd_one(wi.x, vi.x, gi.x, lr, mu, wd);
    sgd_one(wi.y, vi.y, gi.y, lr, mu, wd);
    sgd_one(wi.z, vi.z, gi.z, lr, mu, wd);
    sgd_one(wi.w, vi.w, gi.w, lr, mu, wd);
    w[i] = wi;
    v[i] = vi;
  }
}

// ---------------------------------------------------------------------------
// Dropout: a counter-based hash of (seed, element quad) gives four 16-bit
// uniforms per thread; kept elements are scaled by 1 / (1 - p). The mask is
// packed with four ballots per warp (word k of a warp holds component k of
// its 32 quads), written by lanes 0-3. The block size is a multiple of 32.
__device__ __forceinline__ uint64_t hash64(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  return x ^ (x >> 32);
}

__global__ void dropout_fwd(const float4 *__restrict__ x,
                            float4 *__restrict__ y, uint32_t *__restrict__ mask,
                            int n4, uint32_t drop_threshold16, float scale,
                            uint64_t seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = i < n4;
  const uint64_t r = hash64(seed + (uint64_t)i * 0x9e3779b97f4a7c15ull);
  const bool k0 = (uint32_t)(r & 0xffffu) >= drop_threshold16;
  const bool k1 = (uint32_t)((r >> 16) & 0xffffu) >= drop_threshold16;
  const bool k2 = (uint32_t)((r >> 32) & 0xffffu) >= drop_threshold16;
  const bool k3 = (uint32_t)(r >> 48) >= drop_threshold16;
  if (valid) {
    const float4 v = x[i];
    y[i] = make_float4(k0 ? v.x * scale : 0.0f, k1 ? v.y * scale : 0.0f,
                       k2 ? v.z * scale : 0.0f, k3 ? v.w * scale : 0.0f);
  }
  const uint32_t b0 = __ballot_sync(kFullMask, valid && k0);
  const uint32_t b1 = __ballot_sync(kFullMask, valid && k1);
  const uint32_t b2 = __ballot_sync(kFullMask, valid && k2);
  const uint32_t b3 = __ballot_sync(kFullMask, valid && k3);
  const int lane = threadIdx.x % kWarp;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  if (lane < 4 && warp * kWarp < n4)
    mask[4 * warp + lane] = lane == 0 ? b0 : lane == 1 ? b1 : lane == 2 ? b2 : b3;
}

// ---------------------------------------------------------------------------
int run_cnn_train(cudaStream_t st) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  // A batch of 32 ResNet stem activations: 64 x 112 x 112.
  const int N = 32, C = 64, H = 112, W = 112;
  const int OH = (H + 2 * kPoolPad - kPoolK) / kPoolS + 1;
  const int OW = (W + 2 * kPoolPad - kPoolK) / kPoolS + 1;
  const size_t act = (size_t)N * C * H * W, pooled = (size_t)N * C * OH * OW;
  float *x, *y, *gy, *gx, *pool, *gpool, *gap;
  int *amax;
  cudaMalloc(&x, act * sizeof(float));
  cudaMalloc(&y, act * sizeof(float));
  cudaMalloc(&gx, act * sizeof(float));
  cudaMalloc(&gy, act * sizeof(float));
  cudaMalloc(&pool, pooled * sizeof(float));
  cudaMalloc(&gpool, pooled * sizeof(float));
  cudaMalloc(&amax, pooled * sizeof(int));
  cudaMalloc(&gap, (size_t)N * C * sizeof(float));

  // Batch norm + ReLU, training mode.
  double *bsum, *bsumsq;
  float *gamma, *beta, *rmean, *rvar;
  float2 *ss;
  cudaMalloc(&bsum, C * sizeof(double));
  cudaMalloc(&bsumsq, C * sizeof(double));
  cudaMalloc(&gamma, C * sizeof(float));
  cudaMalloc(&beta, C * sizeof(float));
  cudaMalloc(&rmean, C * sizeof(float));
  cudaMalloc(&rvar, C * sizeof(float));
  cudaMalloc(&ss, C * sizeof(float2));
  cudaMemsetAsync(bsum, 0, C * sizeof(double), st);
  cudaMemsetAsync(bsumsq, 0, C * sizeof(double), st);
  const int hw4 = H * W / 4;
  int split = (4 * sms + C - 1) / C;
  split = split < N ? split : N;
  bn_stats<<<dim3(C, split), kBnThreads, 0, st>>>(
      reinterpret_cast<const float4 *>(x), N, C, hw4, bsum, bsumsq);
  bn_finalize<<<(C + 127) / 128, 128, 0, st>>>(bsum, bsumsq, gamma, beta, rmean,
                                               rvar, ss, C, (double)N * H * W,
                                               0.1f, 1e-5f);
  bn_apply_relu<<<dim3((hw4 + 255) / 256, N * C), 256, 0, st>>>(
      reinterpret_cast<const float4 *>(x), ss, reinterpret_cast<float4 *>(y), C,
      hw4);

  // Max pooling forward and backward, global average pooling.
  maxpool_fwd<<<dim3((OH * OW + 255) / 256, N * C), 256, 0, st>>>(
      y, pool, amax, H, W, OH, OW);
  maxpool_bwd<<<dim3((H * W + 255) / 256, N * C), 256, 0, st>>>(
      gpool, amax, gx, H, W, OH, OW);
  global_avg_pool<<<(N * C * kWarp + 255) / 256, 256, 0, st>>>(pool, gap, N * C,
                                                               OH * OW);

  // im2col of the pooled maps for a 3x3, stride 1, padding 1 convolution
  // (8 images at a time).
  const int cb = 8;
  float *col;
  cudaMalloc(&col, (size_t)cb * C * 9 * OH * OW * sizeof(float));
  for (int n0 = 0; n0 < N; n0 += cb)
    im2col<3><<<dim3((OH * OW + 255) / 256, C, cb), 256, 0, st>>>(
        pool + (size_t)n0 * C * OH * OW, col, C, OH, OW, OH, OW, 1, 1);

  // Language-model head: 16 sequences of 1024 tokens, vocabulary 32000.
  const int seq_len = 1024, ntok = 16 * seq_len, vocab = 32000, d_model = 1024;
  const int v4 = vocab / 4, d4 = d_model / 4;
  int *ids, *labels;
  float4 *tok, *pos, *emb, *logits, *dlogits;
  float *loss;
  cudaMalloc(&ids, ntok * sizeof(int));
  cudaMalloc(&labels, ntok * sizeof(int));
  cudaMalloc(&tok, (size_t)vocab * d4 * sizeof(float4));
  cudaMalloc(&pos, (size_t)seq_len * d4 * sizeof(float4));
  cudaMalloc(&emb, (size_t)ntok * d4 * sizeof(float4));
  cudaMalloc(&logits, (size_t)ntok * v4 * sizeof(float4));
  cudaMalloc(&dlogits, (size_t)ntok * v4 * sizeof(float4));
  cudaMalloc(&loss, ntok * sizeof(float));
  embed_tokens<<<ntok, d4, 0, st>>>(ids, tok, pos, seq_len, d4, emb);
  cross_entropy_fwd_bwd<<<ntok, kCeThreads, 0, st>>>(
      logits, labels, v4, 1.0f / ntok, loss, dlogits);

  // Dropout on the embeddings (p = 0.1), then an optimizer step over 128M
  // parameters.
  const int n4 = ntok * d4;
  float4 *emb_drop;
  uint32_t *dmask;
  cudaMalloc(&emb_drop, (size_t)n4 * sizeof(float4));
  cudaMalloc(&dmask, (size_t)(n4 / kWarp) * 4 * sizeof(uint32_t));
  dropout_fwd<<<(n4 + 255) / 256, 256, 0, st>>>(
      emb, emb_drop, dmask, n4, (uint32_t)(0.1 * 65536.0), 1.0f / 0.9f,
      0x1234abcdull);
  const size_t nparams4 = (size_t)1 << 25;
  float4 *wts, *vel, *grads;
  cudaMalloc(&wts, nparams4 * sizeof(float4));
  cudaMalloc(&vel, nparams4 * sizeof(float4));
  cudaMalloc(&grads, nparams4 * sizeof(float4));
  sgd_nesterov<<<8 * sms, 256, 0, st>>>(wts, vel, grads, nparams4, 0.1f, 0.9f,
                                        1e-4f);
  cudaStreamSynchronize(st);

  void *bufs[] = {x,      y,      gx,    gy,    pool,  gpool,  amax,  gap,
                  bsum,   bsumsq, gamma, beta,  rmean, rvar,   ss,    col,
                  ids,    labels, tok,   pos,   emb,   logits, dlogits, loss,
                  emb_drop, dmask, wts,  vel,   grads};
  for (void *b : bufs)
    cudaFree(b);
  return 0;
}
