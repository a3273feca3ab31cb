// matmul-tile-tune: which tile parameters should coalescing-matmul-tile's
// generated kernel use on the H200?  The kernel below has the shape the rule
// generates (launch untouched, grid-stride over output tiles covering the
// original grid's (i, j) set, masked loads written as the original operand
// expressions, exact k order with no zero-padded products, per-element guard
// for the epilogue), templated on the tile parameters.  Each configuration is
// timed against the naive one-output-per-thread kernel and cuBLAS SGEMM
// (fp32, default math: no TF32), and its output compared with the naive
// kernel's bit for bit.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/mtt utils/experiments/matmul-tile-tune.cu -lcublas
//   NVIDIA_TF32_OVERRIDE=0 /tmp/mtt
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define OK(call)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                      \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// The original: one output per thread, 32x8 blocks, alpha/beta epilogue.
__global__ void naive(int M, int N, int K, float alpha, float beta, const float *a,
                      const float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
      sum += a[i * K + k] * b[k * N + j];
    c[i * N + j] = alpha * sum + beta * c[i * N + j];
  }
}

// What the rule generates, for NT threads: TY x TX logical threads, each
// owning RM x RN outputs strided by TY / TX.
template <int NT, int TX, int TM, int TN, int TK, bool CONTIG = false>
__global__ void __launch_bounds__(NT)
    tiled(int M, int N, int K, float alpha, float beta, const float *a, const float *b,
          float *c) {
  constexpr int TY = NT / TX, RM = TM / TY, RN = TN / TX;
  __shared__ __align__(16) float As[TK][TM + (CONTIG ? 4 : 1)];
  __shared__ __align__(16) float Bs[TK][TN];
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int tx = t % TX, ty = t / TX;
  // the (i, j) set of the original grid, clamped by the guard's bounds
  const long iEnd = min((long)M, (long)gridDim.y * blockDim.y);
  const long jEnd = min((long)N, (long)gridDim.x * blockDim.x);
  const int tilesJ = (int)((jEnd + TN - 1) / TN);
  const int tiles = (int)((iEnd + TM - 1) / TM) * tilesJ;
  for (int tile = blockIdx.x + gridDim.x * blockIdx.y; tile < tiles;
       tile += gridDim.x * gridDim.y) {
    const int i0 = (tile / tilesJ) * TM, j0 = (tile % tilesJ) * TN;
    float acc[RM][RN];
#pragma unroll
    for (int r = 0; r < RM; r++)
#pragma unroll
      for (int q = 0; q < RN; q++)
        acc[r][q] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TK) {
      // A tile: consecutive threads on k (a[i * K + k] has unit stride in k)
      for (int l = t; l < TM * TK; l += NT) {
        const int kk = l % TK, rr = l / TK;
        const int i = i0 + rr, k = k0 + kk;
        As[kk][rr] = (i < M && k < K) ? (a[i * K + k]) : 0.0f;
      }
      // B tile: consecutive threads on j
      for (int l = t; l < TN * TK; l += NT) {
        const int qq = l % TN, kk = l / TN;
        const int j = j0 + qq, k = k0 + kk;
        Bs[kk][qq] = (j < N && k < K) ? (b[k * N + j]) : 0.0f;
      }
      __syncthreads();
      const int kn = min(TK, K - k0);
      if (kn == TK) {
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
          float ar[RM], br[RN];
#pragma unroll
          for (int r = 0; r < RM; r++) ar[r] = CONTIG ? As[kk][ty * RM + r] : As[kk][ty + TY * r];
#pragma unroll
          for (int q = 0; q < RN; q++) br[q] = CONTIG ? Bs[kk][tx * RN + q] : Bs[kk][tx + TX * q];
#pragma unroll
          for (int r = 0; r < RM; r++)
#pragma unroll
            for (int q = 0; q < RN; q++)
              acc[r][q] += ar[r] * br[q];
        }
      } else {
        for (int kk = 0; kk < kn; kk++) {
#pragma unroll
          for (int r = 0; r < RM; r++)
#pragma unroll
            for (int q = 0; q < RN; q++)
              acc[r][q] += (CONTIG ? As[kk][ty * RM + r] : As[kk][ty + TY * r]) *
                           (CONTIG ? Bs[kk][tx * RN + q] : Bs[kk][tx + TX * q]);
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RM; r++)
#pragma unroll
      for (int q = 0; q < RN; q++) {
        const int i = i0 + (CONTIG ? ty * RM + r : ty + TY * r),
                  j = j0 + (CONTIG ? tx * RN + q : tx + TX * q);
        if (i < iEnd && j < jEnd && i < M && j < N) {
          float sum = acc[r][q];
          c[i * N + j] = alpha * sum + beta * c[i * N + j];
        }
      }
  }
}


