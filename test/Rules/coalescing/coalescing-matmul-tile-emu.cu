// coalescing-matmul-tile is exact: the original and the rewritten kernels,
// run on the CPU emulation (utils/bench/cuemu), give the same bits, for
// odd sizes (partial tiles, a partial last k slice), grids larger and
// smaller than the matrix, every fast-path block size the launches pick
// (64 to 1024 threads), and block shapes that take the fallback. The
// pointers are __restrict__: the buffers come from a helper.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  coalescing-matmul-tile.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=APPLIED %s
// APPLIED: applied 9 fixes in 1 file
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// The same with 128x128 tiles, 8 deep, 8x8 outputs per thread for the
// 256-thread kernels (option Tile256), 4x4 for the others: still exact.
// RUN: cp %s %t/t8.cu
// RUN: printf 'CheckOptions:\n  coalescing-matmul-tile.MeasureFirst: false\n  coalescing-matmul-tile.Tile256: "128x128x8/8x8"\n' > %t/config8.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config8.yaml --fix --allow-unverified %t/t8.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=APPLIED %s
// RUN: grep -c 'cudal1_As\[2\]\[8\]\[128 + ' %t/t8.cu | FileCheck --check-prefix=TILE8 %s
// TILE8: 5
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new8 %t/t8.cu
// RUN: %t/new8 > %t/new8.txt
// RUN: diff %t/orig.txt %t/new8.txt
// RUNS: gemm_ab 16x16
// RUNS: gemm_ab 8x8 (fallback)
// RUNS: gemm_ab grid larger
// RUNS: gemm_ab grid smaller
// RUNS: gemm_xy_at 32x8
// RUNS: gemm_bt 8x16
// RUNS: syrk_lower 32x32
// RUNS: gemm_k1 4x16
// RUNS: syr2k_lower 32x8
// RUNS: syr2k_lower grid smaller
// RUNS: gemm_two_layouts 16x8
// RUNS: gemm_block_swapped 8x32
// RUNS: gemm_dbl 16x16
// RUNS: done
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void gemm_ab(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                        int N, int K, float alpha, float beta) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += alpha * A[i * K + k] * B[k * N + j];
    C[i * N + j] = sum + beta * C[i * N + j];
  }
}

__global__ void gemm_xy_at(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                           int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; k++)
    acc += A[k * M + i] * B[k * N + j];
  C[i * N + j] = acc;
}

__global__ void gemm_bt(const float *__restrict__ A,
                        const float *__restrict__ B, float *__restrict__ C,
                        int M, int N, int K) {
  int j = threadIdx.x + blockIdx.x * blockDim.x;
  int i = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < M && j < N) {
    float sum = 1.0f;
    for (int k = 0; k < K; ++k)
      sum = sum + A[i * K + k] * B[j * K + k];
    C[i * N + j] = sum;
  }
}

__global__ void syrk_lower(const float *__restrict__ A, float *__restrict__ S, int n, int m,
                           float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j <= i) {
    float s = S[i * n + j];
    for (int k = 0; k < m; k++)
      s += alpha * A[i * m + k] * A[j * m + k];
    S[i * n + j] = s;
  }
}

// k from 1, the output column-major (i contiguous), 64 threads.
__global__ void gemm_k1(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
                        int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float sum = 0.0f;
    for (int k = 1; k < K; ++k)
      sum += A[i * K + k] * B[k * N + j];
    C[j * M + i] = sum;
  }
}

__global__ void gemm_dbl(const double *__restrict__ A, const double *__restrict__ B, double *__restrict__ C, int M,
                         int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    double sum = 0;
    for (int k = 0; k < K; ++k)
      sum += A[i * K + k] * B[k * N + j];
    C[i * N + j] = sum;
  }
}

// A sum of two products over k (syr2k, the lower triangle): four operands,
// two rows of each index, each staged in its own tile.
__global__ void syr2k_lower(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                            int n, int m, float alpha, float beta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < n) && (j < n) && (j <= i)) {
    float c = C[i * n + j] * beta;
    for (int k = 0; k < m; k++)
      c += alpha * A[j * m + k] * B[i * m + k] + alpha * B[j * m + k] * A[i * m + k];
    C[i * n + j] = c;
  }
}

// Two row operands read along k and along i (two load layouts: two masks
// on the row side), one column operand read twice (one tile), 128 threads.
__global__ void gemm_two_layouts(const float *__restrict__ A, const float *__restrict__ At,
                                 const float *__restrict__ B, float *__restrict__ C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
      s += A[i * K + k] * B[k * N + j] - At[k * M + i] * B[k * N + j];
    C[i * N + j] = s;
  }
}

