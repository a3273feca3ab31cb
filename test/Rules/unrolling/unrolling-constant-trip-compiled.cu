// unrolling-constant-trip compiles the kernel holding a reported loop with
// NVRTC, with and without the pragma, and drops the finding when the
// machine code (code sections and register counts) is the same: nvcc
// already unrolls that loop, whatever the size estimate says. Seen on
// HeCBench's kalman: a template kernel filling local arrays of R*R doubles,
// whose PTX is identical with and without the pragma. Also dropped when
// the compiler unrolls the loop partly (4 copies of the body or more, from
// the code sizes with `#pragma unroll 1`, as it is and with `#pragma
// unroll`): mpc's bit-plane gathers, which it unrolls by 16.
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

// Twenty-four trips of two libdevice calls: nvcc keeps the loop rolled,
// and the pragma makes the code ~20 times longer, with the loads together.
__device__ float series(const float *c, float x) {
  float r = 0.0f;
  // COMPARED: t.cu:[[@LINE+3]]:3: warning: loop with constant trip count 24 is not unrolled
  // ESTIMATE: t.cu:[[@LINE+2]]:3: warning: loop with constant trip count 24 is not unrolled
  // CHECK-FIXES: {{^}}  #pragma unroll{{$}}
  for (int k = 0; k < 24; ++k)
    r = r * x + c[k] * expf(c[k + 1] * x) + sinf(c[k] * x);
  return r;
}

__global__ void eval(const float *c, const float *xs, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = series(c, xs[i]);
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