// The same with the next k-tile prefetched into registers while the current
// one is multiplied (two shared buffers, one barrier per k-tile).
template <int NT, int TX, int TM, int TN, int TK, bool CONTIG>
__global__ void __launch_bounds__(NT)
    tiledpf(int M, int N, int K, float alpha, float beta, const float *a, const float *b,
            float *c) {
  constexpr int TY = NT / TX, RM = TM / TY, RN = TN / TX;
  constexpr int LA = TM * TK / NT, LB = TN * TK / NT;
  __shared__ __align__(16) float As[2][TK][TM + (CONTIG ? 4 : 1)];
  __shared__ __align__(16) float Bs[2][TK][TN];
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int tx = t % TX, ty = t / TX;
  const long iEnd = min((long)M, (long)gridDim.y * blockDim.y);
  const long jEnd = min((long)N, (long)gridDim.x * blockDim.x);
  const int tilesJ = (int)((jEnd + TN - 1) / TN);
  const int tiles = (int)((iEnd + TM - 1) / TM) * tilesJ;
  for (int tile = blockIdx.x + gridDim.x * blockIdx.y; tile < tiles;
       tile += gridDim.x * gridDim.y) {
    const int i0 = (tile / tilesJ) * TM, j0 = (tile % tilesJ) * TN;
    float acc[RM][RN];
#pragma unroll
    for (int r = 0; r < RM; r++)
#pragma unroll
      for (int q = 0; q < RN; q++)
        acc[r][q] = 0.0f;
    float ra[LA], rb[LB];
    auto fetch = [&](int k0) {
#pragma unroll
      for (int u = 0; u < LA; u++) {
        const int l = t + NT * u, kk = l % TK, rr = l / TK;
        const int i = i0 + rr, k = k0 + kk;
        ra[u] = (i < M && k < K) ? (a[i * K + k]) : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < LB; u++) {
        const int l = t + NT * u, qq = l % TN, kk = l / TN;
        const int j = j0 + qq, k = k0 + kk;
        rb[u] = (j < N && k < K) ? (b[k * N + j]) : 0.0f;
      }
    };
    auto put = [&](int buf) {
#pragma unroll
      for (int u = 0; u < LA; u++) {
        const int l = t + NT * u;
        As[buf][l % TK][l / TK] = ra[u];
      }
#pragma unroll
      for (int u = 0; u < LB; u++) {
        const int l = t + NT * u;
        Bs[buf][l / TN][l % TN] = rb[u];
      }
    };
    fetch(0);
    put(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += TK) {
      const bool more = k0 + TK < K;
      if (more) fetch(k0 + TK);
      const int kn = min(TK, K - k0);
      if (kn == TK) {
#pragma unroll
        for (int kk = 0; kk < TK; kk++) {
          float ar[RM], br[RN];
#pragma unroll
          for (int r = 0; r < RM; r++)
            ar[r] = CONTIG ? As[buf][kk][ty * RM + r] : As[buf][kk][ty + TY * r];
#pragma unroll
          for (int q = 0; q < RN; q++)
            br[q] = CONTIG ? Bs[buf][kk][tx * RN + q] : Bs[buf][kk][tx + TX * q];
#pragma unroll
          for (int r = 0; r < RM; r++)
#pragma unroll
            for (int q = 0; q < RN; q++)
              acc[r][q] += ar[r] * br[q];
        }
      } else {
        for (int kk = 0; kk < kn; kk++) {
#pragma unroll
          for (int r = 0; r < RM; r++)
#pragma unroll
            for (int q = 0; q < RN; q++)
              acc[r][q] += (CONTIG ? As[buf][kk][ty * RM + r] : As[buf][kk][ty + TY * r]) *
                           (CONTIG ? Bs[buf][kk][tx * RN + q] : Bs[buf][kk][tx + TX * q]);
        }
      }
      if (more) put(buf ^ 1);
      __syncthreads();
      buf ^= 1;
    }
#pragma unroll
    for (int r = 0; r < RM; r++)
#pragma unroll
      for (int q = 0; q < RN; q++) {
        const int i = i0 + (CONTIG ? ty * RM + r : ty + TY * r),
                  j = j0 + (CONTIG ? tx * RN + q : tx + TX * q);
        if (i < iEnd && j < jEnd && i < M && j < N) {
          float sum = acc[r][q];
          c[i * N + j] = alpha * sum + beta * c[i * N + j];
        }
      }
  }
}

static float *dev_random(size_t n, unsigned seed) {
  std::vector<float> h(n);
  unsigned long long s = seed * 6364136223846793005ULL + 1;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    h[i] = (float)((s >> 40) / 16777216.0) - 0.5f;
  }
  float *d;
  OK(cudaMalloc(&d, n * 4));
  OK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  return d;
}

