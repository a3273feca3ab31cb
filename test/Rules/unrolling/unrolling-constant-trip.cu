// unrolling-constant-trip: innermost loops with a compile-time trip count get
// an unroll pragma. These cases test the rule's static conditions, so the
// NVRTC comparison of the machine code with and without the pragma is off
// (CompareCode: false); unrolling-constant-trip-compiled.cu tests it.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  unrolling-constant-trip.CompareCode: false\n' > %t/est.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/est.yaml --rules='-*,unrolling-constant-trip' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --config-file=%t/est.yaml --rules='-*,unrolling-constant-trip' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// nvcc -O3 unrolls a small constant-trip loop fully by itself: the
// pragma would change no instruction, so no finding. Reported when the trip
// count times the body's code size (callees inlined) is beyond what nvcc
// unrolls unasked (option CompilerUnrollSize, default 800; measured with
// nvcc 13 for sm_90: 16 trips of four multiply-adds are not unrolled, 8 are).
__global__ void loops(const float *in, const float *w, float *out, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  for (int j = 0; j < 16; ++j) {
    a0 += in[i * 64 + j * 4 + 0] * w[0];
    a1 += in[i * 64 + j * 4 + 1] * w[1];
    a2 += in[i * 64 + j * 4 + 2] * w[2];
    a3 += in[i * 64 + j * 4 + 3] * w[3];
  }
  // CHECK-MESSAGES: t.cu:[[@LINE-6]]:3: warning: loop with constant trip count 16 is not unrolled{{.*}} [unrolling-constant-trip]
  // CHECK-FIXES:      #pragma unroll
  // CHECK-FIXES-NEXT: for (int j = 0; j < 16; ++j) {
  out[i] = a0 + a1 + a2 + a3;
}

// Negative: small enough for nvcc (8 trips of the same body; one load
// 8 times; a 4x4 nest); already unrolled; too long; bounded by a
// parameter (unrolling-param-bound's).
__global__ void small_loops(const float *in, const float *w, float *out,
                            int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  for (int j = 0; j < 8; ++j) {
    a0 += in[i * 64 + j * 4 + 0] * w[0];
    a1 += in[i * 64 + j * 4 + 1] * w[1];
    a2 += in[i * 64 + j * 4 + 2] * w[2];
    a3 += in[i * 64 + j * 4 + 3] * w[3];
  }
  for (int j = 0; j < 8; ++j)
    a0 += in[threadIdx.x * 8 + j];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      a1 += in[a * 4 + b];
#pragma unroll
  for (int j = 0; j < 32; ++j)
    a2 += in[j] * w[j] + in[j + 32] * w[j + 32];
  for (int j = 0; j < 1000; ++j)
    a3 += in[j];
  for (int j = 0; j < k; ++j)
    a3 += in[j];
  // CHECK-FIXES:      for (int j = 0; j < 8; ++j) {
  // CHECK-FIXES:      for (int j = 0; j < 1000; ++j)
  out[i] = a0 + a1 + a2 + a3;
}

// What a call costs counts: the device function is inlined in every
// iteration.
__device__ float weight(const float *w, int j, float x) {
  float t = x * w[j] + w[j + 1];
  float u = t * t + w[j + 2] * x;
  return u * w[j + 3] + t * w[j + 4] - u * t * w[j + 5];
}
__global__ void calls(const float *in, const float *w, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int j = 0; j < 16; ++j)
    acc += weight(w, j, in[i * 16 + j]) * weight(w, j + 8, in[i * 16 + j]);
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: loop with constant trip count 16 is not unrolled{{.*}} [unrolling-constant-trip]
  out[i] = acc;
}

