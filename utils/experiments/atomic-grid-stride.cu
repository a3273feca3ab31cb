// Experiment: per-thread atomic reductions after sync-warp-atomic-reduction
// still do one global atomic per block (65536 blocks of 256 threads for 16M
// elements), all on one address. Compared here: the warp-shuffle kernels as
// the rule writes them today, and the same kernels where only the first
// CAP blocks work, each over the virtual blocks blockIdx.x + k * CAP of the
// unchanged launch (the other blocks return at once), with and without an
// unrolled loop; and, as the bound, the same with a launch of CAP blocks.
// The maximum must equal the original's bit for bit; the sum (atomic order
// is nondeterministic anyway) is printed with its error against double.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define N (16 * 1024 * 1024)
#define B 256
#define REPS 20

__global__ void max_orig(const float *__restrict__ x, int *__restrict__ m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(m, __float_as_int(x[i]));
}

__device__ __forceinline__ int warp_max(int v) {
  for (int o = 16; o > 0; o >>= 1) { int t = __shfl_down_sync(0xffffffffu, v, o); if (t > v) v = t; }
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ void block_max_atomic(int v, int *m) {
  __shared__ int w[32];
  v = warp_max(v);
  if ((threadIdx.x & 31u) == 0u) w[threadIdx.x >> 5] = v;
  __syncthreads();
  if ((threadIdx.x >> 5) == 0u) {
    v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? w[threadIdx.x & 31u] : (int)(-2147483647 - 1);
    v = warp_max(v);
    if ((threadIdx.x & 31u) == 0u) atomicMax(m, v);
  }
}

// today's rewrite
__global__ void max_warp(const float *__restrict__ x, int *__restrict__ m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (i < n) ? __float_as_int(x[i]) : (int)(-2147483647 - 1);
  block_max_atomic(v, m);
}

// first cap blocks work over the virtual blocks of the unchanged launch
template <int U>
__global__ void max_gs(const float *__restrict__ x, int *__restrict__ m, int n, unsigned cap) {
  unsigned stride = gridDim.x < cap ? gridDim.x : cap;
  if (blockIdx.x >= stride) return;
  int v = (int)(-2147483647 - 1);
#pragma unroll U
  for (unsigned vb = blockIdx.x; vb < gridDim.x; vb += stride) {
    int i = vb * blockDim.x + threadIdx.x;
    if (i < n) { int t = __float_as_int(x[i]); if (t > v) v = t; }
  }
  block_max_atomic(v, m);
}

// bound: launched with cap blocks, the original grid passed in
__global__ void max_shrunk(const float *__restrict__ x, int *__restrict__ m, int n, unsigned g) {
  int v = (int)(-2147483647 - 1);
#pragma unroll 4
  for (unsigned vb = blockIdx.x; vb < g; vb += gridDim.x) {
    int i = vb * blockDim.x + threadIdx.x;
    if (i < n) { int t = __float_as_int(x[i]); if (t > v) v = t; }
  }
  block_max_atomic(v, m);
}

__global__ void sum_orig(const float *__restrict__ x, float *__restrict__ sum, int n) {
  __shared__ float bs;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) bs = 0;
  __syncthreads();
  if (i < n) atomicAdd(&bs, x[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(sum, bs);
}

__global__ void sum_warp(const float *__restrict__ x, float *__restrict__ sum, int n) {
  __shared__ float bs;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) bs = 0;
  __syncthreads();
  float v = warp_sum((i < n) ? x[i] : 0.0f);
  if ((threadIdx.x & 31u) == 0u) atomicAdd(&bs, v);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(sum, bs);
}

template <int U>
__global__ void sum_gs(const float *__restrict__ x, float *__restrict__ sum, int n, unsigned cap) {
  unsigned stride = gridDim.x < cap ? gridDim.x : cap;
  if (blockIdx.x >= stride) return;
  __shared__ float bs;
  if (threadIdx.x == 0) bs = 0;
  __syncthreads();
  float v = 0.0f;
#pragma unroll U
  for (unsigned vb = blockIdx.x; vb < gridDim.x; vb += stride) {
    int i = vb * blockDim.x + threadIdx.x;
    if (i < n) v += x[i];
  }
  v = warp_sum(v);
  if ((threadIdx.x & 31u) == 0u) atomicAdd(&bs, v);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(sum, bs);
}

template <typename F> float timeit(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaEventRecord(a);
  for (int i = 0; i < REPS; i++) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms;
  cudaEventElapsedTime(&ms, a, b);
  return ms * 1000 / REPS;
}

int main() {
  int n = N;
  float *h = (float *)malloc(sizeof(float) * n);
  double ref = 0;
  float hmax = 0;
  srand(31);
  for (int i = 0; i < n; i++) { h[i] = (float)rand() / RAND_MAX; ref += h[i]; if (h[i] > hmax) hmax = h[i]; }
  float *x, *s;
  int *m;
  CK(cudaMalloc(&x, sizeof(float) * n));
  CK(cudaMalloc(&s, sizeof(float)));
  CK(cudaMalloc(&m, sizeof(int)));
  CK(cudaMemcpy(x, h, sizeof(float) * n, cudaMemcpyHostToDevice));
  unsigned g = (n + B - 1) / B;
  int bad = 0;
  auto MaxRun = [&](const char *name, float t0, auto launch) {
    float t = timeit([&] { cudaMemsetAsync(m, 0, 4); launch(); });
    int r;
    CK(cudaMemcpy(&r, m, 4, cudaMemcpyDeviceToHost));
    float rf;
    memcpy(&rf, &r, 4);
    bool ok = rf == hmax;
    bad += !ok;
    printf("  max %-28s %8.1f us  %5.2fx  %s\n", name, t, t0 > 0 ? t0 / t : 1.0, ok ? "exact" : "WRONG");
    return t;
  };
  auto SumRun = [&](const char *name, float t0, auto launch) {
    float t = timeit([&] { cudaMemsetAsync(s, 0, 4); launch(); });
    float r;
    CK(cudaMemcpy(&r, s, 4, cudaMemcpyDeviceToHost));
    double rel = fabs(r - ref) / ref;
    bad += rel > 1e-4;
    printf("  sum %-28s %8.1f us  %5.2fx  rel err %.2e\n", name, t, t0 > 0 ? t0 / t : 1.0, rel);
    return t;
  };
  printf("16M floats, %u blocks of %d (copy-free read of 64 MiB)\n", g, B);
  float m0 = MaxRun("original", 0, [&] { max_orig<<<g, B>>>(x, m, n); });
  MaxRun("warp (today)", m0, [&] { max_warp<<<g, B>>>(x, m, n); });
  for (unsigned cap : {1024u, 2048u, 4096u, 8192u}) {
    char nm[64];
    snprintf(nm, 64, "first %u blocks, unroll 1", cap);
    MaxRun(nm, m0, [&] { max_gs<1><<<g, B>>>(x, m, n, cap); });
    snprintf(nm, 64, "first %u blocks, unroll 4", cap);
    MaxRun(nm, m0, [&] { max_gs<4><<<g, B>>>(x, m, n, cap); });
    snprintf(nm, 64, "launch of %u blocks", cap);
    MaxRun(nm, m0, [&] { max_shrunk<<<cap, B>>>(x, m, n, g); });
  }
  float s0 = SumRun("original", 0, [&] { sum_orig<<<g, B>>>(x, s, n); });
  SumRun("warp (today)", s0, [&] { sum_warp<<<g, B>>>(x, s, n); });
  for (unsigned cap : {1024u, 2048u, 4096u, 8192u}) {
    char nm[64];
    snprintf(nm, 64, "first %u blocks, unroll 1", cap);
    SumRun(nm, s0, [&] { sum_gs<1><<<g, B>>>(x, s, n, cap); });
    snprintf(nm, 64, "first %u blocks, unroll 4", cap);
    SumRun(nm, s0, [&] { sum_gs<4><<<g, B>>>(x, s, n, cap); });
  }
  // an empty launch of g blocks: what the returning blocks cost
  printf("  empty grid of %u blocks: %.1f us\n", g, timeit([&] { max_gs<1><<<g, B>>>(x, m, 0, 0); }));
  printf(bad ? "FAIL\n" : "PASS\n");
  return bad != 0;
}
