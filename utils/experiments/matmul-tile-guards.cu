// matmul-tile-guards: what does the exactness of coalescing-matmul-tile's
// generated kernel cost on the H200, and which way of keeping it is cheapest?
// The generated kernel (utils/bench-structural/gen/matmul.rewritten.cu,
// kernel `matmul`, copied below as `gen`) guards every global load of a
// slice with the original guard and `k < K` and walks its tiles with 64-bit
// indices.  The template `tk` has the same structure with switches:
//   MODE 0  as generated (64-bit tile coordinates, per-load guards);
//   MODE 1  32-bit tile coordinates (rows/cols fit in the guard's type),
//           the row (column) part of each load's guard evaluated once per
//           tile into a bit mask;
//   MODE 2  MODE 1, and a slice whose last k passes `k < K` loads without
//           the k test (the mask alone).
// Every variant must be bit-identical to the naive kernel (same products,
// same order); each is timed against it and cuBLAS SGEMM (fp32, no TF32).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/mtg utils/experiments/matmul-tile-guards.cu -lcublas
//   NVIDIA_TF32_OVERRIDE=0 /tmp/mtg
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

__global__ void naive(const float *A, const float *B, float *C, int M, int N, int K,
                      float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
  }
}

// ---- the rule's output today (fast path only; launched with 256 threads) ----
__global__ void __launch_bounds__(256, 2) gen(const float *A, const float *B, float *C,
                                              int M, int N, int K, float alpha, float beta) {
  __shared__ __align__(16) float cudal1_As[2][32][64 + 4];
  __shared__ __align__(16) float cudal1_Bs[2][32][64 + 0];
  const int cudal1_t = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int cudal1_ty = cudal1_t / 16, cudal1_tx = cudal1_t % 16;
  long long cudal1_rows = (long long)gridDim.y * blockDim.y;
  if ((long long)(M) < cudal1_rows) cudal1_rows = (long long)(M);
  if (cudal1_rows < 0) cudal1_rows = 0;
  long long cudal1_cols = (long long)gridDim.x * blockDim.x;
  if ((long long)(N) < cudal1_cols) cudal1_cols = (long long)(N);
  if (cudal1_cols < 0) cudal1_cols = 0;
  const long long cudal1_tileCols = (cudal1_cols + 64 - 1) / 64;
  const long long cudal1_tiles = (cudal1_rows + 64 - 1) / 64 * cudal1_tileCols;
  for (long long cudal1_tile = blockIdx.x + (long long)gridDim.x * blockIdx.y;
       cudal1_tile < cudal1_tiles; cudal1_tile += (long long)gridDim.x * gridDim.y) {
    const long long cudal1_r0 = cudal1_tile / cudal1_tileCols * 64,
                    cudal1_c0 = cudal1_tile % cudal1_tileCols * 64;
    float cudal1_acc[4][4];
    int cudal1_any = 0;
#pragma unroll
    for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r) {
#pragma unroll
      for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c) {
        cudal1_acc[cudal1_r][cudal1_c] = 0;
        const long long cudal1_gi = cudal1_r0 + cudal1_ty * 4 + cudal1_r,
                        cudal1_gj = cudal1_c0 + cudal1_tx * 4 + cudal1_c;
        if (cudal1_gi < cudal1_rows && cudal1_gj < cudal1_cols) {
          const int row = (int)cudal1_gi;
          const int col = (int)cudal1_gj;
          if ((row < M && col < N)) {
            float sum = 0.0f;
            cudal1_acc[cudal1_r][cudal1_c] = sum;
            cudal1_any = 1;
          }
        }
      }
    }
    if (!__syncthreads_or(cudal1_any)) continue;
    float cudal1_ra[8];
    float cudal1_rb[8];
    {
      const int cudal1_k0 = 0;
#pragma unroll
      for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
        const int cudal1_e = cudal1_t + 256 * cudal1_u;
        const int cudal1_kk = cudal1_e % 32, cudal1_m = cudal1_e / 32;
        cudal1_ra[cudal1_u] = 0;
        if (cudal1_r0 + cudal1_m < cudal1_rows) {
          const int row = (int)(cudal1_r0 + cudal1_m);
          const int k = cudal1_k0 + cudal1_kk;
          if ((row < M) && k < K) cudal1_ra[cudal1_u] = A[row * K + k];
        }
      }
