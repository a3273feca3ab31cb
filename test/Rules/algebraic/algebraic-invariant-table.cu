// algebraic-invariant-table: a costly value of constant loop counters alone
// (filter weights), recomputed by every thread, becomes a per-block table in
// shared memory. MeasureFirst: false lets --fix apply it here (by default it
// is left to --verify=run).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  algebraic-invariant-table.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-table' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-table' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// By default the fix is offered for GPU verification only.
// RUN: cp %s %t/d.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-invariant-table' --fix --allow-unverified %t/d.cu 2>&1 | FileCheck --check-prefix=DEFAULT %s
// RUN: grep -v '// CHECK' %s | grep -v '// RUN' > %t/orig.cu && grep -v '// CHECK' %t/d.cu | grep -v '// RUN' | diff %t/orig.cu -
// DEFAULT: [algebraic-invariant-table] fix not applied: offered for GPU verification only
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

#define RADIUS 2
#define SIGMA 1.5f
#define TAPS 9
#define PI 3.14159265358979
enum { HALF = 4 };
constexpr float kScale = 0.25f;

// A 5x5 Gaussian blur of an RGB image: 25 weights, recomputed for each of
// the 3 channels.
__global__ void blur(const unsigned char *in, unsigned char *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    for (int c = 0; c < 3; c++) {
      float sum = 0.0f, wsum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
          sum += w * in[(yy * width + xx) * 3 + c];
          wsum += w;
        }
      }
      out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:17: warning: 'w' depends only on the loop counters (dy, dx) and constants: every thread computes the same 25 values, 3 times each, on every run of the loops; a table of them computed once per block in shared memory replaces the computation with a read [algebraic-invariant-table]
// CHECK-MESSAGES: note: 'dy' takes 5 values here
// CHECK-MESSAGES: note: 'dx' takes 5 values here
// CHECK-FIXES:      __global__ void blur(const unsigned char *in, unsigned char *out, int width, int height) {
// CHECK-FIXES-NEXT:   // cuda-l1 algebraic-invariant-table: 'w' for every (dy, dx), once per block
// CHECK-FIXES-NEXT:   __shared__ float cuda_l1_w_table[25];
// CHECK-FIXES-NEXT:   for (int cuda_l1_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); cuda_l1_t < 25; cuda_l1_t += blockDim.x * blockDim.y * blockDim.z) {
// CHECK-FIXES-NEXT:     int dy = (-RADIUS) + cuda_l1_t / 5;
// CHECK-FIXES-NEXT:     int dx = (-RADIUS) + cuda_l1_t % 5;
// CHECK-FIXES-NEXT:     cuda_l1_w_table[cuda_l1_t] = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES:          float w = cuda_l1_w_table[(dy - (-RADIUS)) * 5 + (dx - (-RADIUS))];