// A local array indexed by the induction variable: said in a note. nvcc
// unrolls such loops further by itself (twice the code: 16 trips of this
// body are unrolled unasked), 32 are not.
__global__ void tile(const float *in, const float *w, float *out) {
  float acc[32];
  for (int k = 0; k < 32; ++k)
    acc[k] = in[threadIdx.x * 128 + k * 4] * w[0] +
             in[threadIdx.x * 128 + k * 4 + 1] * w[1] +
             in[threadIdx.x * 128 + k * 4 + 2] * w[2] +
             in[threadIdx.x * 128 + k * 4 + 3] * w[3];
  // CHECK-MESSAGES: t.cu:[[@LINE-5]]:3: warning: loop with constant trip count 32 {{.*}} [unrolling-constant-trip]
  // CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: note: the loop indexes the local array 'acc' with its induction variable{{.*}}
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k)
    s += acc[k] * acc[31 - k];
  out[threadIdx.x] = s;
}

// Negative: a while loop (only counted for loops get the pragma, and the
// access analysis counts the trips of for loops only); a small local-array
// loop nvcc unrolls.
__global__ void while_tile(const float *in, float *out) {
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int k = 0;
  while (k < 4) {
    acc[k] += in[threadIdx.x + k];
    ++k;
  }
  for (int j = 0; j < 4; ++j)
    acc[j] *= in[j];
  out[threadIdx.x] = acc[1];
}

// Template argument bound: the largest instantiation decides; a template
// never instantiated here is not reported (its trip count is unknown, and
// nvcc unrolls a small loop by itself) unless it indexes a local array.
template <int N> __global__ void tmpl(const float *in, float *out) {
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) {
    acc += in[j] * in[j + N] + in[j + 2 * N] * in[j + 3 * N];
  }
  // CHECK-MESSAGES: t.cu:[[@LINE-3]]:3: warning: loop with constant trip count 'N' (a template argument){{.*}} [unrolling-constant-trip]
  // CHECK-FIXES: template <int N> __global__ void tmpl
  // CHECK-FIXES: #pragma unroll
  // CHECK-FIXES-NEXT: for (int j = 0; j < N; ++j) {
  out[0] = acc;
}
template __global__ void tmpl<4>(const float *, float *);
template __global__ void tmpl<64>(const float *, float *);
template <int N> __global__ void small_tmpl(const float *in, float *out) {
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) {
    acc += in[j];
  }
  out[0] = acc;
}
template __global__ void small_tmpl<8>(const float *, float *);
template <int N> __device__ float never(const float *in) {
  float acc = 0.0f;
  for (int j = 0; j < N; ++j)
    acc += in[j];
  return acc;
}
template <int N> __device__ float never_local(const float *in) {
  float l[N];
  for (int j = 0; j < N; ++j)
    l[j] = in[j] * in[j + N] + in[j + 2 * N];
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: loop with constant trip count 'N' (a template argument){{.*}} [unrolling-constant-trip]
  float acc = 0.0f;
  for (int j = 0; j < N; ++j)
    acc += l[j] * l[N - 1 - j];
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: loop with constant trip count 'N' (a template argument){{.*}} [unrolling-constant-trip]
  return acc;
}
// Members of a class template: the trip counts of the class's
// instantiations (a k-mer key of 2 words: nvcc unrolls it by itself; of 34
// words, the compare leaves at the first word that differs, and unrolling
// keeps every compare and branch: nothing to gain).
template <unsigned W> struct Key {
  unsigned data[W];
  __device__ bool less(const Key<W> &o) const {
    for (unsigned i = 0; i < W; i++) {
      if (data[i] < o.data[i])
        return true;
      else if (data[i] > o.data[i])
        return false;
    }
    return false;
  }
};
__global__ void keys(const Key<2> *k, bool *out) { out[threadIdx.x] = k[threadIdx.x].less(k[threadIdx.x + 1]); }
__global__ void long_keys(const Key<34> *k, bool *out) { out[threadIdx.x] = k[threadIdx.x].less(k[threadIdx.x + 1]); }
// A template argument past MaxTripCount (a block size of 1024 summed by
// one thread): as with a literal bound, not unrolled fully.
template <int T> __global__ void block_sum(const float *in, float *out) {
  __shared__ float part[T];
  part[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f, w = 0.f;
    for (int i = 0; i < T; ++i) {
      s += part[i] * part[i] + part[(i + 1) % T];
      w += part[i];
    }
    out[0] = s / w;
  }
}
template __global__ void block_sum<1024>(const float *, float *);

