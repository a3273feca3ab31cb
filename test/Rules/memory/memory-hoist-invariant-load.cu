// memory-hoist-invariant-load: a global load with a loop-invariant index in every iteration is loaded once before the loop.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-hoist-invariant-load' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-hoist-invariant-load' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,memory-hoist-invariant-load' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// A per-row scale factor read in every iteration. The guard keeps a
// zero-trip loop from reading anything.
__global__ void scale_rows(const float *A, const float *s, float *out, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    out[row * N + k] = A[row * N + k] * s[row];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:41: warning: 's[row]' is loaded from global memory in every iteration of the loop{{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: note: the loop
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 's' and 'out'
// FIX: "description": "load 's[row]' once before the loop into 's_inv'
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      int row = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: const float s_inv = ((0) < N) ? s[row] : float();
// CHECK-FIXES-NEXT: for (int k = 0; k < N; ++k)
// CHECK-FIXES-NEXT:   out[row * N + k] = A[row * N + k] * s_inv;

// do-while: the body runs at least once, no guard needed.
__global__ void bias_do(const float *b, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  do {
    y[i * n + k] = b[blockIdx.x] + 1.0f;
    ++k;
  } while (k < n);
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:20: warning: 'b[blockIdx.x]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'b' and 'y'
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      int k = 0;
// CHECK-FIXES-NEXT: const float b_inv = b[blockIdx.x];
// CHECK-FIXES-NEXT: do {
// CHECK-FIXES-NEXT:   y[i * n + k] = b_inv + 1.0f;

// Refused: the launch passes the same buffer as 's' and 'out'.
__global__ void aliasing(const float *A, const float *s, float *out, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    out[row * N + k] = A[row * N + k] * s[row];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:41: warning: 's[row]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: note: no fix: 's' and 'out' alias: the launch at {{.*}} passes 'out' for both

// Refused: a barrier in the loop (other threads may write the element).
__global__ void with_barrier(const float *s, float *out, int N) {
  __shared__ float t[256];
  for (int k = 0; k < N; ++k) {
    t[threadIdx.x] = s[blockIdx.x];
    __syncthreads();
    out[k] = t[0];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:22: warning: 's[blockIdx.x]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: note: no fix: the loop has a barrier, fence or atomic

// Not reported: a load only some iterations make (hoisting could read
// memory the original never reads).
__global__ void cond_load(const float *__restrict__ A,
                          const float *__restrict__ s, float *__restrict__ out,
                          int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) {
    if (A[k] > 0.0f)
      acc += s[row];
  }
  out[row] = acc;
}

// The loop is the unbraced body of an if: braces are added around the
// declaration and the loop.
__global__ void scale_cols(const float *A, const float *s, float *out, int M,
                           int N) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < N)
    for (int r = 0; r < M; ++r)
      out[r * N + col] = A[r * N + col] * s[col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:43: warning: 's[col]' is loaded {{.*}} [memory-hoist-invariant-load]
// FIX: "description": "load 's[col]' once before the loop into 's_inv'
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      if (col < N) {
// CHECK-FIXES-NEXT:   const float s_inv = ((0) < M) ? s[col] : float();
// CHECK-FIXES-NEXT:   for (int r = 0; r < M; ++r)
// CHECK-FIXES-NEXT:     out[r * N + col] = A[r * N + col] * s_inv;
// CHECK-FIXES-NEXT: }

// Taken over from memory-invariant-load: a conditional load (found by the
// access analysis) the rewrite does not hoist: no fix.
__global__ void conditional(const float *s, float *out, int n, int row) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (j > 4)
      out[j] = s[row] * 2.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:16: warning: loop-invariant global load 's[row]' is re-read on every iteration of the loop{{.*}} [memory-hoist-invariant-load]
// CHECK-MESSAGES: note: the address does not depend on this loop
// CHECK-MESSAGES: note: no fix: the rewrite hoists loads that every iteration performs unconditionally{{.*}}
// CHECK-FIXES: out[j] = s[row] * 2.0f;

// Not reported: the index is declared inside the loop body, so it has a
// fresh value in every iteration (a gather through an index list), even
// with a variable of the same name outside the loop.
__global__ void gather(const int *__restrict__ list, const float *__restrict__ f,
                       float *__restrict__ out, int n) {
  float acc = 0.0f;
  int e = 0;
  for (int i = 0; i < n; ++i) {
    int e = list[i];
    acc += f[e];
  }
  out[threadIdx.x] = acc + f[e];
}

// Not reported: the offset is computed in the loop by a device function
// and the element read into a local declared there.
__device__ int offset_of(int c, int w) { return c * w; }
__global__ void window_sum(const float *__restrict__ src,
                           float *__restrict__ dst, int c0, int c1, int w) {
  float sum = 0.0f;
  for (int c = c0; c < c1; ++c) {
    const int off = offset_of(c, w) + threadIdx.x;
    const float v = src[off];
    sum += v * v;
  }
  dst[threadIdx.x] = sum;
}

// Not reported: the index is a __shared__ variable, which other threads
// may change (not a value of this thread).
__global__ void shared_index(const float *__restrict__ s,
                             float *__restrict__ out, int n) {
  __shared__ int pick;
  if (threadIdx.x == 0)
    pick = n / 2;
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += s[pick] * k;
  out[threadIdx.x] = acc;
}

// A loop with `#pragma unroll` as the first statement of a block: the
// declaration goes before the pragma, which stays on the loop.
__global__ void unrolled(const float *s, float *out, int r) {
#pragma unroll
  for (int k = 0; k < 8; ++k)
    out[r * 8 + k] = s[r] * k;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:22: warning: 's[r]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-FIXES:      __global__ void unrolled(const float *s, float *out, int r) {
// CHECK-FIXES-NEXT: const float s_inv = ((0) < 8) ? s[r] : float();
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT:   for (int k = 0; k < 8; ++k)
// CHECK-FIXES-NEXT:     out[r * 8 + k] = s_inv * k;

// A `#pragma unroll` loop that is the unbraced body of a loop: braces
// around the declaration, the pragma and the loop.
__global__ void unrolled_inner(const float *s, float *out, int n) {
  for (int i = 0; i < n; ++i)
#pragma unroll 4
    for (int k = 0; k < n; ++k)
      out[i * n + k] = s[i] * k;
  out[threadIdx.x] += 1.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:24: warning: 's[i]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-FIXES:      for (int i = 0; i < n; ++i) {
// CHECK-FIXES-NEXT:     const float s_inv = ((0) < n) ? s[i] : float();
// CHECK-FIXES-NEXT: #pragma unroll 4
// CHECK-FIXES-NEXT:     for (int k = 0; k < n; ++k)
// CHECK-FIXES-NEXT:       out[i * n + k] = s_inv * k;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   out[threadIdx.x] += 1.0f;

// The inner loop on the line of the outer one, brace-less bodies.
__global__ void one_line(const float *s, float *out, int n) {
  for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) out[i * n + k] = s[i] * k;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:76: warning: 's[i]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-FIXES:      for (int i = 0; i < n; ++i) {
// CHECK-FIXES-NEXT:     const float s_inv = ((0) < n) ? s[i] : float();
// CHECK-FIXES-NEXT:     for (int k = 0; k < n; ++k) out[i * n + k] = s_inv * k;
// CHECK-FIXES-NEXT:   }

// Types as written: the element type is a macro; the local is declared
// with the macro, so the code stays right when the macro changes.
#define DATA_TYPE float
__global__ void macro_type(const DATA_TYPE *s, DATA_TYPE *out, int n, int r) {
  for (int k = 0; k < n; ++k)
    out[r * n + k] = s[r] + k;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:22: warning: 's[r]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK-FIXES: const DATA_TYPE s_inv = ((0) < n) ? s[r] : DATA_TYPE();

// Not reported, nvcc already loads the element once before the loop (nvcc
// 13, sm_90 PTX): through a __restrict__ pointer (LLVM's noalias, across
// stores and barriers), and in a loop that stores nothing to global memory
// (seen in third-party code: attention's row loops, sw4ck's stencils).
__global__ void restrict_hoisted(const float *__restrict__ s, float *out,
                                 int n, int r) {
  for (int k = 0; k < n; ++k) {
    out[r * n + k] = s[r] * k;
    __syncthreads();
  }
}
__global__ void reads_only(const float *A, const float *s, float *out, int n,
                           int r) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += A[k] * s[r];
  out[r] = acc;
}
// Not reported by the fix-less path either: a conditional load through a
// pointer the loop also writes (the element may be one of those written).
__global__ void cond_self(float *s, int n, int row) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    if (j > 4)
      s[j] = s[row] * 2.0f;
}
// Not reported: the loop writes the element itself (a block cipher's rounds
// rewrite the state they read), directly or through a call given the
// pointer: one load before the loop is not enough; keeping it in a register
// is memory-register-accumulation's finding.
__global__ void rounds(unsigned char *state, const unsigned char *key, int n) {
  for (int r = 0; r < n; ++r) {
    unsigned char a = state[0];
    state[0] = a ^ key[r];
  }
}
__device__ void mark(unsigned *m, int k) { m[0] |= 1u << k; }
__global__ void marks(unsigned *m, float *out, int n) {
  for (int k = 0; k < n; ++k) {
    out[k] = (float)m[0];
    mark(m, k);
  }
}

#ifndef __CUDACC_RTC__
// A volatile element is re-read on purpose (a flag that another block or
// the host sets): no finding.
__global__ void wait_flag(volatile int *flag, float *out, int n) {
  int spins = 0;
  for (int k = 0; k < n; ++k) {
    spins += flag[0];
    out[threadIdx.x] = spins;
  }
}

int main() {
  float *A, *s, *out;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&s, 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  scale_rows<<<16, 256>>>(A, s, out, 4096);
  aliasing<<<16, 256>>>(A, out, out, 4096);
  scale_cols<<<16, 256>>>(A, s, out, 4096, 4096);
  bias_do<<<16, 256>>>(s, out, 16);
  unrolled<<<1, 1>>>(s, out, 3);
  unrolled_inner<<<1, 1>>>(s, out, 64);
  one_line<<<1, 1>>>(s, out, 64);
  macro_type<<<1, 1>>>(s, out, 64, 3);
  return 0;
}
#endif
