// algebraic-pow2-divmod: integer / and % by a power of two on values proven >= 0 become >> and &.
// The divisions the fixes rewrite run once per thread here: reported with
// the option IncludeOncePerThread (without it, only divisions a loop
// repeats are, see DEFAULT below).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  algebraic-pow2-divmod.IncludeOncePerThread: true\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow2-divmod' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow2-divmod' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Default: once per thread is not reported (seen in third-party code:
// index arithmetic at the top of match's, minimod's and bscan's kernels,
// two or three instructions next to the kernel's work); the fix-less
// findings in loops are.
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-pow2-divmod' %s 2>&1 | FileCheck %s --check-prefix=DEFAULT --implicit-check-not='warning:'
// DEFAULT-COUNT-9: warning: signed {{division|modulo}} by {{[0-9]+}} inside a loop
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void indices(int *out, unsigned u, int n) {
  int tid = threadIdx.x;
  int lane = tid % 32;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: modulo by 32 of a signed value proven >= 0{{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: int lane = tid & 31;
  int warp = tid / 32 + 1;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:18: warning: division by 32 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: int warp = (tid >> 5) + 1;
  out[tid / 4] = lane + warp;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:11: warning: division by 4 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[tid >> 2] = lane + warp;
  if (tid % 2 == 0)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:11: warning: modulo by 2 {{.*}} [algebraic-pow2-divmod]
    // CHECK-FIXES: if ((tid & 1) == 0)
    out[0] = 1;
  // Negative: n may be negative; global index may overflow int; unsigned
  // (the compiler shifts already); not a power of two.
  out[1] = n / 8 + (blockIdx.x * blockDim.x + threadIdx.x) / 2 + u / 16 + tid / 3;
  // CHECK-FIXES: out[1] = n / 8 + (blockIdx.x * blockDim.x + threadIdx.x) / 2 + u / 16 + tid / 3;
}

// Macro body: finding without a fix.
#define LANE(x) ((x) % 32)
__global__ void macro(int *out) {
  int t = threadIdx.x;
  out[t] = LANE(t);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: modulo by 32 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[t] = LANE(t);
}

// Template: the constant is a template argument: left alone; the literal
// division in the template's own text is fixed.
template <int D> __global__ void tmpl(int *out) {
  int t = threadIdx.x;
  out[t] = t / D + t % 8;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:22: warning: modulo by 8 {{.*}} [algebraic-pow2-divmod]
  // CHECK-FIXES: out[t] = t / D + (t & 7);
}
template __global__ void tmpl<4>(int *);

// Taken over from algebraic-signed-pow2-division: a signed dividend in a
// loop that is not proven >= 0: reported without a fix. (The loops here
// only compute: a loop that moves global memory hides the fix-up, below.)
__global__ void no_fix(int *out, int groups, int n) {
  int acc = 0;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    acc += (j - groups) / 64;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:25: warning: signed division by 64 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix: '(j - groups)' is not proven >= 0{{.*}}
  }
  // CHECK-FIXES: acc += (j - groups) / 64;
  out[threadIdx.x] = acc;
}

// Constants (an array bound, a size of two macros): folded by the
// compiler, nothing to gain: silent.
#define TILE_ELEMS 2048
__global__ void constant_bound(int *out) {
  __shared__ int tile[TILE_ELEMS + TILE_ELEMS / 32];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x] + TILE_ELEMS % 64;
}

