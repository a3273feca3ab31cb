// memory-restrict follows a loop's stores into the functions it calls: a
// store there counts only when it can reach memory another thread shares.
// Shapes from third-party programs where the stores reach only the thread's
// own memory (silent): a null pointer argument the helper tests before
// storing (a big-number library's optional output), a local pointer set to
// null and handed to a decoder told not to write, a struct's array member
// passed on to a deeper helper, a lambda that loads through the caller's
// reference parameters, a local pointer assigned into shared memory after
// its declaration, a pointer stepped as it stores (`*dst++ = c`) into a local
// buffer, and in templates: a function template defined only by explicit
// specializations, `src + k` on a pointer of a dependent type, a call of a
// library class template's static member, a functor of a template type, a
// helper with a defaulted parameter. Each shape has a twin that stores
// through a kernel pointer while the loop loads through another: reported.
// Also: records assigned by their implicit operator are stores and loads
// (a thread copying its own run of uint4s: reported), and a while loop that
// ends with two steps by the block's size deals its elements out (silent).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// The fixes compile.
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>
#include <limits>

struct Limbs { unsigned n[8]; };

__device__ void limb_add(unsigned *r, const unsigned *a, const unsigned *b) {
  unsigned c = 0;
  for (int k = 0; k < 8; ++k) {
    unsigned s = a[k] + b[k] + c;
    c = s < a[k];
    r[k] = s;
  }
}

// `a->n` decays to a pointer into the caller's struct; `carry` is 0 at the
// call: neither reaches the kernel's buffers.
__device__ void point_add(Limbs *r, const Limbs *a, const Limbs *b,
                          Limbs *carry) {
  Limbs t;
  limb_add(t.n, a->n, b->n);
  if (carry)
    *carry = t;
  limb_add(r->n, t.n, a->n);
}

__global__ void sum_points(const Limbs *pts, unsigned *out) {
  Limbs acc = pts[0];
  for (int i = 1; i < 256; ++i) {
    Limbs p = pts[i];
    point_add(&acc, &acc, &p, 0);
  }
  out[threadIdx.x] = acc.n[threadIdx.x % 8];
}

// The twin: the optional output is the kernel's buffer.
__global__ void sum_points_carry(const Limbs *pts, Limbs *carries) {
  Limbs acc = pts[0];
  for (int i = 1; i < 256; ++i) {
    Limbs p = pts[i];
    point_add(&acc, &acc, &p, &carries[i]);
  }
}
// CHECK: t.cu:[[@LINE-7]]:{{[0-9]+}}: warning: pointer parameters 'pts', 'carries' are not __restrict__{{.*}}: the loop at line [[@LINE-5]] stores through 'carries' and loads through 'pts' [memory-restrict]
// A finding without a fix says why at the finding's place.
// CHECK: t.cu:[[@LINE-9]]:47: note: no fix: no-aliasing is not proven: no launch of the kernel in this file

// A decoder whose output pointer is null when it is told not to write; its
// window refills through a lambda that reads the caller's references.
__device__ void decode(unsigned &pos, const unsigned *in, unsigned &window,
                       unsigned char *out, bool write) {
  auto refill = [&]() { window = in[pos]; };
  for (int k = 0; k < 4; ++k) {
    if (write)
      out[k] = window & 0xff;
    window >>= 8;
    ++pos;
    refill();
  }
}

__global__ void count_symbols(const unsigned *in, unsigned *counts, int n) {
  unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned window = in[pos];
  unsigned char *none = 0;
  unsigned total = 0;
  while (pos < n) {
    decode(pos, in, window, none, false);
    total += window;
  }
  counts[threadIdx.x] = total;
}

// The twin: the decoder writes into the kernel's output.
__global__ void decode_all(const unsigned *in, unsigned char *out, int n) {
  unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned window = in[pos];
  while (pos < n)
    decode(pos, in, window, out + 4 * pos, true);
}
// CHECK: t.cu:[[@LINE-6]]:{{[0-9]+}}: warning: pointer parameters 'in', 'out' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'out' and loads through 'in' [memory-restrict]

// A key pointer declared bare and pointed into shared memory in the loop.
__global__ void probe(const unsigned *keys, unsigned *hits, int n) {
  __shared__ unsigned stage[256];
  unsigned *key;
  int found = 0;
  for (int i = 0; i < n; ++i) {
    key = &stage[threadIdx.x];
    *key = keys[i * blockDim.x + threadIdx.x];
    found += *key == 7u;
  }
  hits[blockIdx.x * blockDim.x + threadIdx.x] = found;
}

