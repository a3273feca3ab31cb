// Experiment: does sync-warp-atomic-reduction's block reduction pay when
// each thread first runs a loop of its own (a sparse row, a random walk, a
// dot product) and then adds one value to a single address?
//
// The grid's atomics on one address queue in the L2 slice that owns it (the
// compiler already merges a warp's into one), so the queue holds about one
// update per warp; the rule's fix leaves one per block. Each thread's loop
// of T iterations runs while other warps' atomics drain. Timed here, per T,
// the original (one atomicAdd per thread after its loop) against the rule's
// rewrite (warp shuffle, shared memory, one atomicAdd per block), for three
// loops:
//   col   x[j * N + i]: the warp reads one coalesced row per iteration;
//   row   x[i * T + j]: each thread walks its own row (a CSR row, a
//         per-thread dot product), 32 sectors per warp request;
//   rng   registers only: a xorshift walk of T steps (Monte Carlo), and an
//         integer count of the walks that end above a threshold.
// Then, one element per thread and no loop, the same comparison per atomic
// kind: float and double sums, an integer sum of distinct values, an
// integer count (the value 1) and an integer maximum (is a warp's integer
// update merged into one, as docs/rules/sync-warp-atomic-reduction.md's
// atomicMax measurement suggests, and a floating-point one not?). Session
// 38 ran the loops (docs/gpu-runs/2026-12-05-session38); this part was
// written after. Last, session 46: the rng walk with only the integer count
// of the walks that end above a threshold (`if (hit) atomicAdd(count, 1)`:
// feynman-kac's, gd's and mr's counts after a loop), for T up to 4096.
// Build: nvcc -O3 -arch=sm_90 atomic-after-loop.cu -o atomic-after-loop
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static const int N = 1 << 20;  // threads: 4096 blocks of 256
static const int B = 256;
static const int REPS = 15;

template <class V> __device__ __forceinline__ V warp_add(V v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
template <class V> __device__ __forceinline__ V warp_max(V v) {
  for (int o = 16; o > 0; o >>= 1) { V t = __shfl_down_sync(0xffffffffu, v, o); if (t > v) v = t; }
  return v;
}
// The rule's rewrite: a warp shuffle, the warps' results in shared memory,
// one atomic per block. Kind: 0 add, 1 max.
template <class V, int Kind = 0>
__device__ __forceinline__ void block_atomic(V v, V *out) {
  __shared__ V w[32];
  v = Kind == 0 ? warp_add(v) : warp_max(v);
  if ((threadIdx.x & 31u) == 0u) w[threadIdx.x >> 5] = v;
  __syncthreads();
  if ((threadIdx.x >> 5) == 0u) {
    v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? w[threadIdx.x & 31u] : (V)0;
    v = Kind == 0 ? warp_add(v) : warp_max(v);
    if ((threadIdx.x & 31u) == 0u) { if constexpr (Kind == 0) atomicAdd(out, v); else atomicMax(out, v); }
  }
}

template <bool Fix>
__global__ void col_loop(const float *__restrict__ x, float *__restrict__ out, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  if (i < n)
    for (int j = 0; j < T; ++j) acc += x[(size_t)j * n + i];
  if (Fix) block_atomic(i < n ? acc : 0.0f, out);
  else if (i < n) atomicAdd(out, acc);
}

template <bool Fix>
__global__ void row_loop(const float *__restrict__ x, float *__restrict__ out, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  if (i < n)
    for (int j = 0; j < T; ++j) acc += x[(size_t)i * T + j];
  if (Fix) block_atomic(i < n ? acc : 0.0f, out);
  else if (i < n) atomicAdd(out, acc);
}

template <bool Fix>
__global__ void rng_loop(float *__restrict__ out, int *__restrict__ count, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float pos = 0.0f;
  unsigned s = 2463534242u ^ (unsigned)i * 2654435761u;
  if (i < n)
    for (int j = 0; j < T; ++j) {
      s ^= s << 13; s ^= s >> 17; s ^= s << 5;
      pos += (s & 1u) ? 1.0f : -1.0f;
    }
  int hit = (i < n && pos > 0.0f) ? 1 : 0;
  if (Fix) {
    block_atomic(i < n ? pos * pos : 0.0f, out);
    block_atomic(hit, count);
  } else if (i < n) {
    atomicAdd(out, pos * pos);
    if (hit) atomicAdd(count, 1);
  }
}

// The walk with only the integer count (no float sum).
template <bool Fix>
__global__ void rng_count(int *__restrict__ count, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int pos = 0;
  unsigned s = 2463534242u ^ (unsigned)i * 2654435761u;
  if (i < n)
    for (int j = 0; j < T; ++j) {
      s ^= s << 13; s ^= s >> 17; s ^= s << 5;
      pos += (s & 1u) ? 1 : -1;
    }
  int hit = (i < n && pos > 0) ? 1 : 0;
  if (Fix)
    block_atomic(hit, count);
  else if (hit)
    atomicAdd(count, 1);
}

// One element per thread; Fix: block reduction first.
template <class V, int Kind, bool Fix>
__global__ void one_each(const float *__restrict__ x, V *__restrict__ out, int n, int ones) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  V v = i < n ? (ones ? (V)1 : (V)(x[i] * 1000.0f)) : (V)0;
  if (!Fix) {
    if (i < n) { if constexpr (Kind == 0) atomicAdd(out, v); else atomicMax(out, v); }
    return;
  }
  block_atomic<V, Kind>(v, out);
}

