// algebraic-reciprocal-hoist: a division by a loop-invariant value in a loop uses a reciprocal computed once before it.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-reciprocal-hoist' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-reciprocal-hoist' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void divide(const float *in, float *out, float s, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < m; ++k) {
    out[i] += in[k] / s;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: division by loop-invariant 's' inside a loop (2 divisions){{.*}} [algebraic-reciprocal-hoist]
    out[i] -= in[k + 1] / s;
  }
  // CHECK-FIXES:      const float inv_s = 1.0f / s;
  // CHECK-FIXES-NEXT: for (int k = 0; k < m; ++k) {
  // CHECK-FIXES-NEXT:   out[i] += in[k] * inv_s;
  // CHECK-FIXES-NEXT:   out[i] -= in[k + 1] * inv_s;
  // Negative: the divisor changes in the loop.
  float t = s;
  for (int k = 0; k < m; ++k) {
    out[i] += in[k] / t;
    t += 1.0f;
  }
  // CHECK-FIXES: out[i] += in[k] / t;
}

// Taken over from algebraic-division-invariant: reported without a fix.
// One modulo against 12 bytes of global memory per iteration: a memory-bound loop
// hides it (H200, utils/bench/divmod: up to one division per 4 bytes), so
// only the floating division is reported.
__global__ void no_fix(const float *in, float *out, int *iout, float a,
                       float b, int groups, int n) {
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    iout[j] = j % groups;
    out[j] = in[j] / (a * b);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:20: warning: floating-point division by the loop-invariant '(a * b)'{{.*}} [algebraic-reciprocal-hoist]
    // CHECK-MESSAGES: note: no fix: only '/' by a variable of the division's type{{.*}}
  }
  // CHECK-FIXES: out[j] = in[j] / (a * b);
}

// An index split into four dimensions (a masking kernel's grid-stride
// loop): 4 distinct divisions (x / M and x % M of the same operands count
// once) against 12 bytes per iteration: reported once for the loop.
__global__ void decompose(int N, int M, int B, const float *in,
                          const int *len, float *out) {
  for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < B * N * M;
       index += blockDim.x * gridDim.x) {
    int k = index % M;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:19: warning: 4 integer divisions or modulos by loop-invariant run-time values on every iteration (by 'M' 2 times, 'N', '(N * M)'), against 12 bytes of global memory per iteration, more than the one per 4 bytes a memory-bound loop hides: each costs about a dozen instructions{{.*}} [algebraic-reciprocal-hoist]
    // CHECK-MESSAGES: note: the loop in which the divisors do not change
    // CHECK-MESSAGES: t.cu:[[@LINE+5]]:25: note: also divides here
    // CHECK-MESSAGES: t.cu:[[@LINE+4]]:29: note: also divides here
    // CHECK-MESSAGES: t.cu:[[@LINE+4]]:33: note: also divides here
    // CHECK-MESSAGES: t.cu:[[@LINE+4]]:19: note: also divides here
    // CHECK-MESSAGES: note: no fix: the tool has no rewrite for integer division by a run-time value yet
    int j = (index - k) / M % N;
    int i = (index - M * j - k) / (N * M);
    int q = index / M; // the quotient of index % M: nvcc computes it once
    out[index] = k >= len[j] ? 0.f : in[(i * N + j) * M + k] + q;
  }
}

// A loop that moves no memory: the divisions are its work.
__device__ unsigned modpow(unsigned a, unsigned b, unsigned n) {
  unsigned long long d = 1, A = a;
  do {
    if (b & 1)
      d = (d * A) % n;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:19: warning: 2 integer divisions or modulos by loop-invariant run-time values on every iteration (by 'n' 2 times), in a loop that moves no global memory{{.*}} [algebraic-reciprocal-hoist]
    // CHECK-MESSAGES: note: the loop in which
    // CHECK-MESSAGES: note: also divides here
    // CHECK-MESSAGES: note: no fix:
    A = (A * A) % n;
  } while (b >>= 1);
  return (unsigned)d;
}