#pragma unroll
      for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
        const int cudal1_e = cudal1_t + 256 * cudal1_u;
        const int cudal1_kk = cudal1_e / 64, cudal1_m = cudal1_e % 64;
        cudal1_rb[cudal1_u] = 0;
        if (cudal1_c0 + cudal1_m < cudal1_cols) {
          const int col = (int)(cudal1_c0 + cudal1_m);
          const int k = cudal1_k0 + cudal1_kk;
          if ((col < N) && k < K) cudal1_rb[cudal1_u] = B[k * N + col];
        }
      }
    }
#pragma unroll
    for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
      const int cudal1_e = cudal1_t + 256 * cudal1_u;
      cudal1_As[0][cudal1_e % 32][cudal1_e / 32] = cudal1_ra[cudal1_u];
    }
#pragma unroll
    for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
      const int cudal1_e = cudal1_t + 256 * cudal1_u;
      cudal1_Bs[0][cudal1_e / 64][cudal1_e % 64] = cudal1_rb[cudal1_u];
    }
    __syncthreads();
    int cudal1_buf = 0;
    for (int cudal1_k0 = 0; cudal1_k0 < K; cudal1_k0 += 32) {
      const bool cudal1_more = (int)(cudal1_k0 + 32) < K;
      if (cudal1_more) {
#pragma unroll
        for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
          const int cudal1_e = cudal1_t + 256 * cudal1_u;
          const int cudal1_kk = cudal1_e % 32, cudal1_m = cudal1_e / 32;
          cudal1_ra[cudal1_u] = 0;
          if (cudal1_r0 + cudal1_m < cudal1_rows) {
            const int row = (int)(cudal1_r0 + cudal1_m);
            const int k = (cudal1_k0 + 32) + cudal1_kk;
            if ((row < M) && k < K) cudal1_ra[cudal1_u] = A[row * K + k];
          }
        }
#pragma unroll
        for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
          const int cudal1_e = cudal1_t + 256 * cudal1_u;
          const int cudal1_kk = cudal1_e / 64, cudal1_m = cudal1_e % 64;
          cudal1_rb[cudal1_u] = 0;
          if (cudal1_c0 + cudal1_m < cudal1_cols) {
            const int col = (int)(cudal1_c0 + cudal1_m);
            const int k = (cudal1_k0 + 32) + cudal1_kk;
            if ((col < N) && k < K) cudal1_rb[cudal1_u] = B[k * N + col];
          }
        }
      }
      if ((int)(cudal1_k0 + 31) < K) {
#pragma unroll
        for (int cudal1_kk = 0; cudal1_kk < 32; ++cudal1_kk) {
          float cudal1_a[4];
          float cudal1_b[4];
#pragma unroll
          for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r)
            cudal1_a[cudal1_r] = cudal1_As[cudal1_buf][cudal1_kk][cudal1_ty * 4 + cudal1_r];
#pragma unroll
          for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c)
            cudal1_b[cudal1_c] = cudal1_Bs[cudal1_buf][cudal1_kk][cudal1_tx * 4 + cudal1_c];
#pragma unroll
          for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r) {
#pragma unroll
            for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c)
              cudal1_acc[cudal1_r][cudal1_c] += cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
          }
        }
      } else {
        for (int cudal1_kk = 0; cudal1_kk < 32 && (int)(cudal1_k0 + cudal1_kk) < K; ++cudal1_kk) {
          float cudal1_a[4];
          float cudal1_b[4];
#pragma unroll
          for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r)
            cudal1_a[cudal1_r] = cudal1_As[cudal1_buf][cudal1_kk][cudal1_ty * 4 + cudal1_r];
#pragma unroll
          for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c)
            cudal1_b[cudal1_c] = cudal1_Bs[cudal1_buf][cudal1_kk][cudal1_tx * 4 + cudal1_c];