// The twin: the same pointer is also pointed at the kernel's output, so
// the tool cannot tell which memory its stores reach.
__global__ void probe_spill(const unsigned *keys, unsigned *spill, int n) {
  __shared__ unsigned stage[256];
  unsigned *key;
  for (int i = 0; i < n; ++i) {
    key = i % 2 ? &stage[threadIdx.x] : &spill[threadIdx.x];
    *key = keys[i * blockDim.x + threadIdx.x];
  }
}
// CHECK: t.cu:[[@LINE-8]]:{{[0-9]+}}: warning: pointer parameters 'keys', 'spill' are not __restrict__{{.*}}: the loop at line [[@LINE-5]] stores through memory it cannot name and loads through 'keys' [memory-restrict]

// A pointer stepped as it stores.
__device__ void spell(const char *word, int len, char *dst) {
  for (int k = 0; k < len; ++k)
    *dst++ = word[k];
}

__global__ void spell_local(const char *words, int *lens, int n) {
  char buf[16];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  spell(words + 16 * t, 16, buf);
  int len = 0;
  while (len < 16 && buf[len] != 0)
    ++len;
  lens[t] = len;
}

__global__ void spell_global(const char *words, char *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  spell(words + 16 * t, 16, out + 16 * t);
}
// CHECK: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'words', 'out' are not __restrict__{{.*}}: the loop at line [[@LINE-18]] stores through 'out' and loads through 'words' [memory-restrict]

// Templates: a vector copy declared once and defined per type.
template <typename T, int N>
__device__ void copy_vec(T *dst, const T *src);
template <>
__device__ void copy_vec<float, 1>(float *dst, const float *src) { *dst = *src; }
template <>
__device__ void copy_vec<float, 4>(float *dst, const float *src) {
  *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(src);
}

template <typename T> struct MaxOp {
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <typename T>
__device__ T shfl_xor(T v, int lane, int width = warpSize) {
  return __shfl_xor_sync(0xffffffffu, v, lane, width);
}

template <typename T, template <typename> class Op>
__device__ void warp_all(T *v) {
  Op<T> op;
  for (int o = 16; o > 0; o /= 2)
    v[0] = op(v[0], shfl_xor(v[0], o));
}

// Loads into the thread's registers, reduces there, writes once.
template <typename T, int N>
__global__ void row_max(const T *src, T *dst, int cols) {
  T tmp[N];
  T best = -std::numeric_limits<T>::infinity();
  for (int c = threadIdx.x * N; c < cols; c += 32 * N) {
    copy_vec<T, N>(tmp, src + blockIdx.x * cols + c);
    for (int k = 0; k < N; ++k)
      best = best > tmp[k] ? best : tmp[k];
  }
  warp_all<T, MaxOp>(&best);
  if (threadIdx.x == 0)
    dst[blockIdx.x] = best;
}

// The twin: each vector goes to the output as the loop loads.
template <typename T, int N>
__global__ void row_copy(const T *src, T *dst, int cols) {
  for (int c = 0; c < cols; c += N)
    copy_vec<T, N>(dst + blockIdx.x * cols + c, src + blockIdx.x * cols + c);
}
// CHECK: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameters 'src', 'dst' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'dst' and loads through 'src' [memory-restrict]

void launch(const float *a, float *b, int rows, int cols) {
  row_max<float, 4><<<rows, 32>>>(a, b, cols);
  row_copy<float, 1><<<rows, 1>>>(a, b, cols);
}

// A record assigned by its implicit operator (uint4, the user's structs) is
// a store of the left side and a load of the right: a thread copying its own
// run of records stores while it loads: reported.
struct Cell { float v[3]; int tag; };
__global__ void copy_runs(const uint4 *src, uint4 *dst, const Cell *cin,
                          Cell *cout, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < len; ++k) {
    dst[t * len + k] = src[t * len + k];
    cout[t * len + k] = cin[t * len + k];
  }
}
// CHECK: t.cu:[[@LINE-8]]:{{[0-9]+}}: warning: pointer parameters 'src', 'dst', 'cin', 'cout' are not __restrict__{{.*}}: the loop at line [[@LINE-5]] stores through 'dst' and loads through 'src' [memory-restrict]

// A while loop that ends with two steps by the block's size, the first of
// the variable it tests (a radix sort's scatter): the block deals its
// elements out to the threads: silent.
__global__ void scatter_digits(unsigned *out, const uint4 *in, int n4) {
  int range = blockDim.x;
  int window = blockIdx.x * n4;
  int i = window + threadIdx.x;
  int stop = window + n4;
  while (window < stop) {
    if (i < stop) {
      uint4 v = in[i];
      out[v.x & 0xffff] = v.y;
    }
    window += range;
    i += range;
  }
}
