// cuemu: runs the corpus programs (bench/corpus) on the CPU, at small sizes,
// to check their host logic, kernels and CPU references on a machine without
// a GPU. Not a CUDA implementation: only the subset the corpus uses.
//
// - Compiled with g++ as C++17 after utils/bench/cuemu.py rewrote the launches
//   `k<<<g, b>>>(args)` into `cuemu::launch(k, g, b)(args)`.
// - Blocks run one after the other; the threads of a block are fibers
//   (ucontext) switched at __syncthreads(), so block-level barriers and
//   __shared__ memory (a static local: one block at a time) behave as on a
//   GPU. A kernel whose first block calls no __syncthreads() runs its other
//   blocks as plain calls.
// - Races between threads or blocks are NOT detected (execution order is
//   fixed); device memory is host memory filled with 0xFF bytes (NaN floats)
//   by cudaMalloc, so reads of never-written memory show up.
#ifndef CUEMU_H
#define CUEMU_H

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <unistd.h>
#include <tuple>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct float2 { float x, y; };
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
struct int2 { int x, y; };
struct uint4 { unsigned x, y, z, w; };
struct uchar4 { unsigned char x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
  return {x, y, z, w};
}

inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

// ---- runtime API ---------------------------------------------------------
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidValue = 1 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
typedef void *cudaStream_t;
struct cuemu_event { double t; };
typedef cuemu_event *cudaEvent_t;

inline const char *cudaGetErrorString(cudaError_t e) {
  return e == 0 ? "no error" : "cuemu error";
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = malloc(n ? n : 1);
  if (!*p) return cudaErrorMemoryAllocation;
  memset(*p, 0xFF, n);
  return cudaSuccess;
}
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t n) {
  return cudaMalloc((void **)p, n);
}
inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) {
  memset(d, v, n);
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMemcpyToSymbol(T &sym, const void *src, size_t n, size_t off = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  memcpy((char *)&sym + off, src, n);
  return cudaSuccess;
}
template <typename T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  memcpy(dst, (const char *)&sym + off, n);
  return cudaSuccess;
}
inline double cuemu_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new cuemu_event{0};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = 0) {
  e->t = cuemu_now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)((b->t - a->t) * 1000.0);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}

// ---- device functions ----------------------------------------------------
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }

#define CUEMU_MINMAX(T)                                                          \
  inline T min(T a, T b) { return a < b ? a : b; }                              \
  inline T max(T a, T b) { return a > b ? a : b; }
CUEMU_MINMAX(int)
CUEMU_MINMAX(unsigned)
CUEMU_MINMAX(long)
CUEMU_MINMAX(long long)
CUEMU_MINMAX(unsigned long)
CUEMU_MINMAX(unsigned long long)
CUEMU_MINMAX(float)
CUEMU_MINMAX(double)
#undef CUEMU_MINMAX

// the value's type comes from the pointer (CUDA converts, e.g. atomicAdd(unsigned *, 1))
template <typename T> struct cuemu_same { typedef T type; };
#define CUEMU_V typename cuemu_same<T>::type
template <typename T> inline T atomicAdd(T *p, CUEMU_V v) { T o = *p; *p = o + v; return o; }
template <typename T> inline T atomicSub(T *p, CUEMU_V v) { T o = *p; *p = o - v; return o; }
template <typename T> inline T atomicMax(T *p, CUEMU_V v) { T o = *p; if (v > o) *p = v; return o; }
template <typename T> inline T atomicMin(T *p, CUEMU_V v) { T o = *p; if (v < o) *p = v; return o; }
template <typename T> inline T atomicExch(T *p, CUEMU_V v) { T o = *p; *p = v; return o; }
template <typename T> inline T atomicOr(T *p, CUEMU_V v) { T o = *p; *p = o | v; return o; }
template <typename T> inline T atomicAnd(T *p, CUEMU_V v) { T o = *p; *p = o & v; return o; }
template <typename T> inline T atomicXor(T *p, CUEMU_V v) { T o = *p; *p = o ^ v; return o; }
template <typename T> inline T atomicCAS(T *p, CUEMU_V c, CUEMU_V v) {
  T o = *p; if (o == c) *p = v; return o;
}
#undef CUEMU_V
inline unsigned atomicInc(unsigned *p, unsigned lim) {
  unsigned o = *p; *p = (o >= lim) ? 0 : o + 1; return o;
}
inline void __threadfence() {}
inline void __syncwarp(unsigned = 0xffffffffu) {}