#pragma unroll
          for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r) {
#pragma unroll
            for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c)
              cudal1_acc[cudal1_r][cudal1_c] += cudal1_a[cudal1_r] * cudal1_b[cudal1_c];
          }
        }
      }
      if (cudal1_more) {
#pragma unroll
        for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
          const int cudal1_e = cudal1_t + 256 * cudal1_u;
          cudal1_As[1 - cudal1_buf][cudal1_e % 32][cudal1_e / 32] = cudal1_ra[cudal1_u];
        }
#pragma unroll
        for (int cudal1_u = 0; cudal1_u < 8; ++cudal1_u) {
          const int cudal1_e = cudal1_t + 256 * cudal1_u;
          cudal1_Bs[1 - cudal1_buf][cudal1_e / 64][cudal1_e % 64] = cudal1_rb[cudal1_u];
        }
      }
      __syncthreads();
      cudal1_buf = 1 - cudal1_buf;
    }
#pragma unroll
    for (int cudal1_r = 0; cudal1_r < 4; ++cudal1_r) {
#pragma unroll
      for (int cudal1_c = 0; cudal1_c < 4; ++cudal1_c) {
        const long long cudal1_gi = cudal1_r0 + cudal1_ty * 4 + cudal1_r,
                        cudal1_gj = cudal1_c0 + cudal1_tx * 4 + cudal1_c;
        if (cudal1_gi < cudal1_rows && cudal1_gj < cudal1_cols) {
          const int row = (int)cudal1_gi;
          const int col = (int)cudal1_gj;
          if ((row < M && col < N)) {
            float sum = cudal1_acc[cudal1_r][cudal1_c];
            C[row * N + col] = alpha * sum + beta * C[row * N + col];
          }
        }
      }
    }
  }
}

