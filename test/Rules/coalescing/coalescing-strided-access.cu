// coalescing-strided-access: global accesses whose consecutive threads are a constant stride apart
// (array-of-structures fields); all fields read together share their sectors.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-strided-access' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-strided-access' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// Array of structures (strided field loads) versus structure of arrays.
// All fields of a struct read together share their sectors (no finding).
#include <cuda_runtime.h>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__global__ void advance_aos(Particle *__restrict__ p, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

// Reads 3 of the 6 fields: half of every fetched sector is wasted.
__global__ void kinetic_aos(const Particle *__restrict__ p,
                            float *__restrict__ e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = 0.5f * (p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz);
}

// Reads only x: 4 of every 24 bytes.
__global__ void positions_x(const Particle *__restrict__ p,
                            float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = p[i].x;
}

// Each thread reads its own chunk of 8 floats: every fetched byte is used
// by the loop's iterations (no finding).
__global__ void chunk_sum8(const float *__restrict__ in,
                           float *__restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    a += in[t * 8 + j];
  out[t] = a;
}

// Reading 2 of each 8: three quarters of every fetched sector are wasted.
__global__ void chunk_sum2(const float *__restrict__ in,
                           float *__restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float b = 0.0f;
#pragma unroll
  for (int j = 0; j < 2; ++j)
    b += in[t * 8 + j];
  out[t] = b;
}

struct Particles {
  float *x, *y, *z;
  const float *vx, *vy, *vz;
};

__global__ void advance_soa(float *__restrict__ x, float *__restrict__ y,
                            float *__restrict__ z,
                            const float *__restrict__ vx,
                            const float *__restrict__ vy,
                            const float *__restrict__ vz, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}

void launch(Particle *p, float *x, float *y, float *z, const float *vx,
            const float *vy, const float *vz, int n) {
  advance_aos<<<(n + 255) / 256, 256>>>(p, 0.01f, n);
  kinetic_aos<<<(n + 255) / 256, 256>>>(p, x, n);
  positions_x<<<(n + 255) / 256, 256>>>(p, x, n);
  chunk_sum8<<<n / 2048, 256>>>(vx, x);
  chunk_sum2<<<n / 2048, 256>>>(vx, x);
  advance_soa<<<(n + 255) / 256, 256>>>(x, y, z, vx, vy, vz, 0.01f, n);
}

// CHECK-MESSAGES: t.cu:39:25: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: t.cu:47:17: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: t.cu:69:10: warning: strided global load: consecutive threads are 8 elements apart; a warp request touches 32 3{{.*}} [coalescing-strided-access]

// Once per thread beside a loop that runs many times: not reported (one
// field of the thread's own record, read before an O(n) loop over a
// coalesced array).
struct Body {
  float m, x, y;
};
__global__ void potential(const Body *b, const float *w, float *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float mi = b[i].m;
  float acc = 0.0f;
  for (int j = 0; j < n; ++j)
    acc += mi * w[j];
  e[i] = acc;
}

// Fields read under a condition on another field of the same record count
// as used: the 12-byte record is read whole (not reported). Struct-valued
// members (double3 of an 88-byte record) count with their size: 72 of 88
// bytes, 1.2x (not reported). A 64-byte record of which the condition and
// its body use 8 bytes is still reported.
struct Cell {
  float x, y;
  int alive;
};
__global__ void push_alive(Cell *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && c[i].alive)
    c[i].x += c[i].y;
}
struct State {
  double3 pos, v, a;
  double m, e;
};
__global__ void advance(State *s, double dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double3 v = s[i].v, p = s[i].pos, a = s[i].a;
  p.x += dt * v.x + a.x;
  p.y += dt * v.y;
  p.z += dt * v.z;
  s[i].pos = p;
}
struct Wide {
  float flag, val;
  float pad[14];
};
__global__ void sparse_wide(Wide *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && w[i].flag > 0.0f)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: strided global load: consecutive threads are 16 elements apart{{.*}}8 of every 64 bytes are used (8x the memory traffic) [coalescing-strided-access]
    w[i].val = 0.0f;
}

// Reported: the rest of the record is read by one lane only (a condition on
// the thread index, not on the record): those reads fetch it for one
// thread, not for the warp.
struct Rec8 {
  float a, b, c, d, e, f, g, h;
};
__global__ void lane0_rest(const Rec8 *r, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = r[i].a;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: strided global load: consecutive threads are 8 elements apart{{.*}} [coalescing-strided-access]
  if (threadIdx.x == 0)
    out[n + blockIdx.x] = r[i].b + r[i].c + r[i].d + r[i].e + r[i].f + r[i].g + r[i].h;
  out[i] = v;
}