// After a block-only thread-mapping swap (blockIdx.x with threadIdx.y):
// the tiles walk the grid by blockIdx, the threads by their linear index.
// The launch's block `dim3((b).y, (b).x, (b).z)` is evaluated to 8x32
// (256 threads: __launch_bounds__(256, 2)).
__global__ void gemm_block_swapped(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int M, int N, int K) {
  int i = blockIdx.x * blockDim.y + threadIdx.y;
  int j = blockIdx.y * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
      s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
// RUN: grep -v '^//' %t/t.cu | grep -c '__launch_bounds__(256, 2) gemm_block_swapped' | FileCheck --check-prefix=SWAPPED %s
// SWAPPED: 1

static unsigned long long hashBytes(const void *P, size_t N) {
  const unsigned char *B = (const unsigned char *)P;
  unsigned long long H = 1469598103934665603ull;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 1099511628211ull;
  return H;
}

template <typename T> static T *upload(size_t N, unsigned Seed) {
  T *H = new T[N], *D;
  unsigned long long S = Seed;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    H[I] = T((S >> 40) % 2001) / T(1000) - T(1);
  }
  cudaMalloc((void **)&D, N * sizeof(T));
  cudaMemcpy(D, H, N * sizeof(T), cudaMemcpyHostToDevice);
  delete[] H;
  return D;
}

template <typename T>
static void report(const char *What, T *D, const T *Init, size_t N) {
  T *H = new T[N];
  cudaMemcpy(H, D, N * sizeof(T), cudaMemcpyDeviceToHost);
  printf("%s: %016llx\n", What, hashBytes(H, N * sizeof(T)));
  if (Init) // restore the output for the next run
    cudaMemcpy(D, Init, N * sizeof(T), cudaMemcpyDeviceToDevice);
  delete[] H;
}

int main() {
  const int M = 37, N = 45, K = 29;
  float *A = upload<float>(M * K > N * K ? M * K : N * K, 1);
  float *B = upload<float>(K * N > K * M ? K * N : K * M, 2);
  float *C0 = upload<float>(N * N, 3);
  float *C;
  cudaMalloc((void **)&C, N * N * sizeof(float));
  cudaMemcpy(C, C0, N * N * sizeof(float), cudaMemcpyDeviceToDevice);
  gemm_ab<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, 1.5f, 0.5f);
  report("gemm_ab 16x16", C, C0, N * N);
  gemm_ab<<<dim3((N + 7) / 8, (M + 7) / 8), dim3(8, 8)>>>(A, B, C, M, N, K, 1.5f, 0.5f);
  report("gemm_ab 8x8 (fallback)", C, C0, N * N);
  gemm_ab<<<dim3(5, 4), dim3(16, 16)>>>(A, B, C, M, N, K, 1.5f, 0.5f);
  report("gemm_ab grid larger", C, C0, N * N);
  gemm_ab<<<dim3(2, 1), dim3(16, 16)>>>(A, B, C, M, N, K, 1.5f, 0.5f);
  report("gemm_ab grid smaller", C, C0, N * N);
  gemm_xy_at<<<dim3((M + 31) / 32, (N + 7) / 8), dim3(32, 8)>>>(A, B, C, M, N, K);
  report("gemm_xy_at 32x8", C, C0, N * N);
  gemm_bt<<<dim3((N + 7) / 8, (M + 15) / 16), dim3(8, 16)>>>(A, B, C, M, N, K);
  report("gemm_bt 8x16", C, C0, N * N);
  syrk_lower<<<dim3((N + 31) / 32, (N + 31) / 32), dim3(32, 32)>>>(A, C, N, K, 2.0f);
  report("syrk_lower 32x32", C, C0, N * N);
  gemm_k1<<<dim3((M + 3) / 4, (N + 15) / 16), dim3(4, 16)>>>(A, B, C, M, N, K);
  report("gemm_k1 4x16", C, C0, N * N);
  syr2k_lower<<<dim3((N + 31) / 32, (N + 7) / 8), dim3(32, 8)>>>(A, B, C, N, K, 1.5f, 0.5f);
  report("syr2k_lower 32x8", C, C0, N * N);
  syr2k_lower<<<dim3(1, 2), dim3(32, 8)>>>(A, B, C, N, K, 1.5f, 0.5f);
  report("syr2k_lower grid smaller", C, C0, N * N);
  gemm_two_layouts<<<dim3((N + 15) / 16, (M + 7) / 8), dim3(16, 8)>>>(A, A, B, C, M, N, K);
  report("gemm_two_layouts 16x8", C, C0, N * N);
  dim3 b(32, 8);
  gemm_block_swapped<<<dim3((M + 31) / 32, (N + 7) / 8), dim3((b).y, (b).x, (b).z)>>>(A, B, C, M, N, K);
  report("gemm_block_swapped 8x32", C, C0, N * N);
  double *dA = upload<double>(M * K, 4), *dB = upload<double>(K * N, 5),
         *dC = upload<double>(M * N, 6);
  gemm_dbl<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(dA, dB, dC, M, N, K);
  report<double>("gemm_dbl 16x16", dC, nullptr, M * N);
  printf("done\n");
  return 0;
}
