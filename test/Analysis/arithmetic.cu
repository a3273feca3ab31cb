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

// CHECK-MESSAGES: arithmetic.cu:7:10: warning: double-precision literal '0.5' makes '0.5 * x' a double operation on float data: two conve{{.*}} [algebraic-double-literal]
// CHECK-MESSAGES: arithmetic.cu:15:24: warning: 'powf' with the constant exponent 2.0f runs the general exp2(y*log2(x)) sequence (about 20{{.*}} [algebraic-pow-small-exponent]
// CHECK-MESSAGES: arithmetic.cu:15:40: warning: 'pow' with the constant exponent 0.5f runs the general exp2(y*log2(x)) sequence (about 20 {{.*}} [algebraic-pow-small-exponent]
// CHECK-MESSAGES: arithmetic.cu:26:39: warning: floating-point division by the loop-invariant 'd' on every iteration (about 8 instructions{{.*}} [algebraic-division-invariant]
// CHECK-MESSAGES: arithmetic.cu:27:15: warning: integer modulo by the loop-invariant 'groups' on every iteration (about 20 instructions ea{{.*}} [algebraic-division-invariant]
// CHECK-MESSAGES: arithmetic.cu:28:26: warning: signed division by 64 inside a loop: rounding toward zero needs a sign fix-up (3-4 instruc{{.*}} [algebraic-signed-pow2-division]
// CHECK-MESSAGES: arithmetic.cu:67:5: warning: loop with a constant trip count of 4 indexes the local array 'acc' with 'k' but is not mar{{.*}} [unrolling-constant-trip-count]
// CHECK-MESSAGES: arithmetic.cu:68:7: note: indexed by the induction variable here