// A loop over the whole record (64 doubles, 512 bytes) reads every byte
// of the stride: not reported.
template <int R>
__global__ void copy_record(const double *t, double *out, int n) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= n)
    return;
  double acc = 0.0;
  for (int i = 0; i < R * R; i++)
    acc += t[b * R * R + i];
  out[b] = acc;
}
void records(const double *t, double *out, int n) {
  copy_record<8><<<n / 128, 128>>>(t, out, n);
}

// Finding only: the file is not changed.
// CHECK-FIXES: p[i].x += p[i].vx * dt;

// Fields of different types, all read: one thread's 40 bytes are used
// whole (no finding).
struct Charged {
  double x, v;
  float charge;
  int alive;
  double pad[2];
};
__global__ void push_all(const Charged *__restrict__ p,
                         double *__restrict__ e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = p[i].x + p[i].v * p[i].charge + p[i].alive + p[i].pad[0] +
           p[i].pad[1];
}

// A pixel's channels at a stride the launches pass ('channels' is 4 at
// every launch, through a host function): three of four channels read
// use 12 of every 16 bytes (no finding); one channel alone is strided.
__global__ void luminance(const float *__restrict__ in,
                          float *__restrict__ out, int width,
                          int channels) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  float r = in[(y * width + x) * channels + 0];
  float g = in[(y * width + x) * channels + 1];
  float b = in[(y * width + x) * channels + 2];
  out[y * width + x] = 0.2126f * r + 0.7152f * g + 0.0722f * b;
}
__global__ void red(const float *__restrict__ in, float *__restrict__ out,
                    int width, int channels) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  out[blockIdx.y * width + x] = in[(blockIdx.y * width + x) * channels];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:33: warning: strided global load: consecutive threads are 4 elements apart; a warp request touches 16 32-byte sectors instead of 4 (4x the memory traffic) [coalescing-strided-access]
  // CHECK-MESSAGES: note: {{.*}}'channels' = 4 at every launch in this file
}
static void image(const float *in, float *out, int width, int height,
                  int channels) {
  dim3 grid(width / 128, height);
  luminance<<<grid, 128>>>(in, out, width, channels);
  red<<<grid, 128>>>(in, out, width, channels);
}
void run_image(const float *in, float *out) {
  const int channels = 4;
  push_all<<<64, 256>>>((const Charged *)in, (double *)out, 16384);
  image(in, out, 1024, 768, channels);
}

// A thread's row of K counters (every launch passes K = 21, 168-byte rows):
// cleared before and divided after a loop of M samples. With M = 10000 at
// every launch (at least 64 times K), the clearing and the division are a
// small share of the thread's work: only the loads in the sample loop are
// reported. With M = 300, or M not known, the loops around it are
// reported too.
__global__ void vote(const double *__restrict__ score,
                     const double *__restrict__ noise,
                     double *__restrict__ freq, int n, int K, int M) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < K; ++k)
    freq[i * K + k] = 0.0;
  for (int m = 0; m < M; ++m) {
    int best = 0;
    double top = -1e300;
    for (int k = 0; k < K; ++k) {
      double v = score[i * K + k] + noise[m * K + k];
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: strided global load: consecutive threads are 21 elements apart{{.*}} [coalescing-strided-access]
      if (v > top) {
        top = v;
        best = k;
      }
    }
    freq[i * K + best] += 1.0;
  }
  for (int k = 0; k < K; ++k)
    freq[i * K + k] /= M;
}
__global__ void vote_short(double *__restrict__ freq, int n, int K, int M) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < K; ++k)
    freq[i * K + k] = 0.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: strided global store: consecutive threads are 21 elements apart{{.*}} [coalescing-strided-access]
  double s = 0.0;
  for (int m = 0; m < M; ++m)
    s += m * 0.5;
  for (int k = 0; k < K; ++k)
    freq[i * K + k] += s;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: strided global read-modify-write: consecutive threads are 21 elements apart{{.*}} [coalescing-strided-access]
}
void votes(const double *a, const double *b, double *f, int n) {
  vote<<<n / 128, 128>>>(a, b, f, n, 21, 10000);
  vote_short<<<n / 128, 128>>>(f, n, 21, 300);
}
