// memory-restrict reports a kernel only where some loop of one thread
// stores through one pointer and loads through another (the compiler must
// keep a later iteration's loads behind the store). Shapes from third-party
// programs: a one-thread-per-row softmax, an atomic count in a loop, a loop
// in a device function, a thread's own loop inside a block-stride loop, and
// (silent) element-wise kernels, loops that only load, loops that write
// only the thread's or the block's memory, a CAS loop on one pointer, loops
// that deal their iterations out to the threads (grid-stride, block-stride,
// through a local stride, a while loop, a tail loop). Measured on an H100
// (docs/PERFORMANCE.md section 4): the reported shapes gained, the silent
// ones did not.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// With RequireLoop off the loop-free kernels are reported too.
// RUN: printf 'CheckOptions:\n  memory-restrict.RequireLoop: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OFF
// The fixes compile.
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

// One thread per row, the last pass storing while it loads: reported, with
// the loop and the two pointers named.
__global__ void row_softmax(int rows, int cols, const float *src, float *dst) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = src[r * cols];
  for (int j = 1; j < cols; j++) m = fmaxf(m, src[r * cols + j]);
  float s = 0.f;
  for (int j = 0; j < cols; j++) s += __expf(src[r * cols + j] - m);
  for (int j = 0; j < cols; j++)
    dst[r * cols + j] = __expf(src[r * cols + j] - m) / s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-10]]:{{[0-9]+}}: warning: pointer parameters 'src', 'dst' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'dst' and loads through 'src' [memory-restrict]

// An atomic in the loop counts as a store (a pair distance of char4s, each
// thread walking its own stretch of the pair's rows).
__global__ void mismatches(const char *data, int *dist, int len) {
  int per = len / blockDim.x;
  for (int i = per * threadIdx.x; i < per * (threadIdx.x + 1); i += 4) {
    char4 a = *(const char4 *)(data + i + len * blockIdx.x);
    char4 b = *(const char4 *)(data + i + len * blockIdx.y);
    atomicAdd(dist + gridDim.x * blockIdx.x + blockIdx.y,
              (a.x != b.x) + (a.y != b.y) + (a.z != b.z) + (a.w != b.w));
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:{{[0-9]+}}: warning: pointer parameters 'data', 'dist' are not __restrict__{{.*}}: the loop at line [[@LINE-7]] stores through 'dist' and loads through 'data' [memory-restrict]

// Silent: the same with the block's threads striding over the pair's rows
// (i += 4 * blockDim.x): each iteration is another thread's, and the
// threads already overlap their loads and atomics (measured 1.00x,
// utils/experiments/restrict-stride.cu, bs-atomic).
__global__ void mismatches_strided(const char *data, int *dist, int len) {
  for (int i = 4 * threadIdx.x; i < len; i += 4 * blockDim.x) {
    char4 a = *(const char4 *)(data + i + len * blockIdx.x);
    char4 b = *(const char4 *)(data + i + len * blockIdx.y);
    atomicAdd(dist + gridDim.x * blockIdx.x + blockIdx.y,
              (a.x != b.x) + (a.y != b.y) + (a.z != b.z) + (a.w != b.w));
  }
}
// OFF: t.cu:[[@LINE-8]]:{{[0-9]+}}: warning: pointer parameters 'data', 'dist' are not __restrict__{{.*}}path [memory-restrict]

// Silent: grid-stride loops, the stride in a local (qrg; the block's size a
// named constant, graphB+), the thread count
// assigned after its declaration (qtclustering), a while loop, and a tail
// loop over the elements a float4 loop left (silu).
static constexpr int kThreads = 256;
__global__ void scale_gs(int n, const float *x, float *y) {
  unsigned stride = gridDim.x * kThreads;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = 2.f * x[i];
}
__global__ void mark(char *done, const char *now, int n) {
  int tid = threadIdx.x, count;
  count = blockDim.x * blockDim.y;
  for (int i = 0; i + tid < n; i += count)
    done[i + tid] |= now[i + tid];
}
__global__ void scale_while(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    y[i] = 2.f * x[i];
    i = i + blockDim.x * gridDim.x;
  }
}
__global__ void silu_tail(const float *x, float *out, unsigned long n) {
  unsigned long i = (unsigned long)blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n / 4) {
    float4 v = reinterpret_cast<const float4 *>(x)[i];
    v.x /= 1.f + __expf(-v.x); v.y /= 1.f + __expf(-v.y);
    v.z /= 1.f + __expf(-v.z); v.w /= 1.f + __expf(-v.w);
    reinterpret_cast<float4 *>(out)[i] = v;
  }
  for (unsigned long j = 4 * (n / 4) + i; j < n; j += blockDim.x)
    out[j] = x[j] / (1.f + __expf(-x[j]));
}
// OFF: t.cu:[[@LINE-29]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]
// OFF: t.cu:[[@LINE-25]]:{{[0-9]+}}: warning: pointer parameters 'done', 'now' are not __restrict__{{.*}}path [memory-restrict]
// OFF: t.cu:[[@LINE-20]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]
// OFF: t.cu:[[@LINE-14]]:{{[0-9]+}}: warning: pointer parameters 'x', 'out' are not __restrict__{{.*}}path [memory-restrict]

