// RUN: cuda-l1-structural --rules=memory-hoist-invariant-load %s --fixed=%t.cu -- \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: grep -v "// CHECK" %t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
// RUN: cuda-l1-nvrtc-check %t.cu
// RUN: cuda-l1-structural --rules=memory-hoist-invariant-load %t.cu -- | FileCheck --check-prefix=AGAIN %s --allow-empty
// AGAIN-NOT: note: fix (
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
// CHECK: hoist-invariant-load.cu:[[@LINE-2]]:41: warning: 's[row]' is loaded from global memory in every iteration of the loop{{.*}} [memory-hoist-invariant-load]
// CHECK: note: the loop
// CHECK: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 's' and 'out'
// CHECK: note: fix (bitwise): load 's[row]' once before the loop into 's_inv'
// CHECK-FIXES:      int row = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: const float s_inv = ((0) < N) ? s[row] : float();
// CHECK-FIXES-NEXT: for (int k = 0; k < N; ++k)
// CHECK-FIXES-NEXT:   out[row * N + k] = A[row * N + k] * s_inv;

// do-while: the body runs at least once, no guard needed; restrict proves it.
__global__ void bias_do(const float *__restrict__ b, float *__restrict__ y,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  do {
    y[i * n + k] = b[blockIdx.x] + 1.0f;
    ++k;
  } while (k < n);
}
// CHECK: hoist-invariant-load.cu:[[@LINE-4]]:20: warning: 'b[blockIdx.x]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK: note: no aliasing: 'b' is __restrict__
// CHECK: note: fix (bitwise)
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
// CHECK: hoist-invariant-load.cu:[[@LINE-2]]:41: warning: 's[row]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK: note: no fix: 's' and 'out' alias: the launch at {{.*}} passes 'out' for both

// Refused: a barrier in the loop (other threads may write the element).
__global__ void with_barrier(const float *__restrict__ s,
                             float *__restrict__ out, int N) {
  __shared__ float t[256];
  for (int k = 0; k < N; ++k) {
    t[threadIdx.x] = s[blockIdx.x];
    __syncthreads();
    out[k] = t[0];
  }
}
// CHECK: hoist-invariant-load.cu:[[@LINE-5]]:22: warning: 's[blockIdx.x]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK: note: no fix: the loop has a barrier, fence or atomic

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
// CHECK: hoist-invariant-load.cu:[[@LINE-2]]:43: warning: 's[col]' is loaded {{.*}} [memory-hoist-invariant-load]
// CHECK: note: fix (bitwise): load 's[col]' once before the loop into 's_inv'
// CHECK-FIXES:      if (col < N) {
// CHECK-FIXES-NEXT:   const float s_inv = ((0) < M) ? s[col] : float();
// CHECK-FIXES-NEXT:   for (int r = 0; r < M; ++r)
// CHECK-FIXES-NEXT:     out[r * N + col] = A[r * N + col] * s_inv;
// CHECK-FIXES-NEXT: }

#ifndef __CUDACC_RTC__
int main() {
  float *A, *s, *out;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&s, 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  scale_rows<<<16, 256>>>(A, s, out, 4096);
  aliasing<<<16, 256>>>(A, out, out, 4096);
  scale_cols<<<16, 256>>>(A, s, out, 4096, 4096);
  return 0;
}
#endif
