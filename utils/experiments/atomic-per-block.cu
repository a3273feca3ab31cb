// Experiment: does sync-warp-atomic-reduction's block reduction pay when the
// atomic's address is the block's own word (`&counts[blockIdx.x]`,
// `distance + INSTANCES * blockIdx.x + blockIdx.y`) rather than one word of
// the whole grid?
//
// Only the block's own warps then meet at the word. For integers the
// compiler already merges a warp's updates to one uniform address into one,
// so the queue holds blockDim / 32 updates per round; the rule's rewrite
// (warp shuffle, shared memory, one atomic per block) leaves one, at the
// price of a barrier. Floating-point updates are not merged: 32 per warp.
// Timed per value type, block size and number of rounds (a loop of R
// atomics per thread, as in a per-block loop over a row's slices): the
// original against the rewrite. For comparison, the same with one word for
// the whole grid.
// Build: nvcc -O3 -arch=sm_90 atomic-per-block.cu -o atomic-per-block
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static const int G = 16384; // blocks
static const int REPS = 15;

template <class V> __device__ __forceinline__ V warp_add(V v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
template <class V> __device__ __forceinline__ void block_add(V v, V *out) {
  __shared__ V w[32];
  v = warp_add(v);
  if ((threadIdx.x & 31u) == 0u) w[threadIdx.x >> 5] = v;
  __syncthreads();
  if ((threadIdx.x >> 5) == 0u) {
    v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? w[threadIdx.x & 31u] : (V)0;
    v = warp_add(v);
    if ((threadIdx.x & 31u) == 0u) atomicAdd(out, v);
  }
  __syncthreads();
}

// R rounds; in each, every thread adds a value derived from x (ones: the
// value 1, a count) to its block's word (PerBlock) or the grid's word.
template <class V, bool Fix, bool PerBlock>
__global__ void rounds(const float *__restrict__ x, V *__restrict__ out, int R, int ones) {
  V *dst = PerBlock ? out + blockIdx.x : out;
  for (int r = 0; r < R; ++r) {
    float xv = x[(blockIdx.x * blockDim.x + threadIdx.x + r * 977) & ((1 << 22) - 1)];
    V v = ones ? (V)(xv > 0.5f) : (V)(xv * 1000.0f);
    if (Fix)
      block_add(v, dst);
    else
      atomicAdd(dst, v);
  }
}

template <class F> static float time_us(F launch) {
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

template <class V, bool PerBlock>
static void row(const char *name, const float *x, V *out, int B, int R, int ones) {
  float o = time_us([&] { rounds<V, false, PerBlock><<<G, B>>>(x, out, R, ones); });
  float f = time_us([&] { rounds<V, true, PerBlock><<<G, B>>>(x, out, R, ones); });
  CK(cudaGetLastError());
  printf("%-10s %-16s %5d %3d %10.1f %10.1f %7.2f\n", PerBlock ? "per-block" : "grid", name, B, R, o, f, o / f);
}

int main() {
  float *x; void *out;
  CK(cudaMalloc(&x, (size_t)(1 << 22) * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)G * sizeof(double)));
  CK(cudaMemset(out, 0, (size_t)G * sizeof(double)));
  std::vector<float> h(1 << 22);
  for (size_t k = 0; k < h.size(); ++k) h[k] = (float)((k * 2654435761u) % 1000u) / 1000.0f;
  CK(cudaMemcpy(x, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, %d blocks, median of %d runs, microseconds\n", p.name, G, REPS);
  printf("%-10s %-16s %5s %3s %10s %10s %7s\n", "address", "atomic", "block", "R", "original", "rewritten", "ratio");
  for (int B : {128, 256, 1024})
    for (int R : {1, 8}) {
      row<int, true>("int add(v)", x, (int *)out, B, R, 0);
      row<int, true>("int add(0/1)", x, (int *)out, B, R, 1);
      row<unsigned long long, true>("u64 add(v)", x, (unsigned long long *)out, B, R, 0);
      row<float, true>("float add", x, (float *)out, B, R, 0);
      row<double, true>("double add", x, (double *)out, B, R, 0);
    }
  for (int B : {128, 256})
    for (int R : {1, 8}) {
      row<int, false>("int add(v)", x, (int *)out, B, R, 0);
      row<float, false>("float add", x, (float *)out, B, R, 0);
    }
  return 0;
}
