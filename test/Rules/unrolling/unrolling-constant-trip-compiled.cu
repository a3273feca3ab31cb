// unrolling-constant-trip compiles the kernel holding a reported loop with
// NVRTC, with and without the pragma, and drops the finding when the
// machine code (code sections and register counts) is the same: nvcc
// already unrolls that loop, whatever the size estimate says. Seen on
// HeCBench's kalman: a template kernel filling local arrays of R*R doubles,
// whose PTX is identical with and without the pragma. Also dropped when
// the compiler unrolls the loop partly (4 copies of the body or more, from
// the code sizes with `#pragma unroll 1`, as it is and with `#pragma
// unroll`): mpc's bit-plane gathers, which it unrolls by 16. Also dropped
// when the code as it is is no larger than the fully unrolled one (the
// compiler unrolled the loop in another order: bspline-vgh's 4 x 4
// products), and when one copy of the body is 2 KB of machine code or more
// (lci's sums of a chain of calls): a counter and a branch are nothing
// beside it.
// REQUIRES: nvrtc
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-constant-trip' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPARED --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// With the comparison off (CompareCode: false), the size estimate alone
// decides, and reports the loops nvcc unrolls by itself too.
// RUN: printf 'CheckOptions:\n  unrolling-constant-trip.CompareCode: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,unrolling-constant-trip' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ESTIMATE --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// The fix is the pragma the comparison measured, and what it writes compiles.
// RUN: cd %t && %cuda-l1-rewrite --rules='-*,unrolling-constant-trip' --allow-unverified -o out t.cu
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/out/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/out/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

// Twenty-four trips of two libdevice calls: NVRTC unrolls the loop by 2
// (about 600 bytes a copy), and the pragma makes the code 3 times longer,
// with the loads together.
__device__ float series(const float *c, float x) {
  float r = 0.0f;
  // COMPARED: t.cu:[[@LINE+3]]:3: warning: loop with constant trip count 24 is not unrolled
  // ESTIMATE: t.cu:[[@LINE+2]]:3: warning: loop with constant trip count 24 is not unrolled
  // CHECK-FIXES: {{^}}  #pragma unroll{{$}}
  for (int k = 0; k < 24; ++k)
    r = r * x + c[k] * expf(c[k + 1] * x) + c[k + 2] * logf(c[k] * x);
  return r;
}

__global__ void eval(const float *c, const float *xs, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = series(c, xs[i]);
}

// The same loop with sinf, whose range reduction makes one copy of the body
// about 2.4 KB (150 instructions): the counter and the branch the pragma
// removes are 2% of an iteration. Not reported once compiled.
__device__ float waves(const float *c, float x) {
  float r = 0.0f;
  // ESTIMATE: t.cu:[[@LINE+1]]:3: warning: loop with constant trip count 24 is not unrolled
  for (int k = 0; k < 24; ++k)
    r = r * x + c[k] * expf(c[k + 1] * x) + sinf(c[k] * x);
  return r;
}

__global__ void evalw(const float *c, const float *xs, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = waves(c, xs[i]);
}

// A tricubic spline's 4 x 4 products, the inner loop without braces around
// it: the code as it is (8.3 KB) is smaller than with the pragma (8.5 KB),
// which also differs from it: the compiler unrolled the loop fully, in
// another order. Not reported once compiled.
__device__ void spline(const float *__restrict__ coefs, long xs, long ys,
                       long zs, const float *a, const float *b,
                       const float *c, const float *da, const float *db,
                       const float *dc, const float *d2a, const float *d2b,
                       const float *d2c, float *__restrict__ out) {
  float h[9];
  for (int k = 0; k < 9; ++k)
    h[k] = 0.f;
  float v = 0.f;
  for (int i = 0; i < 4; i++)
    // ESTIMATE: t.cu:[[@LINE+1]]:5: warning: loop with constant trip count 4 is not unrolled
    for (int j = 0; j < 4; j++) {
      float w0 = a[i] * b[j], w1 = da[i] * b[j], w2 = d2a[i] * b[j];
      float w3 = a[i] * db[j], w4 = da[i] * db[j], w5 = a[i] * d2b[j];
      const float *q = coefs + i * xs + j * ys;
      float s0 = c[0] * q[0] + c[1] * q[zs] + c[2] * q[2 * zs] + c[3] * q[3 * zs];
      float s1 = dc[0] * q[0] + dc[1] * q[zs] + dc[2] * q[2 * zs] + dc[3] * q[3 * zs];
      float s2 = d2c[0] * q[0] + d2c[1] * q[zs] + d2c[2] * q[2 * zs] + d2c[3] * q[3 * zs];
      h[0] += w2 * s0; h[1] += w4 * s0; h[2] += w1 * s1;
      h[4] += w5 * s0; h[5] += w3 * s1; h[8] += w0 * s2;
      h[3] += w0 * s1; h[6] += w1 * s0; h[7] += w3 * s0;
      v += w0 * s0;
    }
  out[0] = v;
  for (int k = 0; k < 9; ++k)
    out[1 + k] = h[k];
}