// ---- launches --------------------------------------------------------------
namespace cuemu {
struct Fiber {
  ucontext_t ctx;
  char *stack = nullptr;
  bool done = false;
  uint3 idx;
  unsigned or_calls = 0; // __syncthreads_or calls in this block
};
inline ucontext_t sched;
inline std::vector<Fiber> fibers;
inline int current = -1;          // fiber running, -1: plain call
inline bool synced = false;       // a __syncthreads() happened in this launch
inline const std::function<void()> *body = nullptr;
inline std::map<const void *, bool> kernel_syncs; // learned per kernel
inline char dyn_shared[48 * 1024] alignas(16);
constexpr size_t kStack = 256 * 1024;

inline void trampoline() {
  (*body)();
  fibers[current].done = true;
}

inline void syncthreads() {
  synced = true;
  if (current < 0) {
    fprintf(stderr, "cuemu: __syncthreads() in a kernel run without fibers\n");
    abort();
  }
  swapcontext(&fibers[current].ctx, &sched);
}

// __syncthreads_or: call c of every thread of the block uses slot c % 3;
// the slot of call c + 2 is cleared after the barrier of call c (every
// thread has read it in call c - 1, none can write it before call c + 1's
// barrier).
inline int or_slot[3];
inline int syncthreads_or(int p) {
  if (current < 0) {
    fprintf(stderr, "cuemu: __syncthreads_or() in a kernel run without fibers\n");
    abort();
  }
  unsigned c = fibers[current].or_calls++;
  if (p)
    or_slot[c % 3] = 1;
  syncthreads();
  int r = or_slot[c % 3];
  or_slot[(c + 2) % 3] = 0;
  return r;
}

// Warp shuffles: every thread of the block puts its value in its slot, a
// barrier, each reads the slot of its source lane in its own warp (its own
// value when the source is outside the warp or the block), a barrier before
// the slots are used again. Block-wide barriers are stronger than the
// warp's: right for code where every warp of the block shuffles as often
// (the corpus's and the rules' warp reductions).
inline std::vector<unsigned long long> shfl_slot;
template <typename T, typename F> T shfl_exchange(T v, F src) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle of a wide type");
  unsigned n = blockDim.x * blockDim.y * blockDim.z;
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (shfl_slot.size() < n) shfl_slot.resize(n);
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  shfl_slot[t] = b;
  syncthreads();
  unsigned lane = t % 32, base = t - lane;
  int s = src((int)lane);
  T r = v;
  if (s >= 0 && s < 32 && base + (unsigned)s < n)
    memcpy(&r, &shfl_slot[base + s], sizeof(T));
  syncthreads();
  return r;
}
} // namespace cuemu
// `width` (a power of two up to 32) splits the warp into segments that
// shuffle on their own: a source outside the caller's segment gives the
// caller's own value; __shfl_sync's source lane is taken within the segment.
template <typename T> T __shfl_xor_sync(unsigned, T v, int m, int w = 32) {
  return cuemu::shfl_exchange(v, [m, w](int l) {
    int s = l ^ m;
    return s / w == l / w ? s : l;
  });
}
template <typename T> T __shfl_down_sync(unsigned, T v, unsigned d, int w = 32) {
  return cuemu::shfl_exchange(v, [d, w](int l) {
    int s = l + (int)d;
    return s < l / w * w + w ? s : l;
  });
}
template <typename T> T __shfl_up_sync(unsigned, T v, unsigned d, int w = 32) {
  return cuemu::shfl_exchange(v, [d, w](int l) {
    int s = l - (int)d;
    return s >= l / w * w ? s : l;
  });
}
template <typename T> T __shfl_sync(unsigned, T v, int src, int w = 32) {
  return cuemu::shfl_exchange(v, [src, w](int l) { return l / w * w + (src & (w - 1)); });
}
namespace cuemu {

inline void run_block_fibers(unsigned nthreads) {
  if (fibers.size() < nthreads) fibers.resize(nthreads);
  or_slot[0] = or_slot[1] = or_slot[2] = 0;
  for (unsigned t = 0; t < nthreads; t++) {
    Fiber &f = fibers[t];
    if (!f.stack) f.stack = (char *)malloc(kStack);
    f.done = false;
    f.or_calls = 0;
    f.idx = {t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = kStack;
    f.ctx.uc_link = &sched;
    makecontext(&f.ctx, (void (*)())trampoline, 0);
  }
  bool alive = true;
  while (alive) {
    alive = false;
    for (unsigned t = 0; t < nthreads; t++) {
      if (fibers[t].done) continue;
      current = (int)t;
      threadIdx = fibers[t].idx;
      swapcontext(&sched, &fibers[t].ctx);
      if (!fibers[t].done) alive = true;
    }
  }
  current = -1;
}

inline void run_grid(const void *key, dim3 g, dim3 b, const std::function<void()> &fn) {
  unsigned nthreads = b.x * b.y * b.z;
  if (nthreads == 0 || nthreads > 1024 || g.x == 0 || g.y == 0 || g.z == 0 || g.y > 65535 ||
      g.z > 65535 || b.z > 64) {
    fprintf(stderr, "cuemu: invalid launch grid (%u,%u,%u) block (%u,%u,%u)\n", g.x, g.y, g.z,
            b.x, b.y, b.z);
    exit(1);
  }
  gridDim = g;
  blockDim = b;
  body = &fn;
  auto it = kernel_syncs.find(key);
  bool first = true;
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++) {
        blockIdx = {bx, by, bz};
        memset(dyn_shared, 0xFF, sizeof dyn_shared);
        if (first || it == kernel_syncs.end() || it->second) {
          synced = false;
          run_block_fibers(nthreads);
          if (first && it == kernel_syncs.end()) {
            it = kernel_syncs.emplace(key, synced).first;
          }
        } else {
          for (unsigned t = 0; t < nthreads; t++) {
            threadIdx = {t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
            fn();
          }
        }
        first = false;
      }
}

// Kernel times (host wall time of each emulated launch), written at exit to
// $KT_OUT ("%p": the process id) in the format of utils/bench/kernel-times.cpp,
// so that the benchmark runner can be tested on the CPU.
struct KernelStat {
  unsigned long long count = 0, total = 0, min = ~0ull, max = 0;
};
inline std::map<std::string, KernelStat> kernel_stats;
inline bool kt_registered = false;

inline void write_kernel_times() {
  const char *p = getenv("KT_OUT");
  if (!p || !*p)
    return;
  std::string path = p, pid = std::to_string((long)getpid());
  for (size_t i; (i = path.find("%p")) != std::string::npos;)
    path.replace(i, 2, pid);
  FILE *f = fopen(path.c_str(), "w");
  if (!f)
    return;
  fprintf(f, "{\"kind\": \"cuemu\", \"pid\": %ld, \"dropped\": 0, \"kernels\": [", (long)getpid());
  bool first = true;
  for (auto &kv : kernel_stats) {
    fprintf(f, "%s\n {\"name\": \"%s\", \"demangled\": \"%s\", \"count\": %llu, \"total_ns\": %llu, "
               "\"min_ns\": %llu, \"max_ns\": %llu}",
            first ? "" : ",", kv.first.c_str(), kv.first.c_str(), kv.second.count, kv.second.total,
            kv.second.min, kv.second.max);
    first = false;
  }
  fprintf(f, "\n]}\n");
  fclose(f);
}

template <typename... P> struct Launcher {
  void (*fn)(P...);
  const char *name;
  dim3 g, b;
  template <typename... A> void operator()(A &&...a) const {
    std::tuple<P...> args(std::forward<A>(a)...);
    std::function<void()> call = [&] { std::apply(fn, args); };
    auto t0 = std::chrono::steady_clock::now();
    run_grid((const void *)fn, g, b, call);
    unsigned long long ns = (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - t0).count();
    KernelStat &k = kernel_stats[name];
    k.count++;
    k.total += ns;
    k.min = ns < k.min ? ns : k.min;
    k.max = ns > k.max ? ns : k.max;
    if (!kt_registered) {
      kt_registered = true;
      atexit(write_kernel_times);
    }
  }
};
template <typename... P>
Launcher<P...> launch(void (*fn)(P...), const char *name, dim3 g, dim3 b, size_t shmem = 0,
                      cudaStream_t = 0) {
  if (shmem > sizeof dyn_shared) {
    fprintf(stderr, "cuemu: %zu bytes of dynamic shared memory\n", shmem);
    exit(1);
  }
  return Launcher<P...>{fn, name, g, b};
}
} // namespace cuemu

#define __syncthreads() cuemu::syncthreads()
#define __syncthreads_or(p) cuemu::syncthreads_or(p)

#endif