template <class F>
static float time_us(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  launch(); CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < REPS; ++r) {
    CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.0f);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

int main() {
  const int Ts[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  const int maxT = 256;
  float *x, *out; int *count;
  CK(cudaMalloc(&x, (size_t)N * maxT * sizeof(float)));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&count, sizeof(int)));
  std::vector<float> h((size_t)N * maxT);
  for (size_t k = 0; k < h.size(); ++k) h[k] = (float)((k * 2654435761u) % 1000u) / 1000.0f;
  CK(cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, %d threads (%d blocks of %d), median of %d runs, microseconds\n",
         p.name, N, N / B, B, REPS);
  printf("%-4s %5s %10s %10s %7s\n", "loop", "T", "original", "rewritten", "ratio");
  const int G = N / B;
  for (int T : Ts) {
    float o = time_us([&] { col_loop<false><<<G, B>>>(x, out, N, T); });
    float f = time_us([&] { col_loop<true><<<G, B>>>(x, out, N, T); });
    printf("%-4s %5d %10.1f %10.1f %7.2f\n", "col", T, o, f, o / f);
  }
  for (int T : Ts) {
    float o = time_us([&] { row_loop<false><<<G, B>>>(x, out, N, T); });
    float f = time_us([&] { row_loop<true><<<G, B>>>(x, out, N, T); });
    printf("%-4s %5d %10.1f %10.1f %7.2f\n", "row", T, o, f, o / f);
  }
  for (int T : Ts) {
    float o = time_us([&] { rng_loop<false><<<G, B>>>(out, count, N, T); });
    float f = time_us([&] { rng_loop<true><<<G, B>>>(out, count, N, T); });
    printf("%-4s %5d %10.1f %10.1f %7.2f\n", "rng", T, o, f, o / f);
  }
  for (int T : {1, 4, 16, 64, 256, 1024, 4096}) {
    float o = time_us([&] { rng_count<false><<<G, B>>>(count, N, T); });
    float f = time_us([&] { rng_count<true><<<G, B>>>(count, N, T); });
    printf("%-4s %5d %10.1f %10.1f %7.2f\n", "cnt", T, o, f, o / f);
  }
  printf("\n%-22s %10s %10s %7s\n", "one element per thread", "original", "rewritten", "ratio");
  double *dout; CK(cudaMalloc(&dout, sizeof(double)));
  auto row = [&](const char *name, float o, float f) {
    printf("%-22s %10.1f %10.1f %7.2f\n", name, o, f, o / f);
  };
  row("float atomicAdd",
      time_us([&] { one_each<float, 0, false><<<G, B>>>(x, out, N, 0); }),
      time_us([&] { one_each<float, 0, true><<<G, B>>>(x, out, N, 0); }));
  row("double atomicAdd",
      time_us([&] { one_each<double, 0, false><<<G, B>>>(x, dout, N, 0); }),
      time_us([&] { one_each<double, 0, true><<<G, B>>>(x, dout, N, 0); }));
  row("int atomicAdd(v)",
      time_us([&] { one_each<int, 0, false><<<G, B>>>(x, count, N, 0); }),
      time_us([&] { one_each<int, 0, true><<<G, B>>>(x, count, N, 0); }));
  row("int atomicAdd(1)",
      time_us([&] { one_each<int, 0, false><<<G, B>>>(x, count, N, 1); }),
      time_us([&] { one_each<int, 0, true><<<G, B>>>(x, count, N, 1); }));
  row("int atomicMax",
      time_us([&] { one_each<int, 1, false><<<G, B>>>(x, count, N, 0); }),
      time_us([&] { one_each<int, 1, true><<<G, B>>>(x, count, N, 0); }));
  CK(cudaGetLastError());
  return 0;
}