__global__ void evals(const float *coefs, const float *abc, float *out,
                      long xs, long ys, long zs) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  spline(coefs + t, xs, ys, zs, abc, abc + 4, abc + 8, abc + 12, abc + 16,
         abc + 20, abc + 24, abc + 28, abc + 32, out + 10 * t);
}

// A device function's loop over a local array: 64 trips are beyond the
// estimate, but nvcc unrolls them by itself (the array stays in registers),
// so the pragma changes nothing.
__device__ double fill(const double *a, const double *b, int base) {
  double x[64];
  // ESTIMATE: t.cu:[[@LINE+1]]:3: warning: loop with constant trip count 64 is not unrolled
  for (int i = 0; i < 64; i++)
    x[i] = a[base + i] * 0.5 + b[base + i] * b[base + i + 1] - a[base + 2 * i];
  double s = 0;
  for (int i = 0; i < 63; i++)
    s += x[i] * x[i + 1];
  return s;
}

__global__ void evald(const double *a, const double *b, double *out) {
  out[blockIdx.x] = fill(a, b, blockIdx.x * 64);
}

// kalman's shape: a template kernel, local arrays of R * R elements. The
// instantiation (R = 8, 64 trips) is unrolled by nvcc without the pragma.
template <int R>
__global__ void update(const double *a, const double *b, double *out) {
  constexpr int R2 = R * R;
  double x[R2], y[R2];
  int base = blockIdx.x * R2;
  // ESTIMATE: t.cu:[[@LINE+1]]:3: warning: loop with constant trip count 'R2' (computed from template arguments) is not unrolled
  for (int i = 0; i < R2; i++) {
    x[i] = a[base + i] * 0.5 + b[base + i];
    y[i] = b[base + i] * a[base + i] - 1.0;
  }
  double s = 0;
  for (int i = 0; i < R2; i++)
    s += x[i] * y[(i + 1) % R2];
  out[blockIdx.x] = s;
}

// A bit-plane transpose: each thread gathers bit `lane` of 64 words from
// shared memory. Over the size estimate, and the pragma changes the code,
// but the compiler already unrolls the loop by 16 (NVRTC; nvcc 13 fully):
// the loads of 16 iterations are issued together without the pragma, and
// it would save one branch per 16 iterations. Not reported. (The
// `eval` loop above stays rolled without the pragma: reported.)
__global__ void bitplanes(unsigned long long *words) {
  __shared__ unsigned long long s[1024];
  int t = threadIdx.x;
  int group = t & ~63, lane = t & 63;
  s[t] = words[blockIdx.x * 1024 + t];
  __syncthreads();
  unsigned long long v = 0;
  // ESTIMATE: t.cu:[[@LINE+1]]:3: warning: loop with constant trip count 64 is not unrolled
  for (int i = 63; i >= 0; i--) {
    v = (v << 1) + ((s[group + i] >> lane) & 1);
  }
  words[blockIdx.x * 1024 + t] = v;
}

void run(const double *a, const double *b, double *o) {
  update<8><<<64, 1>>>(a, b, o);
}