// What nvcc 13 already compiles to the shift or mask (sm_90 SASS compared,
// utils/bench/divmod/pow2-forms.sh): silent.
// - a product with a multiple of the divisor divides exactly;
// - an induction variable from a constant >= 0 stepping by ++ or += c;
// - a loop with constant bounds (unrolled: every quotient folds);
// - a loop or if condition that keeps the variable > 0, the body not
//   assigning it before the division.
#define NDIM 128
__global__ void compiler_folds(int *out, const unsigned char *in, int n,
                               int m) {
  int acc = 0;
  // An unsigned char widened to int: LLVM's known bits show it >= 0 (seen
  // in third-party code: a base64 encoder; SASS identical with '>>').
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    unsigned char c = (unsigned char)(j * 7);
    acc += c / 4 + (c * 16) % 64;
  }
  int ty = threadIdx.y;
  out[ty * NDIM / 4] = 1;
  out[ty * 64 % 16 + 1] = 2;
  for (int i = 0; i < n; i++)
    acc += i / 4;
  for (int i = 3; i < n; i += 8)
    acc ^= i % 8;
  for (int i = 256; i >= 1; i = i / 2)
    acc += i / 2;
  int kk = n;
  while (kk > 1) {
    int ik = kk / 2;
    acc += ik;
    kk = ik;
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    int r = j * m;
    if (r >= 0)
      acc += r / 4;
  }
  out[threadIdx.x] = acc;
}
// ... but still reported where the variable is assigned before the
// division in the guarded body, or the product is not a multiple.
__global__ void compiler_does_not_fold(int *out, int n, int m) {
  int kk = n, acc = 0;
  while (kk > 1) {
    kk = kk - m;
    acc += kk / 2;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix: 'kk' is not proven >= 0{{.*}}
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    acc += (j - m) * 6 / 4;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:24: warning: signed division by 4 inside a loop{{.*}} [algebraic-pow2-divmod]
  // CHECK-MESSAGES: note: no fix: '(j - m) * 6' is not proven >= 0{{.*}}
  out[threadIdx.x] = acc;
}

// Also reported: a guard whose variable a loop inside it changes (the back
// edge brings the new value to the division), an unsigned comparison
// (x > 0u lets negative values through), a variable passed by reference,
// and constant bounds with a run-time step (not unrolled).
__device__ void dec(int &k, int s) { k -= s; }
__global__ void guards_that_do_not_hold(int *out, int x, int n, int s) {
  int acc = 0;
  if (x > 0) {
    for (int j = 0; j < n; j++) {
      acc += x / 2;
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
      // CHECK-MESSAGES: note: no fix:{{.*}}
      x -= 7;
    }
  }
  for (int j = 0; j < n; j++) {
    int y = j * s - n;
    if (y > 0u)
      acc += y / 4;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: signed division by 4 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix:{{.*}}
  }
  int k = n;
  while (k > 1) {
    dec(k, s);
    acc += k / 2;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:14: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix:{{.*}}
  }
  for (int i = 0; i < 4096; i += s)
    acc += i % 32;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:14: warning: signed modulo by 32 inside a loop{{.*}} [algebraic-pow2-divmod]
  // CHECK-MESSAGES: note: no fix:{{.*}}
  out[threadIdx.x] = acc;
}

// Loops that hide the two or three instructions of the sign fix-up: a
// binary search's dependent load, a tree reduction's barrier, a stream of
// 4 bytes or more per iteration (measured on an H200: such a loop hides a
// whole integer division by a run-time value, utils/bench/divmod).
__global__ void hidden_by_loop(const int *keys, int *out, int n, int key) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  __shared__ int part[256];
  part[threadIdx.x] = lo;
  __syncthreads();
  for (int i = n - key; i != 0; i = i / 2) {
    if (threadIdx.x < i)
      part[threadIdx.x] += part[threadIdx.x + i];
    __syncthreads();
  }
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = (j - key) / 64;
}

// A template's pattern: the loop's traffic has elements of dependent size
// (once a stack overflow in the rule, reported by a review), counted as 1
// byte, the least they can be: both loops are reported.
template <typename T> __global__ void tmpl_loop(const T *in, T *out, int n) {
  T s = 0;
  for (int i = threadIdx.x - 64; i < n; i++)
    s += (T)((i + n) / 2);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:22: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
  // CHECK-MESSAGES: note: no fix:{{.*}}
  for (int i = threadIdx.x - 64; i < n; i++)
    s += in[(i + n) / 2];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
  // CHECK-MESSAGES: note: no fix:{{.*}}
  out[threadIdx.x] = s;
}
template __global__ void tmpl_loop<float>(const float *, float *, int);

// A 6-step binary search over a table in a kernel parameter, in a device
// function that kernels call only at their top (seen in flame): 6
// divisions per thread, reported only with IncludeOncePerThread, as once
// per thread is.
struct SearchTable { int t[20]; };
__device__ int search6(int idx, const SearchTable &search_table) {
  int lo = 0, hi = 20, mid;
  for (int i = 0; i < 6; i++) {
    mid = (lo + hi) / 2;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix:{{.*}}
    if (search_table.t[mid] <= idx)
      lo = mid + 1;
    else
      hi = mid;
  }
  return mid;
}
__global__ void search_top(int *out, const SearchTable tab) {
  int f = search6(blockIdx.x * blockDim.x + threadIdx.x, tab);
  out[threadIdx.x] = f;
}
// The same search in a function a kernel calls inside its loop: the
// divisions repeat with the loop; reported.
__device__ int search6_loop(int idx, const SearchTable &search_table) {
  int lo = 0, hi = 20, mid;
  for (int i = 0; i < 6; i++) {
    mid = (lo + hi) / 2;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
    // CHECK-MESSAGES: note: no fix:{{.*}}
    // DEFAULT: algebraic-pow2-divmod.cu:[[@LINE-3]]:21: warning: signed division by 2 inside a loop{{.*}} [algebraic-pow2-divmod]
    if (search_table.t[mid] <= idx)
      lo = mid + 1;
    else
      hi = mid;
  }
  return mid;
}
__global__ void search_many(int *out, int n, const SearchTable tab) {
  int s = 0;
  for (int k = 0; k < n; k++)
    s += search6_loop(k * 32 + threadIdx.x, tab);
  out[threadIdx.x] = s;
}
