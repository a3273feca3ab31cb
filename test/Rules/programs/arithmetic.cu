// Arithmetic: double promotion, pow with small exponents, divisions in
// loops, and constant-trip-count loops without #pragma unroll.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

__device__ float gelu(float x) {
  return 0.5 * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

__global__ void activations(const float *__restrict__ in,
                            float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    out[i] = gelu(v) + powf(v, 2.0f) + pow(v, 0.5f) + sqrt(v) + exp(v);
    // Explicit double on purpose: no double-math / double-literal finding.
    out[i] += (float)sqrt((double)v * 0.5);
  }
}

__global__ void scale_rows(float *__restrict__ a, const float *__restrict__ s,
                           int rows, int cols, int groups) {
  int r = blockIdx.x;
  float d = s[r];
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    a[r * cols + j] = a[r * cols + j] / d;
    int g = j % groups;
    int q = (j - groups) / 64;
    a[r * cols + j] += g + q;
  }
}

__global__ void fir(const float *__restrict__ x, const float *__restrict__ h,
                    float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 8)
    return;
  float acc = 0.0f;
  for (int t = 0; t < 8; ++t)
    acc += h[t] * x[i + t];
  y[i] = acc;
}

__global__ void fir_unrolled(const float *__restrict__ x,
                             const float *__restrict__ h,
                             float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 8)
    return;
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < 8; ++t)
    acc += h[t] * x[i + t];
  y[i] = acc;
}

// Register tile indexed by the induction variable, no pragma.
__global__ void fir4(const float *__restrict__ x, const float *__restrict__ h,
                     float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  if (i + 3 * stride + 8 >= n)
    return;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int t = 0; t < 8; ++t) {
    float c = h[t];
    for (int k = 0; k < 4; ++k)
      acc[k] += c * x[i + k * stride + t];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k)
    y[i + k * stride] = acc[k];
}

void launch(const float *in, float *out, const float *s, int n) {
  activations<<<(n + 255) / 256, 256>>>(in, out, n);
  scale_rows<<<n, 256>>>(out, s, n, n, 3);
  fir<<<(n + 255) / 256, 256>>>(in, s, out, n);
  fir_unrolled<<<(n + 255) / 256, 256>>>(in, s, out, n);
  fir4<<<(n / 4 + 255) / 256, 256>>>(in, s, out, n);
}

// CHECK-MESSAGES: arithmetic.cu:7:10: warning: double literal '0.5' promotes float arithmetic to double (FP64 runs at 1/2 to 1/64 of the FP32 rate); use '0.5{{.*}} [algebraic-float-literal]
// CHECK-MESSAGES: arithmetic.cu:7:10: note: the surrounding expression is then computed in float rather than double: results may differ by a few ulp
// CHECK-MESSAGES: arithmetic.cu:15:24: warning: powf(v, 2.0f) takes the general exp/log path (tens of instructions); (v) * (v) is one multiply [algebraic-powf-square]
// CHECK-MESSAGES: arithmetic.cu:15:40: warning: pow(v, 0.5f) takes the general exp/log path; sqrtf is one hardware-assisted operation [algebraic-powf-sqrt]
// CHECK-MESSAGES: arithmetic.cu:26:39: warning: division by loop-invariant 'd' inside a loop (1 division); a reciprocal computed once before the loop turns ea{{.*}} [algebraic-reciprocal-hoist]
// CHECK-MESSAGES: arithmetic.cu:25:3: note: the loop in which 'd' does not change
// Not reported: 'j % groups' and '(j - groups) / 64' at 28:26 (a signed
// division by 64 not proven >= 0) sit in a loop that reads and writes 8
// bytes of global memory per iteration, which hides the sign fix-up.
