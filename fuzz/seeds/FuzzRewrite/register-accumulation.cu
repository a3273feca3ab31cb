// RUN: cuda-l1-structural --rules=memory-register-accumulation %s --fixed=%t.cu -- \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: grep -v "// CHECK" %t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
// RUN: cuda-l1-nvrtc-check %t.cu
// RUN: cuda-l1-structural --rules=memory-register-accumulation %t.cu -- | FileCheck --check-prefix=AGAIN %s --allow-empty
// AGAIN-NOT: note: fix (
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// Naive matrix-vector product accumulating into global memory; the store
// before the loop becomes the accumulator's initialisation.
__global__ void matvec_rmw(const float *A, const float *x, float *y, int M,
                           int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    y[row] = 0.0f;
    for (int k = 0; k < N; ++k)
      y[row] += A[row * N + k] * x[k];
  }
}
// CHECK: register-accumulation.cu:[[@LINE-3]]:7: warning: 'y[row]' is loaded from and stored to global memory on every iteration {{.*}} [memory-register-accumulation]
// CHECK: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'y' and 'A'
// CHECK: note: fix (bitwise): keep 'y[row]' in register 'y_acc'
// CHECK-FIXES:      float y_acc = 0.0f;
// CHECK-FIXES-NEXT: for (int k = 0; k < N; ++k)
// CHECK-FIXES-NEXT:   y_acc += A[row * N + k] * x[k];
// CHECK-FIXES-NEXT: y[row] = y_acc;

// No initialising store: the accumulator is loaded before the loop. The
// expanded form out[i] = out[i] + e is recognised; __restrict__ proves it.
__global__ void rowsum_restrict(const float *__restrict__ A,
                                float *__restrict__ out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; k++) {
    out[i] = out[i] + A[i * N + k];
  }
}
// CHECK: register-accumulation.cu:[[@LINE-3]]:5: warning: 'out[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no aliasing: 'out' is __restrict__
// CHECK: note: fix (bitwise)
// CHECK-FIXES:      float out_acc = out[i];
// CHECK-FIXES-NEXT: for (int k = 0; k < N; k++) {
// CHECK-FIXES-NEXT:   out_acc = out_acc + A[i * N + k];
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: out[i] = out_acc;

// Launched through a host wrapper whose callers pass separate allocations.
__global__ void through_wrapper(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'y' and 'A'
// CHECK: note: fix (bitwise)

// Refused: the wrapper's parameters come from nowhere visible.
__global__ void orphan_wrapper(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no fix: 'y' and 'A' may alias at the launch at {{.*}}: 'y' and 'A' are parameters of 'run_orphan', which is not called in this file

// Refused: no launch site, no restrict: 'A' may alias 'y'.
__global__ void no_launch(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no fix: 'y' and 'A' may alias: they are not __restrict__ and no launch site of 'no_launch' is visible in this file
// CHECK-FIXES: y[i] += A[i * N + k];

// Refused: the loop also reads another element of the same array.
__global__ void other_index(float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += y[k];
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no fix: 'y' is also used as 'y[k]' in the loop, which may be the same element as 'y[i]'
// CHECK-FIXES: y[i] += y[k];

// Refused: the same pointer is passed twice at a launch site.
__global__ void aliased(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[k];
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no fix: 'y' and 'A' alias: the launch at {{.*}} passes 'buf' for both
// CHECK-FIXES: y[i] += A[k];

// Refused: a user function in the loop might touch y[i].
__device__ float load_twice(const float *p, int k) { return p[k] + p[k]; }
__global__ void calls_user(const float *__restrict__ A, float *__restrict__ y,
                           int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += load_twice(A, k);
}
// CHECK: register-accumulation.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK: note: no fix: the loop calls 'load_twice', which may access 'y[i]'

// Refused: the index changes in the loop? Then it is not this pattern at
// all: no finding. Nor for a register accumulator already.
__global__ void already_good(const float *__restrict__ A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < N; ++k) {
    s += A[i * N + k];
    y[k] += 1.0f;
  }
  y[i] = s;
}

#ifndef __CUDACC_RTC__
void run_wrapped(const float *A, float *y) { through_wrapper<<<1, 16>>>(A, y, 16); }
void run_orphan(const float *A, float *y) { orphan_wrapper<<<1, 16>>>(A, y, 16); }
int main() {
  float *A, *x, *y, *buf;
  cudaMalloc(&A, 16 * 16 * sizeof(float));
  cudaMalloc(&x, 16 * sizeof(float));
  cudaMalloc(&y, 16 * sizeof(float));
  cudaMalloc(&buf, 16 * sizeof(float));
  matvec_rmw<<<1, 16>>>(A, x, y, 16, 16);
  aliased<<<1, 16>>>(buf, buf, 16);
  run_wrapped(A, y);
  return 0;
}
#endif