// A local constant computed from template arguments (a Kalman filter's
// `constexpr int rd2 = rd * rd;`) bounding loops over local arrays sized by
// it: the pattern gets the pragma, with the trip count of the
// instantiations (64: the copy loop is reported, the small dot product
// nvcc unrolls by itself is not). The pattern's `l[i]` is a dependent
// expression, which once made the loop look as if it changed `i`, and
// the instantiation was reported without a fix. (nvcc 13 unrolls this
// loop by itself: with the NVRTC comparison on, it is not reported.)
template <int rd> __global__ void kalman_like(const double *RQR, const double *T, double *out, int batch) {
  constexpr int rd2 = rd * rd;
  double l_RQR[rd2] = {0.0};
  double l_T[rd2] = {0.0};
  int bid = blockDim.x * blockIdx.x + threadIdx.x;
  if (bid < batch) {
    for (int i = 0; i < rd2; i++) {
      l_RQR[i] = RQR[bid * rd2 + i];
      l_T[i] = T[bid * rd2 + i];
      l_T[i] += RQR[bid * rd2 + i + 1] * T[bid + i];
    }
    // CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: loop with constant trip count 'rd2' (computed from template arguments) is not unrolled{{.*}} [unrolling-constant-trip]
    // CHECK-FIXES: double l_T[rd2] = {0.0};
    // CHECK-FIXES: #pragma unroll
    // CHECK-FIXES-NEXT: for (int i = 0; i < rd2; i++) {
    double s = 0;
    for (int i = 0; i < rd2; i++)
      s += l_RQR[i] * l_T[i];
    out[bid] = s;
  }
}
template __global__ void kalman_like<8>(const double *, const double *, double *, int);

// A counter the body changes is not a counted loop, in a template's
// pattern or instantiation (through a reference bound by ?:) and outside
// templates (through a cast to a reference): not reported.
template <int N> __device__ float counter_by_ref(const float *in, int f) {
  float l[N];
  for (int j = 0; j < 64; ++j) {
    l[j % N] = in[j] * in[j + N];
    int &r = f ? j : f;
    r += 1;
  }
  return l[0];
}
__device__ float counter_by_cast(const float *in, int f) {
  float l[4];
  for (int j = 0; j < 64; ++j) {
    l[j % 4] = in[j] * in[j + 4];
    if (in[j] > f)
      (int &)j += 1;
  }
  return l[0];
}
__global__ void counters(const float *in, float *out) { out[0] = counter_by_ref<4>(in, 1) + counter_by_cast(in, 1); }

// Macro: the loop comes from a macro: finding without a fix.
#define SUM64(acc, p) for (int q = 0; q < 64; ++q) acc += (p)[q] * (p)[q + 64] + (p)[q + 128]
__global__ void macro(const float *in, float *out) {
  float acc = 0.0f;
  SUM64(acc, in);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: loop with constant trip count 64 {{.*}} [unrolling-constant-trip]
  out[0] = acc;
}

// Host loops are not touched.
void host(float *p) {
  for (int j = 0; j < 8; ++j)
    p[j] = 0;
}