// ---- the same structure, templated: tile TM x TN x TK, RM x RN per thread ----
// C = row-type of the tile coordinates (long long: as generated; int: MODE>=1).
template <int NT, int TM, int TN, int TK, int MODE, int MINB>
__global__ void __launch_bounds__(NT, MINB)
    tk(const float *A, const float *B, float *C, int M, int N, int K, float alpha,
       float beta) {
  constexpr int TX = TN / 4 >= 16 ? 16 : TN / 4;  // threads along columns
  constexpr int TY = NT / TX, RM = TM / TY, RN = TN / TX;
  constexpr int LA = TM * TK / NT, LB = TN * TK / NT;
  static_assert(LA <= 32 && LB <= 32, "masks hold 32 loads");
  typedef typename std::conditional<MODE == 0, long long, int>::type Coord;
  __shared__ __align__(16) float As[2][TK][TM + 4];
  __shared__ __align__(16) float Bs[2][TK][TN];
  const int t = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int ty = t / TX, tx = t % TX;
  long long rowsL = (long long)gridDim.y * blockDim.y;
  if ((long long)M < rowsL) rowsL = M;
  if (rowsL < 0) rowsL = 0;
  long long colsL = (long long)gridDim.x * blockDim.x;
  if ((long long)N < colsL) colsL = N;
  if (colsL < 0) colsL = 0;
  // MODE >= 1: rows <= M and cols <= N fit the guard's type (int here).
  const Coord rows = (Coord)rowsL, cols = (Coord)colsL;
  const long long tileCols = (colsL + TN - 1) / TN;
  const long long tiles = (rowsL + TM - 1) / TM * tileCols;
  for (long long tile = blockIdx.x + (long long)gridDim.x * blockIdx.y; tile < tiles;
       tile += (long long)gridDim.x * gridDim.y) {
    const Coord r0 = (Coord)(tile / tileCols * TM), c0 = (Coord)(tile % tileCols * TN);
    float acc[RM][RN];
    int any = 0;
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int c = 0; c < RN; ++c) {
        acc[r][c] = 0;
        const Coord gi = r0 + ty * RM + r, gj = c0 + tx * RN + c;
        if (gi < rows && gj < cols) {
          const int row = (int)gi, col = (int)gj;
          if ((row < M && col < N)) {
            float sum = 0.0f;
            acc[r][c] = sum;
            any = 1;
          }
        }
      }
    if (!__syncthreads_or(any)) continue;
    // MODE >= 1: which of this thread's loads read a row (column) in use.
    unsigned maskA = 0, maskB = 0;
    if (MODE >= 1) {
#pragma unroll
      for (int u = 0; u < LA; ++u) {
        const int e = t + NT * u, m = e / TK;
        if (r0 + m < rows) {
          const int row = (int)(r0 + m);
          if ((row < M)) maskA |= 1u << u;
        }
      }
#pragma unroll
      for (int u = 0; u < LB; ++u) {
        const int e = t + NT * u, m = e % TN;
        if (c0 + m < cols) {
          const int col = (int)(c0 + m);
          if ((col < N)) maskB |= 1u << u;
        }
      }
    }
    float ra[LA], rb[LB];
    auto fetch = [&](int kb) {
      const bool full = MODE >= 2 && kb + (TK - 1) < K;  // every k of the slice passes
#pragma unroll
      for (int u = 0; u < LA; ++u) {
        const int e = t + NT * u, kk = e % TK, m = e / TK;
        ra[u] = 0;
        if (MODE == 0) {
          if (r0 + m < rows) {
            const int row = (int)(r0 + m);
            const int k = kb + kk;
            if ((row < M) && k < K) ra[u] = A[row * K + k];
          }
        } else if ((maskA >> u) & 1u) {
          const int row = (int)(r0 + m);
          const int k = kb + kk;
          if (full || k < K) ra[u] = A[row * K + k];
        }
      }
#pragma unroll
      for (int u = 0; u < LB; ++u) {
        const int e = t + NT * u, kk = e / TN, m = e % TN;
        rb[u] = 0;
        if (MODE == 0) {
          if (c0 + m < cols) {
            const int col = (int)(c0 + m);
            const int k = kb + kk;
            if ((col < N) && k < K) rb[u] = B[k * N + col];
          }
        } else if ((maskB >> u) & 1u) {
          const int col = (int)(c0 + m);
          const int k = kb + kk;
          if (full || k < K) rb[u] = B[k * N + col];
        }
      }
    };
    auto put = [&](int buf) {
#pragma unroll
      for (int u = 0; u < LA; ++u) {
        const int e = t + NT * u;
        As[buf][e % TK][e / TK] = ra[u];
      }
#pragma unroll
      for (int u = 0; u < LB; ++u) {
        const int e = t + NT * u;
        Bs[buf][e / TN][e % TN] = rb[u];
      }
    };
    fetch(0);
    put(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += TK) {
      const bool more = (int)(k0 + TK) < K;
      if (more) fetch(k0 + TK);
      if ((int)(k0 + TK - 1) < K) {
#pragma unroll
        for (int kk = 0; kk < TK; ++kk) {
          float a[RM], b[RN];
#pragma unroll
          for (int r = 0; r < RM; ++r) a[r] = As[buf][kk][ty * RM + r];
#pragma unroll
          for (int c = 0; c < RN; ++c) b[c] = Bs[buf][kk][tx * RN + c];
#pragma unroll
          for (int r = 0; r < RM; ++r)
#pragma unroll
            for (int c = 0; c < RN; ++c) acc[r][c] += a[r] * b[c];
        }
      } else {
        for (int kk = 0; kk < TK && (int)(k0 + kk) < K; ++kk) {
          float a[RM], b[RN];
#pragma unroll
          for (int r = 0; r < RM; ++r) a[r] = As[buf][kk][ty * RM + r];
#pragma unroll
          for (int c = 0; c < RN; ++c) b[c] = Bs[buf][kk][tx * RN + c];
#pragma unroll
          for (int r = 0; r < RM; ++r)
#pragma unroll
            for (int c = 0; c < RN; ++c) acc[r][c] += a[r] * b[c];
        }
      }
      if (more) put(1 - buf);
      __syncthreads();
      buf = 1 - buf;
    }
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int c = 0; c < RN; ++c) {
        const Coord gi = r0 + ty * RM + r, gj = c0 + tx * RN + c;
        if (gi < rows && gj < cols) {
          const int row = (int)gi, col = (int)gj;
          if ((row < M && col < N)) {
            float sum = acc[r][c];
            C[row * N + col] = alpha * sum + beta * C[row * N + col];
          }
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

template <typename F> static float median_ms(F launch, int reps) {
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

typedef void (*Kern)(const float *, const float *, float *, int, int, int, float, float);
struct Cfg {
  const char *name;
  Kern k;
};

int main() {
  const int sizes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {1000, 1020, 999},
                          {2048, 2048, 2048}};
  Cfg cfgs[] = {
      {"gen (the rule today)", gen},
      {"64x64x32 MODE0", tk<256, 64, 64, 32, 0, 2>},
      {"64x64x32 MODE1", tk<256, 64, 64, 32, 1, 2>},
      {"64x64x32 MODE2", tk<256, 64, 64, 32, 2, 2>},
      {"64x64x16 MODE2", tk<256, 64, 64, 16, 2, 2>},
      {"128x64x16 MODE2 (8x4)", tk<256, 128, 64, 16, 2, 1>},
      {"128x128x8 MODE2 (8x8)", tk<256, 128, 128, 8, 2, 1>},
      {"128x128x16 MODE2 (8x8)", tk<256, 128, 128, 16, 2, 1>},
      {"128x128x16 MODE0 (8x8)", tk<256, 128, 128, 16, 0, 1>},
  };
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  cudaDeviceProp p;
  OK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s\n", p.name);
  for (auto &sz : sizes) {
    const int M = sz[0], N = sz[1], K = sz[2];
    const int reps = M >= 4096 ? 10 : 30;
    float *a = dev_random((size_t)M * K, 1), *b = dev_random((size_t)K * N, 2);
    float *c0 = dev_random((size_t)M * N, 3), *c = nullptr, *ref = nullptr;
    OK(cudaMalloc(&c, (size_t)M * N * 4));
    OK(cudaMalloc(&ref, (size_t)M * N * 4));
    const float alpha = 1.5f, beta = 0.5f;
    const double flop = 2.0 * M * N * K;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    OK(cudaMemcpy(ref, c0, (size_t)M * N * 4, cudaMemcpyDeviceToDevice));
    naive<<<grid, block>>>(a, b, ref, M, N, K, alpha, beta);
    OK(cudaDeviceSynchronize());
    float tn = median_ms([&] { naive<<<grid, block>>>(a, b, c, M, N, K, alpha, beta); }, reps);
    float beta0 = 0.0f;
    float tb = median_ms([&] {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta0, c, N);
    }, reps);
    printf("\n%dx%dx%d (16x16 blocks): naive %.4f ms, cuBLAS %.4f ms (%.0f GFLOP/s)\n", M, N,
           K, tn, tb, flop / tb / 1e6);
    std::vector<float> hr((size_t)M * N), hc((size_t)M * N);
    OK(cudaMemcpy(hr.data(), ref, hr.size() * 4, cudaMemcpyDeviceToHost));
    for (auto &cf : cfgs) {
      OK(cudaMemcpy(c, c0, (size_t)M * N * 4, cudaMemcpyDeviceToDevice));
      cf.k<<<grid, block>>>(a, b, c, M, N, K, alpha, beta);
      OK(cudaGetLastError());
      OK(cudaDeviceSynchronize());
      OK(cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost));
      const bool same = memcmp(hr.data(), hc.data(), hr.size() * 4) == 0;
      float tt = median_ms([&] { cf.k<<<grid, block>>>(a, b, c, M, N, K, alpha, beta); }, reps);
      printf("  %-26s %.4f ms %6.0f GFLOP/s %6.2fx naive %5.2fx cuBLAS time  %s\n", cf.name, tt,
             flop / tt / 1e6, tn / tt, tt / tb, same ? "bit-identical" : "DIFFERS");
    }
    cudaFree(a); cudaFree(b); cudaFree(c0); cudaFree(c); cudaFree(ref);
  }
  return 0;
}
