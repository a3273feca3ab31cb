// Arithmetic a thread runs once (or in loops of fewer than 8 iterations,
// or of a known count when the long loop's known count is 64 times
// theirs) in a kernel's body, beside a loop of many iterations that runs
// whenever it does, is a small share of the thread's time: the algebraic rules (C++
// and YAML) do not report it, as the coalescing rules do not report such
// accesses. The same arithmetic inside the long loop, in a kernel without
// one, or on a path the long loop is not on, is reported.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-*' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// With every rule (the access analysis is the same either way).
// RUN: %cuda-l1-rewrite %t/t.cu 2>&1 | FileCheck %s --implicit-check-not='[algebraic-'
#include <cuda_runtime.h>

// Prologue and epilogue of a thread that walks a row: silent. (The
// epilogue's powf(m2, 1.5f), powf-three-halves, and the division in a
// three-iteration loop, reciprocal-hoist, too.)
__global__ void row_stats(const float *x, float *out, int cols, float a) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float scale = pow(a, 2.0f);
  float m2 = 0;
  for (int c = 0; c < cols; c++) {
    float t = x[r * cols + c] - scale;
    m2 += t * t;
  }
  out[r] = powf(m2, 1.5f);
  for (int d = 0; d < 3; d++)
    out[r * 4 + d + 1] = out[r] / m2;
}

// Before a branch whose other side holds the loop: the loop does not run
// whenever it does, so the first pow is reported; the one beside the loop
// on its own path is not.
__global__ void walk(double *out, int n, double a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double c = pow(i / a, 2.0);
  if (c > 1.0) {
    out[i] = 1.0;
  } else {
    double w = exp(pow(i / a, 2.0) - 1.0);
    double s = 0;
    for (int k = 0; k < n; k++)
      s += sin(s + k);
    out[i] = w - s;
  }
}
// CHECK: t.cu:[[@LINE-11]]:14: warning: pow(i / a, 2.0) {{.*}}[algebraic-powf-square]

// The long loop in a device function the kernel always calls (an escape
// count): the epilogue beside the call is silent. A call on some paths
// only does not count: reported.
__device__ int escape(float c, int maxit) {
  float z = 0.0f;
  int k = 0;
  for (int it = 0; it < maxit; ++it) {
    if (z * z >= 4.0f)
      break;
    z = z * z + c;
    ++k;
  }
  return k;
}
__global__ void shade(float *out, int maxit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float k = escape(0.001f * i, maxit);
  out[i] = powf(k, 2.0f);
}
__global__ void shade_some(float *out, int maxit, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float k = mode ? escape(0.001f * i, maxit) : 1.0f;
  out[i] = powf(k, 2.0f);
}
// CHECK: t.cu:[[@LINE-2]]:12: warning: powf(k, 2.0f) {{.*}}[algebraic-powf-square]

// Inside the long loop: reported.
__global__ void in_loop(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < n; k++)
    s += powf(x[k] - x[i], 2.0f);
  out[i] = s;
}
// CHECK: t.cu:[[@LINE-3]]:10: warning: powf(x[k] - x[i], 2.0f) {{.*}}[algebraic-powf-square]

// No long loop: the statement is the kernel's work. Reported.
__global__ void map(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = powf(x[i], 2.0f);
}
// CHECK: t.cu:[[@LINE-2]]:12: warning: powf(x[i], 2.0f) {{.*}}[algebraic-powf-square]

// A loop of a constant four iterations is not a long loop: reported.
__global__ void four(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = powf(x[i], 2.0f);
  for (int k = 0; k < 4; k++)
    s += x[i + k];
  y[i] = s;
}
// CHECK: t.cu:[[@LINE-5]]:13: warning: powf(x[i], 2.0f) {{.*}}[algebraic-powf-square]

// A loop of k < K iterations beside one of m < M, both launch constants
// (a Monte Carlo count normalised at the end): silent when M is at least
// 64 times K (21 divisions beside 10000 iterations), reported when it is
// not (21 beside 500) or when K is not known.
__global__ void tally(const double *w, double *probs, int K, int M) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double Md = (double)M;
  for (int m = 0; m < M; ++m)
    probs[i * K + (int)w[m] % K] += 1.0;
  for (int k = 0; k < K; ++k)
    probs[i * K + k] /= Md;
}
__global__ void tally_short(const double *w, double *probs, int K, int M) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double Md = (double)M;
  for (int m = 0; m < M; ++m)
    probs[i * K + (int)w[m] % K] += 1.0;
  for (int k = 0; k < K; ++k)
    probs[i * K + k] /= Md;
}
// CHECK: t.cu:[[@LINE-2]]:22: warning: floating-point division by the loop-invariant 'Md'{{.*}}[algebraic-reciprocal-hoist]
__global__ void tally_any(const double *w, double *probs, int K, int M) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double Md = (double)M;
  for (int m = 0; m < M; ++m)
    probs[i * K + (int)w[m] % K] += 1.0;
  for (int k = 0; k < K; ++k)
    probs[i * K + k] /= Md;
}
// CHECK: t.cu:[[@LINE-2]]:22: warning: floating-point division by the loop-invariant 'Md'{{.*}}[algebraic-reciprocal-hoist]

void run(float *x, float *y, double *d, int k) {
  tally<<<64, 128>>>(d, d + 1000, 21, 10000);
  tally_short<<<64, 128>>>(d, d + 1000, 21, 500);
  tally_any<<<64, 128>>>(d, d + 1000, k, 10000);
  row_stats<<<64, 128>>>(x, y, 1024, 2.0f);
  walk<<<64, 128>>>(d, 1000, 3.0);
  in_loop<<<64, 128>>>(x, y, 1024);
  map<<<64, 128>>>(x, y, 8192);
  four<<<64, 128>>>(x, y);
}
