// Experiment (not a test): shapes of the shared-memory staging that
// coalescing-smem-staging could generate for the row-walking matrix-vector
// product, launch unchanged (one thread per row, 256 threads per block).
// Build and run on a GPU: nvcc -O3 -arch=sm_90 staging-variants.cu && ./a.out
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__global__ void orig(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += A[row * N + k] * x[k];
    y[row] = sum;
  }
}

// What the rule generates today.
__global__ void v0(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = (row < M);
  __shared__ bool loads[256];
  loads[threadIdx.x] = active;
  float sum = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 32) {
    __shared__ float tile[256][33];
    __syncthreads();
    for (unsigned t = threadIdx.x; t < 256u * 32u; t += 256u) {
      const unsigned r = t / 32u;
      const int c = k0 + (int)(t % 32u);
      if (loads[r] && c < N)
        tile[r][t % 32u] = A[((int)(blockIdx.x * blockDim.x + r)) * N + c];
    }
    __syncthreads();
    if (active) {
      const int kend = k0 + 32 < N ? k0 + 32 : N;
      for (int k = k0; k < kend; ++k) sum += tile[threadIdx.x][k - k0] * x[k];
    }
  }
  if (active) y[row] = sum;
}

// Loads of one tile issued together (unrolled into registers), then stored.
template <int T>
__global__ void v1(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = (row < M);
  __shared__ float tile[256][T + 1];
  const int rowBase = blockIdx.x * 256;
  const int lane = threadIdx.x % T;
  const int r0 = threadIdx.x / T;
  float sum = 0.0f;
  for (int k0 = 0; k0 < N; k0 += T) {
    float v[T];
#pragma unroll
    for (int i = 0; i < T; ++i) {
      int r = r0 + i * (256 / T);
      int c = k0 + lane;
      v[i] = (rowBase + r < M && c < N) ? A[(rowBase + r) * N + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < T; ++i) tile[r0 + i * (256 / T)][lane] = v[i];
    __syncthreads();
    if (active) {
      const int kend = k0 + T < N ? k0 + T : N;
      for (int k = k0; k < kend; ++k) sum += tile[threadIdx.x][k - k0] * x[k];
    }
  }
  if (active) y[row] = sum;
}

// v1 plus the next tile's loads issued before this tile is consumed.
template <int T>
__global__ void v2(const float *A, const float *x, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = (row < M);
  __shared__ float tile[256][T + 1];
  const int rowBase = blockIdx.x * 256;
  const int lane = threadIdx.x % T;
  const int r0 = threadIdx.x / T;
  float sum = 0.0f;
  float v[T];
#pragma unroll
  for (int i = 0; i < T; ++i) {
    int r = r0 + i * (256 / T);
    v[i] = (rowBase + r < M && lane < N) ? A[(rowBase + r) * N + lane] : 0.0f;
  }
  for (int k0 = 0; k0 < N; k0 += T) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < T; ++i) tile[r0 + i * (256 / T)][lane] = v[i];
    __syncthreads();
    const int kn = k0 + T;
#pragma unroll
    for (int i = 0; i < T; ++i) {
      int r = r0 + i * (256 / T);
      int c = kn + lane;
      v[i] = (rowBase + r < M && c < N) ? A[(rowBase + r) * N + c] : 0.0f;
    }
    if (active) {
      const int kend = k0 + T < N ? k0 + T : N;
      for (int k = k0; k < kend; ++k) sum += tile[threadIdx.x][k - k0] * x[k];
    }
  }
  if (active) y[row] = sum;
}

__global__ void wpr(const float *A, const float *x, float *y, int M, int N) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  unsigned lane = threadIdx.x % 32u;
  if (row < M) {
    float sum = 0.0f;
    for (int k = lane; k < N; k += 32) sum += A[row * N + k] * x[k];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (lane == 0) y[row] = sum;
  }
}

typedef void (*K)(const float *, const float *, float *, int, int);

int main() {
  const int M = 4096, N = 4096;
  float *A, *x, *y, *flush;
  cudaMalloc(&A, sizeof(float) * M * N);
  cudaMalloc(&x, sizeof(float) * N);
  cudaMalloc(&y, sizeof(float) * M);
  cudaMalloc(&flush, 256 << 20);
  std::vector<float> hA((size_t)M * N), hx(N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = float((i * 7919) % 1000) / 1000.f - 0.5f;
  for (int i = 0; i < N; ++i) hx[i] = float((i * 31) % 100) / 100.f;
  cudaMemcpy(A, hA.data(), sizeof(float) * M * N, cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), sizeof(float) * N, cudaMemcpyHostToDevice);
  struct V { const char *name; K k; int grid; } vs[] = {
      {"orig", orig, 16},      {"v0 (today)", v0, 16},
      {"v1<32> unrolled", v1<32>, 16}, {"v1<16> unrolled", v1<16>, 16},
      {"v2<32> pipelined", v2<32>, 16}, {"v2<16> pipelined", v2<16>, 16},
      {"warp-per-row", wpr, 16 * 32}};
  std::vector<float> ref(M), got(M);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  double base = 0;
  for (auto &v : vs) {
    std::vector<float> t;
    for (int s = 0; s < 23; ++s) {
      cudaMemset(flush, s, 256 << 20);
      cudaMemset(y, 0xff, sizeof(float) * M);
      cudaEventRecord(e0);
      v.k<<<v.grid, 256>>>(A, x, y, M, N);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (s >= 3) t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    double med = t[t.size() / 2];
    cudaMemcpy(got.data(), y, sizeof(float) * M, cudaMemcpyDeviceToHost);
    if (&v == vs) { ref = got; base = med; }
    int diff = 0;
    for (int i = 0; i < M; ++i) diff += got[i] != ref[i];
    printf("%-20s %9.1f us  %6.2fx  (%d of %d outputs differ bitwise from orig) %s\n",
           v.name, med, base / med, diff, M, cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
