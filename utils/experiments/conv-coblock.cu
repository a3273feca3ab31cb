// session-25 experiment (for a GPU session): register blocking over output
// channels for the corpus's conv2d_nchw convolution, which Nsight Compute
// showed bound by L1 load instructions (every output reloads its 576 inputs).
// Each thread computes R output channels of one pixel: an input element is
// loaded once per R outputs. Every output keeps its own sum in the original
// order (bias, then ci, ky, kx), so the results must be bit for bit the
// original's; the program checks that and times each variant with events.
//   nvcc -O3 -arch=sm_90 -o conv-coblock conv-coblock.cu && ./conv-coblock
// Smaller sizes for a CPU emulation run: -DNB=1 -DC_IN=4 -DC_OUT=8 -DH=9 -DW=13
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)
#ifndef NB
#define NB 8
#endif
#ifndef C_IN
#define C_IN 64
#endif
#ifndef C_OUT
#define C_OUT 64
#endif
#ifndef H
#define H 128
#endif
#ifndef W
#define W 128
#endif
#ifndef REPS
#define REPS 20
#endif
#define K 3
#define PAD 1

// The corpus kernel as written (bench/corpus/conv2d_nchw).
__global__ void conv(const float *in, const float *weight, const float *bias, float *out, int nb,
                     int c_in, int c_out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / c_out;
  int co = blockIdx.z % c_out;
  if (x < w && y < h && n < nb) {
    float sum = bias[co];
    for (int ci = 0; ci < c_in; ci++)
      for (int ky = 0; ky < K; ky++)
        for (int kx = 0; kx < K; kx++) {
          int iy = y + ky - PAD;
          int ix = x + kx - PAD;
          if (iy >= 0 && iy < h && ix >= 0 && ix < w)
            sum += in[((n * c_in + ci) * h + iy) * w + ix] * weight[((co * c_in + ci) * K + ky) * K + kx];
        }
    out[((n * c_out + co) * h + y) * w + x] = sum;
  }
}

// R output channels per thread: grid.z / R blocks along z (c_out % R == 0),
// the logical blockIdx.z of output r being blockIdx.z * R + r.
template <int R>
__global__ void convR(const float *in, const float *weight, const float *bias, float *out, int nb,
                      int c_in, int c_out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z0 = blockIdx.z * R;
  int n = z0 / c_out;
  int co0 = z0 % c_out;
  if (x < w && y < h && n < nb) {
    float sum[R];
#pragma unroll
    for (int r = 0; r < R; r++)
      sum[r] = bias[co0 + r];
    for (int ci = 0; ci < c_in; ci++)
      for (int ky = 0; ky < K; ky++)
        for (int kx = 0; kx < K; kx++) {
          int iy = y + ky - PAD;
          int ix = x + kx - PAD;
          if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
            float v = in[((n * c_in + ci) * h + iy) * w + ix];
#pragma unroll
            for (int r = 0; r < R; r++)
              sum[r] += v * weight[(((co0 + r) * c_in + ci) * K + ky) * K + kx];
          }
        }
#pragma unroll
    for (int r = 0; r < R; r++)
      out[((n * c_out + co0 + r) * h + y) * w + x] = sum[r];
  }
}

template <typename F> float timeit(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaEventRecord(a);
  for (int i = 0; i < REPS; i++)
    f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms * 1000 / REPS;
}

int main() {
  size_t nin = (size_t)NB * C_IN * H * W, nw = (size_t)C_OUT * C_IN * K * K,
         nout = (size_t)NB * C_OUT * H * W;
  float *hin = (float *)malloc(nin * 4), *hw = (float *)malloc(nw * 4), *hb = (float *)malloc(C_OUT * 4);
  float *r0 = (float *)malloc(nout * 4), *r1 = (float *)malloc(nout * 4);
  for (size_t i = 0; i < nin; i++) hin[i] = (float)((i * 37) % 101) / 50 - 1;
  for (size_t i = 0; i < nw; i++) hw[i] = (float)((i * 53) % 97) / 97 - 0.5f;
  for (int i = 0; i < C_OUT; i++) hb[i] = 0.01f * i;
  float *in, *wt, *b, *out;
  CK(cudaMalloc(&in, nin * 4));
  CK(cudaMalloc(&wt, nw * 4));
  CK(cudaMalloc(&b, C_OUT * 4));
  CK(cudaMalloc(&out, nout * 4));
  CK(cudaMemcpy(in, hin, nin * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(wt, hw, nw * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb, C_OUT * 4, cudaMemcpyHostToDevice));
  dim3 blk(32, 8), g((W + 31) / 32, (H + 7) / 8, NB * C_OUT); // the corpus launch
  float t0 = timeit([&] { conv<<<g, blk>>>(in, wt, b, out, NB, C_IN, C_OUT, H, W); });
  CK(cudaMemcpy(r0, out, nout * 4, cudaMemcpyDeviceToHost));
  printf("conv2d %dx%dx%dx%d -> %d channels: original %.1f us\n", NB, C_IN, H, W, C_OUT, t0);
  int bad = 0;
  auto Run = [&](int R, auto launch) {
    CK(cudaMemset(out, 0, nout * 4));
    float t = timeit(launch);
    CK(cudaMemcpy(r1, out, nout * 4, cudaMemcpyDeviceToHost));
    bool same = memcmp(r0, r1, nout * 4) == 0;
    bad += !same;
    printf("  R=%d output channels per thread: %.1f us (%.2fx), %s\n", R, t, t0 / t,
           same ? "bit for bit the original's" : "DIFFERENT");
    return 0;
  };
  Run(2, [&] { convR<2><<<dim3(g.x, g.y, g.z / 2), blk>>>(in, wt, b, out, NB, C_IN, C_OUT, H, W); });
  Run(4, [&] { convR<4><<<dim3(g.x, g.y, g.z / 4), blk>>>(in, wt, b, out, NB, C_IN, C_OUT, H, W); });
  Run(8, [&] { convR<8><<<dim3(g.x, g.y, g.z / 8), blk>>>(in, wt, b, out, NB, C_IN, C_OUT, H, W); });
  printf("%s\n", bad ? "FAIL" : "PASS");
  return bad;
}
