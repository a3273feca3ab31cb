// unrolling-param-bound, specialised: a small loop nested in another loop of
// a kernel, bounded by a parameter that every launch in the file passes as
// the same small constant, becomes `if (n == V) { copy with bound V } else
// { the loop }` (k-means' assignment: a point's coordinates re-read for
// every centroid). Launches that differ, values the tool cannot know, loops
// not nested, values above SpecializeMax and bodies with labels are not
// specialised; their bodies are small enough that nvcc unrolls them 4 times
// by itself, so the pragma form is not offered either (no finding).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' --fix --allow-unverified %t/t.cu -- -DDIM=16 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' --fix --allow-unverified %t/t.cu -- -DDIM=16
// RUN: diff %t/once.cu %t/t.cu
// The option turns it off: the loop is then left to nvcc, which unrolls so
// small a body by itself (no finding).
// RUN: cp %s %t/off.cu
// RUN: printf 'CheckOptions:\n  unrolling-param-bound.SpecializeMax: 0\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' --config-file=%t/off.yaml %t/off.cu -- -DDIM=16 2>&1 \
// RUN:   | FileCheck %s --allow-empty --check-prefix=OFF
// OFF-NOT: warning:
// The rewritten file compiles.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -DDIM=16 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>
#include <stdlib.h>

#ifndef DIM
#define DIM 4
#endif

// The k-means assignment: one thread per point, all centroids.
__global__ void assign(const float *points, const float *centroids, int *member, int n, int k,
                       int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int best = 0;
    float best_d = 1e30f;
    for (int c = 0; c < k; c++) {
      float d = 0.0f;
      for (int f = 0; f < dim; f++) {
        float diff = points[i * dim + f] - centroids[c * dim + f];
        d += diff * diff;
      }
      if (d < best_d) {
        best_d = d;
        best = c;
      }
    }
    member[i] = best;
  }
}
// CHECK-MESSAGES: t.cu:42:7: warning: small loop bounded by parameter 'dim' is compiled for any trip count, although every launch passes dim = 16; a copy of the loop for 16 is unrolled fully, and the loads the enclosing loop repeats stay in registers [unrolling-param-bound]
// CHECK-MESSAGES: t.cu:35:28: note: 'dim' is 16 at all 2 launches in this file; other values run the loop as written
// CHECK-FIXES:      float d = 0.0f;
// CHECK-FIXES-NEXT: if (dim == 16) {
// CHECK-FIXES-NEXT:   for (int f = 0; f < 16; f++) {
// CHECK-FIXES-NEXT:     float diff = points[i * dim + f] - centroids[c * dim + f];
// CHECK-FIXES-NEXT:     d += diff * diff;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT:   for (int f = 0; f < dim; f++) {
// CHECK-FIXES-NEXT:     float diff = points[i * dim + f] - centroids[c * dim + f];
// CHECK-FIXES-NEXT:     d += diff * diff;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: if (d < best_d) {

// A local copy of the parameter as the bound, a while loop around it, a
// brace-less body.
__global__ void window_sums(const float *x, float *y, int n, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int w = width;
  int step = 0;
  float s = 0.0f;
  while (step < 4) {
    for (int j = 0; j <= w; ++j)
      s += x[(i + j + step) % n];
    step++;
  }
  if (i < n)
    y[i] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:5: warning: small loop bounded by parameter 'w' is compiled for any trip count, although every launch passes width = 8;{{.*}} [unrolling-param-bound]
// CHECK-MESSAGES: note: 'width' is 8 at the launch in this file
// CHECK-FIXES:      while (step < 4) {
// CHECK-FIXES-NEXT:   if (w == 8) {
// CHECK-FIXES-NEXT:     for (int j = 0; j <= 8; ++j)
// CHECK-FIXES-NEXT:       s += x[(i + j + step) % n];
// CHECK-FIXES-NEXT:   } else {
// CHECK-FIXES-NEXT:     for (int j = 0; j <= w; ++j)
// CHECK-FIXES-NEXT:       s += x[(i + j + step) % n];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   step++;

// An unsigned bound keeps its comparison unsigned in the copy (`d < 3u`):
// an int counter is compared as unsigned in both, as written. (Started at
// -1, the loop would never run, -1 being converted to a huge unsigned;
// nvcc then drops it, the copy changes no instruction, and the NVRTC
// comparison drops the finding.)
__global__ void unsigned_bound(const float *x, float *y, unsigned r) {
  float s = 0.0f;
  for (int k = 0; k < 2; k++) {
    for (int d = 0; d < r; ++d)
      s += x[d + k];
  }
  y[threadIdx.x] = s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: small loop bounded by parameter 'r' is compiled for any trip count, although every launch passes r = 3;{{.*}} [unrolling-param-bound]
// CHECK-MESSAGES: note: 'r' is 3 at the launch in this file
// CHECK-FIXES:      if (r == 3) {
// CHECK-FIXES-NEXT:   for (int d = 0; d < 3u; ++d)

// Negative: the two launches pass different values.
__global__ void two_values(const float *x, float *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < 3; r++) {
    for (int j = 0; j < m; j++)
      s += x[(i * m + j + r) % n];
  }
  y[i % n] = s;
}
// CHECK-FIXES:      for (int r = 0; r < 3; r++) {
// CHECK-FIXES-NEXT:   for (int j = 0; j < m; j++)

// Negative: the value comes from the command line.
__global__ void from_argv(const float *x, float *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < 3; r++) {
    for (int j = 0; j < m; j++)
      s += x[(i * m + j + r) % n];
  }
  y[i % n] = s;
}

// Negative: not nested in another loop; a value above SpecializeMax; a
// body with a label.
__global__ void not_nested(const float *x, float *y, int m) {
  float s = 0.0f;
  for (int j = 0; j < m; j++)
    s += x[j];
  y[threadIdx.x] = s;
}
__global__ void too_many(const float *x, float *y, int m) {
  float s = 0.0f;
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < m; j++)
      s += x[j + r];
  y[threadIdx.x] = s;
}
__global__ void labelled(const float *x, float *y, int m) {
  float s = 0.0f;
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < m; j++) {
    again:
      s += x[j + r];
      if (s < 0.0f)
        goto again;
    }
  y[threadIdx.x] = s;
}

int main(int argc, char **argv) {
  float *p, *c, *x, *y;
  int *m;
  int n = 1 << 16, k = 32, dim = DIM;
  cudaMalloc(&p, sizeof(float) * n * dim);
  cudaMalloc(&c, sizeof(float) * k * dim);
  cudaMalloc(&m, sizeof(int) * n);
  cudaMalloc(&x, sizeof(float) * n);
  cudaMalloc(&y, sizeof(float) * n);
  assign<<<n / 256, 256>>>(p, c, m, n, k, dim);
  assign<<<n / 256, 256>>>(p, c, m, n, k, DIM);
  window_sums<<<n / 256, 256>>>(x, y, n, 8);
  unsigned_bound<<<1, 32>>>(x, y, 3u);
  two_values<<<n / 256, 256>>>(x, y, n, 8);
  two_values<<<n / 256, 256>>>(x, y, n, 16);
  int a = argc > 1 ? atoi(argv[1]) : 8;
  from_argv<<<n / 256, 256>>>(x, y, n, a);
  not_nested<<<1, 32>>>(x, y, 8);
  too_many<<<1, 32>>>(x, y, 128);
  labelled<<<1, 32>>>(x, y, 8);
  cudaDeviceSynchronize();
  return 0;
}