// Two modulos against two bytes (a string compare with wrap-around).
__device__ bool rotation_less(int a, int b, const char *g, int n) {
  for (int i = 0; i < n; i++)
    if (g[(a + i) % n] != g[(b + i) % n])
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:19: warning: 2 integer divisions or modulos by loop-invariant run-time values on every iteration (by 'n' 2 times), against 2 bytes of global memory per iteration{{.*}} [algebraic-reciprocal-hoist]
      // CHECK-MESSAGES: note: the loop in which
      // CHECK-MESSAGES: note: also divides here
      // CHECK-MESSAGES: note: no fix:
      return g[(a + i) % n] < g[(b + i) % n];
  return false;
}

// Only global memory whose address changes counts: a walk over shared
// memory, or a load nvcc keeps in a register, hides nothing.
__global__ void shared_walk(float *out, const float *scale, int n, int d) {
  __shared__ float tile[1024];
  float *t = tile;
  float acc = 0.f;
  for (int j = 0; j < n; j++)
    acc += t[j] * scale[blockIdx.x] * (j % d);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:42: warning: 1 integer division or modulo by loop-invariant run-time values on every iteration (by 'd'), in a loop that moves no global memory{{.*}} [algebraic-reciprocal-hoist]
  // CHECK-MESSAGES: note: the loop in which
  // CHECK-MESSAGES: note: no fix:
  out[threadIdx.x] = acc;
}

// Divisions from one macro count one by one; a template counts with the
// instantiation that moves the fewest bytes (float: 8 per iteration).
#define SPLIT(x, a, b, c) ((x) / (a) + (x) % (b) * 7 + (x) / (c) * 3)
template <typename T>
__global__ void split(T *out, const T *in, int n, int a, int b, int c) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    out[i] = in[SPLIT(i, a, b, c)];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: 3 integer divisions or modulos by loop-invariant run-time values on every iteration{{.*}}against 8 bytes of global memory per iteration{{.*}} [algebraic-reciprocal-hoist]
  // CHECK-MESSAGES: note: the loop in which
  // The other two divisions are at the same place (the macro's use): one
  // note says so.
  // CHECK-MESSAGES: note: also divides here
  // CHECK-MESSAGES-NOT: note: also divides here
  // CHECK-MESSAGES: note: no fix:
}
template __global__ void split<double>(double *, const double *, int, int, int, int);
template __global__ void split<float>(float *, const float *, int, int, int, int);

// Not reported: one 64-bit division (x % d and x / d of the same operands,
// counted as 2) against 24 bytes per iteration (six 4-byte fields: a field
// of an element counts its own bytes).
struct F2 { float x, y; };
__global__ void grad(F2 *out, const F2 *in, size_t n, size_t rows,
                     size_t cols) {
  for (size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x; id < n;
       id += blockDim.x * gridDim.x) {
    size_t idx = id % (rows * (cols - 1)) + id / (rows * (cols - 1)) * rows * cols;
    out[idx].x = in[idx + rows].x - in[idx].x;
    out[idx].y = in[idx + rows].y - in[idx].y;
  }
}

// Not reported: the division is in a loop that holds another (a tile loop
// around its k loop): it runs once per inner loop, not where the time goes.
__global__ void tile_loop(const float *in, float *out, int tileCols, int tiles, int k) {
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int r0 = t / tileCols * 64, c0 = t % tileCols * 64;
    float acc = 0;
    for (int kk = 0; kk < k; ++kk)
      acc += in[r0 * k + kk] * in[c0 * k + kk];
    out[t] = acc;
  }
}