// A 1-D window of 9 taps from a counter starting at 0, a scalar parameter
// the kernel never changes, a double table, and `+= 1` steps.
__global__ void window(const double *in, double *out, int n, double sigma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double acc = 0.0;
  for (int k = 0; k < TAPS; k += 1) {
    double w = exp(-(double)((k - HALF) * (k - HALF)) / (2.0 * sigma * sigma));
    acc += w * in[(i + k) % n];
  }
  out[i] = acc;
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:12: warning: 'w' depends only on the loop counters (k) and constants: every thread computes the same 9 values on every run of the loops; a table of them {{.*}} [algebraic-invariant-table]
// CHECK-FIXES:      __global__ void window(const double *in, double *out, int n, double sigma) {
// CHECK-FIXES-NEXT:   // cuda-l1 algebraic-invariant-table: 'w' for every (k), once per block
// CHECK-FIXES-NEXT:   __shared__ double cuda_l1_w_table[9];
// CHECK-FIXES-NEXT:   for (int cuda_l1_t = {{.*}}; cuda_l1_t < 9; {{.*}}) {
// CHECK-FIXES-NEXT:     int k = (0) + cuda_l1_t;
// CHECK-FIXES-NEXT:     cuda_l1_w_table[cuda_l1_t] = exp(-(double)((k - HALF) * (k - HALF)) / (2.0 * sigma * sigma));
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES:        double w = cuda_l1_w_table[k];

// Three loops, the table over the inner two (an outer loop over rows of the
// output does not change it); a file-scope constexpr and a call as the
// last operation; `<` bounds from macros.
__global__ void dct8(const float *in, float *out, int blocks) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < blocks) {
    for (int r = 0; r < 2; r++)
      for (int u = 0; u < 8; ++u) {
        float s = 0.0f;
        for (int x = 0; x < 8; ++x) {
          float basis = cosf((float)((2 * x + 1) * u) * (float)PI / 16.0f) * kScale;
          float coef = cosf((2 * x + 1) * u * (float)PI / 16.0f);
          s += coef * in[b * 16 + r * 8 + x];
          out[b] += basis;
        }
        out[b * 16 + r * 8 + u] = s;
      }
  }
}
// The first ends in a multiplication, which the original may fuse with the
// addition that uses it: reported, no fix.
// CHECK-MESSAGES: t.cu:[[@LINE-11]]:17: warning: 'basis' depends only on the loop counters (u, x) and constants: every thread computes the same 64 values, 2 times each, {{.*}} [algebraic-invariant-table]
// CHECK-MESSAGES: note: no fix: the initialiser ends in an addition or multiplication, which the compiler may fuse with its use in the original: a table read would not give the same bits
// CHECK-MESSAGES: t.cu:[[@LINE-12]]:17: warning: 'coef' depends only on the loop counters (u, x) and constants: every thread computes the same 64 values, 2 times each, {{.*}} [algebraic-invariant-table]
// CHECK-FIXES:          float basis = cosf((float)((2 * x + 1) * u) * (float)PI / 16.0f) * kScale;
// CHECK-FIXES-NEXT:     float coef = cuda_l1_coef_table[u * 8 + x];

// Negative cases: nothing reported.
__global__ void negatives(const float *mask, float *out, int n, float sigma, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  // reads memory
  for (int k = 0; k < 9; ++k) {
    float w = expf(mask[k]);
    acc += w;
  }
  // depends on the thread
  for (int k = 0; k < 9; ++k) {
    float w = expf((float)(threadIdx.x * k));
    acc += w;
  }
  // a bound that is not a constant
  for (int k = 0; k < taps; ++k) {
    float w = expf((float)k);
    acc += w;
  }
  // no call and no division: cheap
  for (int k = 0; k < 9; ++k) {
    float w = (float)(k * k) * 0.5f;
    acc += w;
  }
  // a local declared before the loops
  float two_s2 = 2.0f * sigma * sigma;
  for (int k = 0; k < 9; ++k) {
    float w = expf(-(float)(k * k) / two_s2);
    acc += w;
  }
  // the counter changes in the body
  for (int k = 0; k < 9; ++k) {
    float w = expf((float)k);
    acc += w;
    k += (acc > 100.0f);
  }
  // too large a table (4096 entries)
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b) {
      float w = expf((float)(a - b));
      acc += w;
    }
  // a step other than 1
  for (int k = 0; k < 9; k += 2) {
    float w = expf((float)k);
    acc += w;
  }
  if (i < n)
    out[i] = acc;
}

// A parameter the kernel changes is not invariant.
__global__ void changed_param(float *out, float sigma) {
  sigma *= 2.0f;
  float acc = 0.0f;
  for (int k = 0; k < 9; ++k) {
    float w = expf(-(float)k / sigma);
    acc += w;
  }
  out[threadIdx.x] = acc;
}

void launch(const unsigned char *in, unsigned char *out, const double *di, double *d, const float *f, float *g) {
  blur<<<dim3(64, 8), dim3(32, 8)>>>(in, out, 2048, 256);
  window<<<16, 256>>>(di, d, 4096, 1.5);
  dct8<<<4, 256>>>(f, g, 1024);
  negatives<<<4, 256>>>(f, g, 1024, 1.0f, 7);
  changed_param<<<1, 32>>>(g, 1.0f);
}