template <typename F> static float median_ms(F launch, int reps = 15) {
  cudaEvent_t s, e;
  OK(cudaEventCreate(&s));
  OK(cudaEventCreate(&e));
  for (int w = 0; w < 2; w++) launch();
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    OK(cudaEventRecord(s));
    launch();
    OK(cudaEventRecord(e));
    OK(cudaEventSynchronize(e));
    float ms;
    OK(cudaEventElapsedTime(&ms, s, e));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Cfg {
  const char *name;
  void (*k)(int, int, int, float, float, const float *, const float *, float *);
  int nt; // threads per block it is compiled for
};

int main() {
  const int sizes[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                          {1000, 1020, 999},  {512, 4096, 1024}};
  Cfg cfgs[] = {
      {"64x64x16 4x4 contig", tiled<256, 16, 64, 64, 16, true>, 256},
      {"128x128x16 8x8 strided", tiled<256, 16, 128, 128, 16>, 256},
      {"pf 64x64x16 4x4 contig", tiledpf<256, 16, 64, 64, 16, true>, 256},
      {"pf 64x64x16 4x4 strided", tiledpf<256, 16, 64, 64, 16, false>, 256},
      {"pf 64x64x32 4x4 contig", tiledpf<256, 16, 64, 64, 32, true>, 256},
      {"pf 128x128x16 8x8 strided", tiledpf<256, 16, 128, 128, 16, false>, 256},
      {"pf 128x128x8 8x8 strided", tiledpf<256, 16, 128, 128, 8, false>, 256},
      {"pf 128x64x16 8x4 contig", tiledpf<256, 16, 128, 64, 16, true>, 256},
      {"pf 128x64x16 8x4 strided", tiledpf<256, 16, 128, 64, 16, false>, 256},
      {"pf NT128 16x8 64x64x16 8x4 contig", tiledpf<128, 16, 64, 64, 16, true>, 128},
      {"pf NT1024 32x32 128x128x16 4x4 contig", tiledpf<1024, 32, 128, 128, 16, true>, 1024},
  };

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  cudaDeviceProp p;
  OK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s\n", p.name);
  for (auto &sz : sizes) {
    const int M = sz[0], N = sz[1], K = sz[2];
    float *a = dev_random((size_t)M * K, 1), *b = dev_random((size_t)K * N, 2);
    float *c0 = dev_random((size_t)M * N, 3), *c = nullptr, *ref = nullptr;
    OK(cudaMalloc(&c, (size_t)M * N * 4));
    OK(cudaMalloc(&ref, (size_t)M * N * 4));
    const float alpha = 1.5f, beta = 0.5f;
    const double flop = 2.0 * M * N * K;
    // the original's launch: 32x8 blocks, ceil grid
    for (int bs = 0; bs < 2; bs++) {
      dim3 block = bs == 0 ? dim3(32, 8) : dim3(16, 16);
      dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
      OK(cudaMemcpy(ref, c0, (size_t)M * N * 4, cudaMemcpyDeviceToDevice));
      naive<<<grid, block>>>(M, N, K, alpha, beta, a, b, ref);
      OK(cudaDeviceSynchronize());
      float tn = median_ms([&] { naive<<<grid, block>>>(M, N, K, alpha, beta, a, b, c); });
      float beta0 = 0.0f;
      float tb = median_ms([&] {
        // row-major C = A B  is  column-major C^T = B^T A^T
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta0, c, N);
      });
      printf("\n%dx%dx%d block %dx%d: naive %.4f ms (%.0f GFLOP/s), cuBLAS %.4f ms (%.0f "
             "GFLOP/s)\n",
             M, N, K, block.x, block.y, tn, flop / tn / 1e6, tb, flop / tb / 1e6);
      std::vector<float> hr((size_t)M * N), hc((size_t)M * N);
      OK(cudaMemcpy(hr.data(), ref, hr.size() * 4, cudaMemcpyDeviceToHost));
      for (auto &cf : cfgs) {
        if (cf.nt != 256 && bs == 1) continue;
        // the launch of the original program, with a block of cf.nt threads
        dim3 blk = cf.nt == 256 ? block : cf.nt == 1024 ? dim3(32, 32) : dim3(16, 8);
        dim3 grd((N + blk.x - 1) / blk.x, (M + blk.y - 1) / blk.y);
        OK(cudaMemcpy(c, c0, (size_t)M * N * 4, cudaMemcpyDeviceToDevice));
        cf.k<<<grd, blk>>>(M, N, K, alpha, beta, a, b, c);
        OK(cudaGetLastError());
        OK(cudaDeviceSynchronize());
        OK(cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost));
        const bool same = memcmp(hr.data(), hc.data(), hr.size() * 4) == 0;
        float tt = median_ms([&] { cf.k<<<grd, blk>>>(M, N, K, alpha, beta, a, b, c); });
        printf("  %-32s %.4f ms  %6.0f GFLOP/s  %5.2fx naive  %.2fx cuBLAS time  %s\n", cf.name,
               tt, flop / tt / 1e6, tn / tt, tt / tb, same ? "bit-identical" : "DIFFERS");
      }
    }
    cudaFree(a); cudaFree(b); cudaFree(c0); cudaFree(c); cudaFree(ref);
  }
  return 0;
}