// Not reported: the dividend does not change in the loop either (nvcc
// computes the quotient once before it; seen in third-party code: a
// rejection sampler's `x > -1.f / c`), and a division in one case of a
// switch (the reciprocal before the loop would cost every thread a
// division that case may never need; seen in a fractal renderer's 49
// variations).
__global__ void invariant_quotient(const float *x, float *y, float c, int n) {
  float s = 0.f;
  for (int i = 0; i < n; i++)
    if (x[i] > -1.f / c)
      s += x[i];
  y[threadIdx.x] = s;
}
__global__ void in_switch(const int *kind, float *y, float r, int n) {
  float s = 0.f;
  for (int i = 0; i < n; i++) {
    switch (kind[i]) {
    case 0:
      s += 1.f;
      break;
    case 7:
      s += kind[i] / r;
      break;
    default:
      s -= 1.f;
    }
  }
  y[threadIdx.x] = s;
}

// A double divisor that is an expression: no fix, and the reciprocal the
// message suggests is a double one.
__global__ void double_expr(const double *x, double *y, double d, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] / (2.0 * d);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: floating-point division by the loop-invariant '(2.0 * d)'{{.*}}compute 'inv = 1.0 / ((2.0 * d))' once before the loop and multiply (results may differ by up to 2 ulp) [algebraic-reciprocal-hoist]
  y[threadIdx.x] = s;
}

// The loop's memory traffic hides the division when it moves at least 32
// bytes per float division (48 per double): a stencil reading nine values
// and writing three per division is not reported (measured on an H200, one
// division per 32 bytes costs about 3%).
__global__ void stencil_per_division(const float *u, float *a, float *b, float *c, float h, int nx, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x + nx + 1; i < n - nx - 1; i += blockDim.x * gridDim.x) {
    float lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx - 1] + u[i - nx + 1] + u[i + nx - 1] + u[i + nx + 1] - 8.f * u[i];
    float g = lap / h;
    a[i] = g;
    b[i] = g * g;
    c[i] = -g;
  }
}
__global__ void double_sum_per_division(double *x, const double *y, const double *z, const double *w, const double *v, double m, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] = (x[i] + y[i] + z[i] + w[i] + v[i]) / (m * 2.0);
}
// A streamed float in and out per division (8 bytes): 1.14x the copy's time
// on an H200, reported.
__global__ void scale_stream(const float *in, float *out, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] / s;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:20: warning: division by loop-invariant 's' inside a loop (1 division){{.*}} [algebraic-reciprocal-hoist]
}
// A read-modify-write of a double per division by an expression (16
// bytes): reported, without a fix.
__global__ void double_rmw(double *x, double m, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] /= (m * 2.0);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:10: warning: floating-point division by the loop-invariant '(m * 2.0)'{{.*}} [algebraic-reciprocal-hoist]
}
// A template's pattern (elements of dependent size: once a stack overflow
// in the rule's memory count): 8 bytes per division, reported.
template <typename T> __global__ void tmpl_stream(const T *in, float *out, int n, float d) {
  for (int i = threadIdx.x; i < n; i++) {
    float x = in[i];
    out[i] = x / d;
  }
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:16: warning: division by loop-invariant 'd' inside a loop (1 division){{.*}} [algebraic-reciprocal-hoist]
}
template __global__ void tmpl_stream<float>(const float *, float *, int, float);

// Not reported: the loop calls a function that loops, through another
// function (a renderer's samples, each tracing rays through an ambient
// occlusion loop): the division runs once per inner loop. The same
// division in a loop that calls a loop-free function is reported.
__device__ float occlusion(float x, int rays) {
  float acc = 0.0f;
  for (int k = 0; k < rays; k++)
    acc += sinf(x + k);
  return acc;
}
__device__ float shade(float x, int rays) { return occlusion(x, rays) * 0.5f; }
__device__ float light(float x) { return sinf(x) * 0.5f; }
__global__ void samples(float *out, int n, int w, int rays) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int u = 0; u < n; u++)
    s += shade(u / (w / 2.0f), rays);
  for (int u = 0; u < n; u++)
    s += light(u / (w / 2.0f));
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: floating-point division by the loop-invariant '(w / 2.0f)'{{.*}} [algebraic-reciprocal-hoist]
  // CHECK-MESSAGES: note: no fix:
  out[i] = s;
}