// Silent too: rows dealt out to the block's warps (`blockDim.x / 32`, a
// lane per element; measured 1.00x, restrict-stride.cu's warp-rows). A step
// that reads the block's size but is neither a multiple of it nor its warps
// (`blockDim.x / 2`) is a thread's own loop: reported.
__global__ void rows_per_warp(int rows, const float *x, float *y) {
  for (int r = threadIdx.x / 32; r < rows; r += blockDim.x / 32)
    y[r * 32 + threadIdx.x % 32] = x[r * 32 + threadIdx.x % 32] * 2.f;
}
// OFF: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]
__global__ void halves(int n, const float *x, float *y) {
  for (int i = threadIdx.x % 2; i < n; i += blockDim.x / 2)
    y[i] = x[i] * 2.f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'y' and loads through 'x' [memory-restrict]

// Silent: a loop with a barrier in every iteration (no load of a later
// iteration can move above it, qualifier or not: qtclustering's and ans's
// block loops, 1.00x), a macro's `do { } while (0)` (it runs once), and a
// loop counting the block's rounds (`r * blockDim.x + tid < n; r++`: the
// index moves by the block's size). Their twins are reported: the barrier
// only under a condition, a `do { } while` that repeats, rounds of two.
__global__ void staged_rounds(int n, const float *in, float *out) {
  __shared__ float tile[256];
  for (int b = 0; b < n; b += 256) {
    tile[threadIdx.x] = in[b + threadIdx.x];
    __syncthreads();
    out[b + threadIdx.x] = tile[255 - threadIdx.x];
    __syncthreads();
  }
}
// OFF: t.cu:[[@LINE-9]]:{{[0-9]+}}: warning: pointer parameters 'in', 'out' are not __restrict__{{.*}}path [memory-restrict]
__global__ void staged_maybe(int n, int flag, const float *in, float *out) {
  __shared__ float tile[256];
  for (int b = 0; b < n; b += 256) {
    tile[threadIdx.x] = in[b + threadIdx.x];
    if (flag)
      __syncthreads();
    out[b + threadIdx.x] = tile[255 - threadIdx.x];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:{{[0-9]+}}: warning: pointer parameters 'in', 'out' are not __restrict__{{.*}}: the loop at line [[@LINE-7]] stores through 'out' and loads through 'in' [memory-restrict]
#define SCALE_ONE(dst, src, k) do { (dst)[k] = 2.f * (src)[k]; } while (0)
__global__ void scale_macro(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  SCALE_ONE(y, x, i);
}
// OFF: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]
__global__ void scale_repeat(const float *x, float *y, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  do { y[i] = 2.f * x[i]; i += 7; } while (i < m);
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}: the loop at line [[@LINE-2]] stores through 'y' and loads through 'x' [memory-restrict]
__global__ void block_rounds(int n, const float *x, float *y) {
  int count = blockDim.x;
  for (int r = 0; r * count + threadIdx.x < n; r++)
    y[r * count + threadIdx.x] = x[r * count + threadIdx.x] + 1.f;
}
// OFF: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]
__global__ void pair_rounds(int n, const float *x, float *y) {
  for (int r = 0; r * 2 + threadIdx.x % 2 < n; r++)
    y[r * 2 + threadIdx.x % 2] = x[r * 2 + threadIdx.x % 2] + 1.f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'y' and loads through 'x' [memory-restrict]

// A thread's own loop inside a block-stride loop: the inner loop stores
// while it loads (a point's nearest neighbour per octant, s8n), reported
// with the inner loop named.
__global__ void octants(int n, int radius, const int *xyz, int *idx_out) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    int best[8];
    for (int k = 0; k < 8; k++) best[k] = radius;
    for (int j = 0; j < n; j++) {
      int d = abs(xyz[j] - xyz[i]);
      int o = j & 7;
      if (d < best[o]) {
        idx_out[i * 8 + o] = j;
        best[o] = d;
      }
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-14]]:{{[0-9]+}}: warning: pointer parameters 'xyz', 'idx_out' are not __restrict__{{.*}}: the loop at line [[@LINE-10]] stores through 'idx_out' and loads through 'xyz' [memory-restrict]

// The loop is in a device function; its pointers are the kernel's.
__device__ void scale_row(const float *in, float *out, int n, float f) {
  for (int j = 0; j < n; j++)
    out[j] = in[j] * f;
}
__global__ void scale_rows(const float *a, float *b, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  scale_row(a + r * n, b + r * n, n, 0.5f);
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b' are not __restrict__{{.*}}: the loop at line [[@LINE-7]] stores through 'b' and loads through 'a' [memory-restrict]

// Silent: element-wise, no loop (a ReLU).
__global__ void relu(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
// OFF: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}}path [memory-restrict]

// Silent: the loop only loads; the one store comes after it (an objective
// function per vector, the minimum kept by a CAS loop on one pointer).
__device__ float atomic_min_f(float *addr, float v) {
  unsigned *p = (unsigned *)addr;
  unsigned old = *p;
  while (v < __uint_as_float(old)) {
    unsigned seen = atomicCAS(p, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
  return __uint_as_float(old);
}
__global__ void objective(const float *x, float *best, int dim, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float s = 0.f;
  for (int i = 0; i < dim; i++) s += sinf(x[v * dim + i]) * x[v * dim + i];
  atomic_min_f(best, -s);
}

// Silent: the loop writes only the thread's own variables (a local struct,
// through a pointer to it and a member function) and the block's shared
// memory; the image is stored after it.
struct Hit { float t; int id; };
struct Rng {
  unsigned s;
  __device__ float next() { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.f / 16777216.f); }
};
__device__ void closest(Hit *h, const float4 *spheres, int k, float d) {
  float t = spheres[k].w - d;
  if (t > 0.f && t < h->t) { h->t = t; h->id = k; }
}
__global__ void render(unsigned char *img, const float4 *spheres, int ns, int w) {
  __shared__ float acc[256];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  Rng rng{(unsigned)x};
  float sum = 0.f;
  acc[threadIdx.x] = 0.f;
  for (int s = 0; s < 16; s++) {
    Hit h;
    h.t = 1e17f;
    h.id = -1;
    float d = rng.next();
    for (int k = 0; k < ns; k++) closest(&h, spheres, k, d);
    acc[threadIdx.x] += h.t;
    sum += h.id >= 0 ? 1.f : 0.f;
  }
  img[x] = (unsigned char)(sum + acc[threadIdx.x] * 0.f);
}
// OFF: t.cu:[[@LINE-17]]:{{[0-9]+}}: warning: pointer parameters 'img', 'spheres' are not __restrict__{{.*}}path [memory-restrict]

// Templates never instantiated here, analysed as written: an element
// access of a dependent type is a load, `+=` on dependent operands a store
// to a local. A loop that only loads (a matrix product's dot product) is
// silent; an atomic through a pointer into 'out' whose index has a
// dependent type (`g[in[i] % BINS]`) is a store through 'out'.
template <typename T>
__global__ void tgemm(const T *a, const T *b, T *c, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  T s = 0;
  for (int k = 0; k < n; k++)
    s += a[r * n + k] * b[k * n + col];
  c[r * n + col] = s;
}
template <int BINS, typename P>
__global__ void thist(const P *in, int n, unsigned *out) {
  unsigned *g = out + blockIdx.x * BINS;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t * 64; i < n && i < t * 64 + 64; i++)
    atomicAdd(&g[in[i] % BINS], 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:{{[0-9]+}}: warning: pointer parameters 'in', 'out' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'out' and loads through 'in' [memory-restrict]

// Updated in place at a launch (a helper passes one buffer for 'a' and
// 'out'): the qualifier on either would be undefined behaviour, silent.
__global__ void add_scaled(int n, const float *a, float s,
                           const float *__restrict__ b, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t * 16; i < n && i < t * 16 + 16; i++)
    out[i] = s * b[i] + a[i];
}
static void accumulate(int n, float *acc, const float *b) {
  add_scaled<<<528, 256>>>(n, acc, 0.25f, b, acc);
}
// The same with a third pointer loaded in the loop: reported for it alone.
__global__ void add_two(int n, const float *a, const float *w, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t * 16; i < n && i < t * 16 + 16; i++)
    out[i] = w[i] * a[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameter 'w' is not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'out' and loads through 'w' [memory-restrict]

int main() {
  float *a = nullptr, *b = nullptr;
  char *c = nullptr;
  int *d = nullptr;
  cudaMalloc(&a, 1 << 20);
  cudaMalloc(&b, 1 << 20);
  cudaMalloc(&c, 1 << 20);
  cudaMalloc(&d, 1 << 20);
  row_softmax<<<4, 256>>>(1024, 64, a, b);
  mismatches<<<dim3(16, 16), 64>>>(c, d, 1024);
  mismatches_strided<<<dim3(16, 16), 64>>>(c, d, 1024);
  scale_gs<<<4, 256>>>(1024, a, b);
  char *c2 = nullptr;
  int *e = nullptr;
  cudaMalloc(&c2, 1 << 20);
  cudaMalloc(&e, 1 << 20);
  mark<<<1, 256>>>(c, c2, 1024);
  scale_while<<<4, 256>>>(1024, a, b);
  silu_tail<<<1, 256>>>(a, b, 1023);
  octants<<<1, 256>>>(1024, 10, d, e);
  rows_per_warp<<<1, 256>>>(64, a, b);
  halves<<<1, 256>>>(1024, a, b);
  staged_rounds<<<1, 256>>>(1024, a, b);
  staged_maybe<<<1, 256>>>(1024, 1, a, b);
  scale_macro<<<4, 256>>>(a, b);
  scale_repeat<<<4, 256>>>(a, b, 1024);
  block_rounds<<<1, 256>>>(1024, a, b);
  pair_rounds<<<1, 256>>>(1024, a, b);
  scale_rows<<<4, 256>>>(a, b, 64);
  relu<<<4, 256>>>(a, b, 1024);
  objective<<<4, 256>>>(a, b, 16, 1024);
  unsigned char *img = nullptr;
  float4 *sp = nullptr;
  cudaMalloc(&img, 1 << 20);
  cudaMalloc(&sp, 1 << 20);
  render<<<4, 256>>>(img, sp, 8, 1024);
  accumulate(1024, a, b);
  add_two<<<528, 256>>>(1024, a, b, a);
  return 0;
}
