// algebraic-wrap-modulo: periodic wraps of an index proven in range become
// compares and subtractions (bitwise).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-wrap-modulo' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: nothing left to report.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-wrap-modulo' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles (nvcc, NVRTC) and computes the same results on
// the CPU emulation (utils/bench/cuemu), bit for bit.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: life: 
// RUNS: shift: 
// RUNS: done
#include <cstdio>

// The Game of Life's torus: x + dx + n in [0, 2n] for dx in [-1, 1].
__global__ void life(const int *board, int *next, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) {
    int c = 0;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int xx = (x + dx + n) % n;
        // CHECK-MESSAGES: t.cu:[[@LINE-1]]:31: warning: '(x + dx + n) % n' divides by a value known only at run time{{.*}}proven in [0, 3n) ('x' in [0, n), 'dx' in [-1, 1]){{.*}} [algebraic-wrap-modulo]
        int yy = (y + dy + n) % n;
        // CHECK-MESSAGES: t.cu:[[@LINE-1]]:31: warning: '(y + dy + n) % n'
        c += board[yy * n + xx];
      }
    next[y * n + x] = c;
  }
}
// CHECK-FIXES: int xx = ((x + dx + n) >= (n) ? ((x + dx + n) - (n) >= (n) ? (x + dx + n) - (n) - (n) : (x + dx + n) - (n)) : (x + dx + n));

// A guard by early exit, a right neighbour without n (x + 1 in [1, n]):
// below 2n, one compare; a left neighbour x - 1 + n.
__global__ void shift(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  b[i] = a[(i + 1) % n] - a[(i - 1 + n) % n];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:20: warning: '(i + 1) % n'{{.*}}proven in [0, 2n) ('i' in [0, n))
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:41: warning: '(i - 1 + n) % n'{{.*}}proven in [0, 2n) ('i' in [0, n))
}
// CHECK-FIXES: b[i] = a[((i + 1) >= (n) ? (i + 1) - (n) : (i + 1))] - a[((i - 1 + n) >= (n) ? (i - 1 + n) - (n) : (i - 1 + n))];

// --- no finding ----------------------------------------------------------------

__global__ void not_proven(const int *a, int *b, int n, int m, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i] = a[(i + k) % n];        // k's range is not known
    b[i] += a[(i + 2 + n) % n];   // up to 3n + 1: beyond two subtractions
    b[i] += a[(i + 1) % m];       // the guard bounds i by n, not m
    b[i] += a[(i * 2) % n];       // not a sum of known terms
  }
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  b[0] += (j + 1) % n;            // no guard on j
  for (int d = 0; d < k; d++)     // a variable bound
    if (i < n)
      b[i] += a[(i + d) % n];
}

// A difference computed in 32-bit unsigned and then widened to size_t
// (x - 1 wraps at x == 0 before n is added): the range is not shown.
__global__ void widened(float *out, const float *in, size_t n) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    out[x] = in[(x - 1 + n) % n];
}

// An exit before a case label does not hold after it.
__global__ void by_case(const float *in, float *out, int n, int mode) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  switch (mode) {
  case 0:
    if (x >= n)
      return;
  case 1:
    out[0] = in[(x + 1 + n) % n];
  }
}

int main() {
  const int n = 37;
  int *board, *next;
  cudaMalloc((void **)&board, n * n * sizeof(int));
  cudaMalloc((void **)&next, n * n * sizeof(int));
  int h[n * n];
  for (int i = 0; i < n * n; i++)
    h[i] = (i * 7919) % 5 == 0;
  cudaMemcpy(board, h, sizeof(h), cudaMemcpyHostToDevice);
  life<<<dim3(2, 5), dim3(32, 8)>>>(board, next, n);
  cudaMemcpy(h, next, sizeof(h), cudaMemcpyDeviceToHost);
  long s = 0;
  for (int i = 0; i < n * n; i++)
    s += (long)h[i] * (i % 11 + 1);
  printf("life: %ld\n", s);
  float *a, *b;
  cudaMalloc((void **)&a, n * sizeof(float));
  cudaMalloc((void **)&b, n * sizeof(float));
  float ha[n];
  for (int i = 0; i < n; i++)
    ha[i] = (float)((i * 31) % 17);
  cudaMemcpy(a, ha, sizeof(ha), cudaMemcpyHostToDevice);
  shift<<<2, 32>>>(a, b, n);
  cudaMemcpy(ha, b, sizeof(ha), cudaMemcpyDeviceToHost);
  double t = 0;
  for (int i = 0; i < n; i++)
    t += ha[i] * (i + 1);
  printf("shift: %.9g\n", t);
  printf("done\n");
  return 0;
}