// Not reported: nothing for full unrolling to gain. A chain of heavy calls,
// each on the result of the one before (seen in third-party code: a field
// squaring repeated 44 times in an elliptic-curve inversion): 44 copies of
// the body and no loads to overlap. A barrier in every iteration, in the
// body or in a function it calls (a non-maximum suppression's partition
// loop); a switch in the body.
__device__ void sq(unsigned *x) {
  unsigned t[8];
  for (int k = 0; k < 8; ++k)
    t[k] = x[k] * x[(k + 1) & 7] + x[(k + 3) & 7] * 7u + (x[(k + 5) & 7] >> 3);
  for (int k = 0; k < 8; ++k)
    x[k] = t[k] ^ (t[(k + 2) & 7] * 13u) ^ (t[(k + 4) & 7] + t[(k + 6) & 7]);
  for (int k = 0; k < 8; ++k)
    t[k] = x[k] * x[(k + 3) & 7] + x[(k + 1) & 7] * 11u + (x[(k + 6) & 7] >> 5);
  for (int k = 0; k < 8; ++k)
    x[k] = t[k] ^ (t[(k + 1) & 7] * 17u) ^ (t[(k + 5) & 7] + t[(k + 7) & 7]);
  for (int k = 0; k < 8; ++k)
    t[k] = x[k] * x[(k + 2) & 7] + x[(k + 4) & 7] * 19u + (x[(k + 7) & 7] >> 2);
  for (int k = 0; k < 8; ++k)
    x[k] = t[k] ^ (t[(k + 3) & 7] * 23u) ^ (t[(k + 6) & 7] + t[(k + 1) & 7]);
  for (int k = 0; k < 8; ++k)
    t[k] = x[k] * x[(k + 5) & 7] + x[(k + 2) & 7] * 29u + (x[(k + 3) & 7] >> 1);
  for (int k = 0; k < 8; ++k)
    x[k] = t[k] ^ (t[(k + 4) & 7] * 31u) ^ (t[(k + 2) & 7] + t[(k + 5) & 7]);
  for (int k = 0; k < 8; ++k)
    t[k] = x[k] * x[(k + 6) & 7] + x[(k + 3) & 7] * 37u + (x[(k + 1) & 7] >> 4);
  for (int k = 0; k < 8; ++k)
    x[k] = t[k] ^ (t[(k + 5) & 7] * 41u) ^ (t[(k + 3) & 7] + t[(k + 4) & 7]);
}
__global__ void chain(unsigned *p) {
  unsigned x[8];
  for (int k = 0; k < 8; ++k)
    x[k] = p[k];
  for (int j = 0; j < 44; j++)
    sq(x);
  for (int k = 0; k < 8; ++k)
    p[k] = x[k];
}
__device__ void mark(unsigned *m, int v) {
  __syncthreads();
  m[threadIdx.x] |= v;
}
__global__ void partitions(unsigned *m, const float *in, const float *w) {
  for (int i = 0; i < 40; i++)
    mark(m, in[i * 64 + threadIdx.x] * w[i] + in[i] * w[threadIdx.x] > 0.5f);
}
// Positive: a local array indexed by the counter stays in registers only
// when the loop is unrolled, barrier or not.
__global__ void staged_local(const float *in, float *out) {
  __shared__ float s[256];
  float r[48];
  for (int i = 0; i < 48; i++) {
    s[threadIdx.x] = in[i * 256 + threadIdx.x];
    __syncthreads();
    r[i] = s[(threadIdx.x + i) & 255] * s[(threadIdx.x * 3 + i) & 255] +
           s[(threadIdx.x * 5 + i) & 255] * s[(threadIdx.x * 7 + i) & 255];
    __syncthreads();
  }
  // CHECK-MESSAGES: t.cu:[[@LINE-7]]:3: warning: loop with constant trip count 48{{.*}} [unrolling-constant-trip]
  float acc = 0.0f;
  for (int i = 0; i < 48; i++)
    acc += r[i];
  out[threadIdx.x] = acc;
}
__global__ void variations(const float *in, float *out, const int *kind) {
  float acc = 0.0f;
  for (int i = 0; i < 49; i++) {
    switch (kind[i]) {
    case 0:
      acc += in[i] * in[i + 1] - in[i + 2];
      break;
    default:
      acc -= in[i] * 0.5f + in[i + 3] * in[i + 4];
    }
  }
  out[threadIdx.x] = acc;
}
