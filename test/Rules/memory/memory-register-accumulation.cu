// memory-register-accumulation: a global read-modify-write of one element in a loop becomes a register accumulator.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// Types as written: with DATA_TYPE redefined as double, the rewritten file
// still declares the accumulator as DATA_TYPE and compiles.
// RUN: sed 's/^#define DATA_TYPE float$/#define DATA_TYPE double/' %t/t.cu > %t/d.cu
// RUN: grep -v '// CHECK\|// DOUBLE' %t/d.cu | FileCheck --check-prefix=DOUBLE %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/d.cu -o %t/d.o %}
// NVRTC: compiled, 0 failed
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
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:7: warning: 'y[row]' is loaded from and stored to global memory on every iteration {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'y' and 'A'
// FIX: "description": "keep 'y[row]' in register 'y_acc'
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      float y_acc = 0.0f;
// CHECK-FIXES-NEXT: for (int k = 0; k < N; ++k)
// CHECK-FIXES-NEXT:   y_acc += A[row * N + k] * x[k];
// CHECK-FIXES-NEXT: y[row] = y_acc;

// No initialising store: the accumulator is loaded before the loop. The
// expanded form out[i] = out[i] + e is recognised; __restrict__ proves it.
// The store runs on some iterations only, so nvcc cannot keep the element
// in a register by itself (nvcc 13's PTX stores it in the loop).
__global__ void rowsum_restrict(const float *__restrict__ A,
                                float *__restrict__ out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; k++) {
    if (A[i * N + k] > 0.0f)
      out[i] = out[i] + A[i * N + k];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:7: warning: 'out[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no aliasing: 'out' is __restrict__
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      float out_acc = out[i];
// CHECK-FIXES-NEXT: for (int k = 0; k < N; k++) {
// CHECK-FIXES-NEXT:   if (A[i * N + k] > 0.0f)
// CHECK-FIXES-NEXT:     out_acc = out_acc + A[i * N + k];
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: out[i] = out_acc;

// nvcc keeps the element in a register by itself (LLVM promotes it: one load
// before the loop, one store after it in nvcc 13's PTX) when it is stored on
// every iteration and nothing else the loop uses may be it: every pointer
// __restrict__, or no other memory at all. No finding.
__global__ void rowsum_every_restrict(const float *__restrict__ A,
                                      float *__restrict__ out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; k++) {
    float a = A[i * N + k];
    if (a < 0.0f)
      a = -a;
    out[i] = out[i] + a;
  }
}
template <typename T>
__global__ void count_alone(T *out, int n) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned k = t * n; k < (t + 1) * n; k++)
    out[t] += k % 2;
}
template __global__ void count_alone<int>(int *, int);
// One pointer not __restrict__ beside it: reported (above and below); a
// `continue` may skip the store: reported.
__global__ void rowsum_skip(const float *__restrict__ A,
                            float *__restrict__ out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; k++) {
    if (A[i * N + k] == 0.0f)
      continue;
    out[i] += A[i * N + k];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: 'out[i]' {{.*}} [memory-register-accumulation]

// Launched through a host wrapper whose callers pass separate allocations.
__global__ void through_wrapper(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'y' and 'A'
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false

// Refused: the wrapper's parameters come from nowhere visible.
__global__ void orphan_wrapper(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'y' and 'A' may alias at the launch at {{.*}}: 'y' and 'A' are parameters of 'run_orphan', which is not called in this file

// Refused: no launch site, no restrict: 'A' may alias 'y'.
__global__ void no_launch(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[i * N + k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'y' and 'A' may alias: they are not __restrict__ and no launch site of 'no_launch' is visible in this file
// CHECK-FIXES: y[i] += A[i * N + k];

// Refused: the loop also reads another element of the same array.
__global__ void other_index(float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += y[k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'y' is also used as 'y[k]' in the loop, which may be the same element as 'y[i]'
// CHECK-FIXES: y[i] += y[k];

// An in-place scan across threads: each step adds the element of the
// thread s rows (or s columns) before, which that thread updates too. The
// values pass between threads through the array: no register copy, no
// finding. Its twin walks the thread's own column (rows `nrhs` apart,
// `back_row_unguarded` below) and is reported.
__global__ void scan_rows(double *img, int n, int off) {
  int tx = blockIdx.x * blockDim.x + threadIdx.x;
  int ty = blockIdx.y * blockDim.y + threadIdx.y;
  for (int s = 1; s <= blockDim.y; s *= 2) {
    int from = ty - s;
    double v = 0;
    if (from >= 0)
      v = img[(off + from) * n + tx];
    if (from >= 0)
      img[(off + ty) * n + tx] += v;
  }
}
__global__ void scan_cols(double *img, int n, int off) {
  int tx = blockIdx.x * blockDim.x + threadIdx.x;
  int ty = blockIdx.y * blockDim.y + threadIdx.y;
  for (int s = 1; s <= blockDim.x; s *= 2) {
    double v = tx >= s ? img[ty * n + tx - s + off] : 0.0;
    img[ty * n + tx + off] += v;
  }
}

// Refused: the same pointer is passed twice at a launch site.
__global__ void aliased(const float *A, float *y, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += A[k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'y' and 'A' alias: the launch at {{.*}} passes 'buf' for both
// CHECK-FIXES: y[i] += A[k];

// Refused: a user function in the loop might touch y[i].
__device__ float load_twice(const float *p, int k) { return p[k] + p[k]; }
__global__ void calls_user(const float *__restrict__ A, float *__restrict__ y,
                           int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < N; ++k)
    y[i] += load_twice(A, k);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'y[i]' {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: the loop calls 'load_twice', which may access 'y[i]'

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

// The element type is a macro (as in benchmark suites built for float or
// double): the accumulator is declared with the macro, not 'float'.
#define DATA_TYPE float
__global__ void rowsum_macro(const DATA_TYPE *__restrict__ A,
                             DATA_TYPE *__restrict__ out, int N) {
  int row = blockIdx.x;
  for (int k = 0; k < N; ++k)
    if (A[row * N + k] > 0)
      out[row] += A[row * N + k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:7: warning: 'out[row]' is loaded from and stored to global memory on every iteration {{.*}} [memory-register-accumulation]
// CHECK-FIXES:      DATA_TYPE out_acc = out[row];
// CHECK-FIXES-NEXT: for (int k = 0; k < N; ++k)
// CHECK-FIXES-NEXT:   if (A[row * N + k] > 0)
// CHECK-FIXES-NEXT:     out_acc += A[row * N + k];
// DOUBLE:      #define DATA_TYPE double
// DOUBLE:      DATA_TYPE out_acc = out[row];

// Back substitution, one thread per right-hand side: the loop also reads
// other rows of X (X[k * nrhs + c], k from row + 1), a different element
// on every iteration since nrhs > c >= 0 under the guard.
__global__ void back_row(const float *__restrict__ U, const float *Y, float *X,
                         int row, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < nrhs) {
    X[row * nrhs + c] = Y[row * nrhs + c];
    for (int k = row + 1; k < n; k++)
      X[row * nrhs + c] -= U[row * n + k] * X[k * nrhs + c];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:7: warning: 'X[row * nrhs + c]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-FIXES:      float X_acc = Y[row * nrhs + c];
// CHECK-FIXES-NEXT: for (int k = row + 1; k < n; k++)
// CHECK-FIXES-NEXT:   X_acc -= U[row * n + k] * X[k * nrhs + c];
// CHECK-FIXES-NEXT: X[row * nrhs + c] = X_acc;

// The same with an early return instead of the guard.
__global__ void back_row_ret(const float *__restrict__ U, float *X, int row,
                             int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int k = row + 1; k < n; k++)
    X[row * nrhs + c] -= U[row * n + k] * X[k * nrhs + c];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'X[row * nrhs + c]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-FIXES:      float X_acc = X[row * nrhs + c];

// Refused: no guard shows nrhs > 0 (with nrhs == 0 every k reads the
// accumulated element itself).
__global__ void back_row_unguarded(const float *__restrict__ U, float *X,
                                   int row, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = row + 1; k < n; k++)
    X[row * nrhs + c] -= U[row * n + k] * X[k * nrhs + c];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: 'X[row * nrhs + c]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'X' is also used as 'X[k * nrhs + c]' in the loop, which may be the same element as 'X[row * nrhs + c]'

// Refused: the loop starts at the row itself (k == row reads the element).
__global__ void back_row_from_row(const float *__restrict__ U, float *X,
                                  int row, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < nrhs) {
    for (int k = row; k < n; k++)
      X[row * nrhs + c] -= U[row * n + k] * X[k * nrhs + c];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:7: warning: 'X[row * nrhs + c]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: 'X' is also used as 'X[k * nrhs + c]' in the loop, which may be the same element as 'X[row * nrhs + c]'

// Three elements accumulated in one loop (an n-body step), each zeroed
// before it: one fix keeps all three in registers, the zeroing stores are
// folded in although the others stand between them and the loop, and the
// loop's #pragma stays right before it. (The buffers are proven apart by
// the launch in main(); were they all __restrict__, nvcc would keep
// them in registers by itself and there would be no finding.)
__global__ void nbody_accel(const float *__restrict__ x, const float *__restrict__ m, float *ax,
                            float *ay, float *az, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    ax[i] = 0.0f;
    ay[i] = 0.0f;
    az[i] = 0.0f;
#pragma unroll 4
    for (int j = 0; j < n; j++) {
      float d = x[j] - x[i];
      ax[i] += d * m[j];
      ay[i] += d * d;
      az[i] += m[j];
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: 'ax[i]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:7: warning: 'ay[i]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: no fix: fixed together with the other accumulations of the loop ('ax[i]', 'ay[i]', 'az[i]')
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:7: warning: 'az[i]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-FIXES:      if (i < n) {
// CHECK-FIXES-NEXT:   float ax_acc = 0.0f;
// CHECK-FIXES-NEXT:   float ay_acc = 0.0f;
// CHECK-FIXES-NEXT:   float az_acc = 0.0f;
// CHECK-FIXES-NEXT: #pragma unroll 4
// CHECK-FIXES-NEXT:   for (int j = 0; j < n; j++) {
// CHECK-FIXES-NEXT:     float d = x[j] - x[i];
// CHECK-FIXES-NEXT:     ax_acc += d * m[j];
// CHECK-FIXES-NEXT:     ay_acc += d * d;
// CHECK-FIXES-NEXT:     az_acc += m[j];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   ax[i] = ax_acc;
// CHECK-FIXES-NEXT:   ay[i] = ay_acc;
// CHECK-FIXES-NEXT:   az[i] = az_acc;

// Not folded: a store to another buffer that the loop does not accumulate
// into stands between (it is not proven distinct); the accumulator loads
// the element after the pragma-led loop's preceding statement.
__global__ void store_between(const float *__restrict__ a, float *y, float *z,
                              const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 1.0f;
    z[i] = 2.0f;
#pragma unroll 2
    for (int j = 0; j < n; j++)
      y[i] += a[j] * w[j];
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:7: warning: 'y[i]' is loaded from and stored {{.*}} [memory-register-accumulation]
// CHECK-FIXES:      y[i] = 1.0f;
// CHECK-FIXES-NEXT:   z[i] = 2.0f;
// CHECK-FIXES-NEXT:   float y_acc = y[i];
// CHECK-FIXES-NEXT: #pragma unroll 2
// CHECK-FIXES-NEXT:   for (int j = 0; j < n; j++)
// CHECK-FIXES-NEXT:     y_acc += a[j] * w[j];
// CHECK-FIXES-NEXT:   y[i] = y_acc;

#ifndef __CUDACC_RTC__
void run_wrapped(const float *A, float *y) { through_wrapper<<<1, 16>>>(A, y, 16); }
void run_orphan(const float *A, float *y) { orphan_wrapper<<<1, 16>>>(A, y, 16); }
// Taken over from memory-global-accumulation: an accumulation reached
// through a device function (found by the access analysis): no fix.
__device__ void add_to(float *out, int i, float v) { out[i] += v; }
__global__ void through_call(const float *a, float *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; ++k)
    add_to(out, row, a[k]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:{{[0-9]+}}: warning: global read-modify-write of 'out[i]' in the loop at line {{[0-9]+}}{{.*}} [memory-register-accumulation]
// CHECK-MESSAGES: note: the address does not depend on this loop's iterations
// CHECK-MESSAGES: note: reached through this call
// CHECK-MESSAGES: note: no fix: the access is in a device function called in the loop
// CHECK-FIXES: __device__ void add_to(float *out, int i, float v) { out[i] += v; }

int main() {
  float *A, *x, *y, *buf;
  cudaMalloc(&A, 16 * 16 * sizeof(float));
  cudaMalloc(&x, 16 * sizeof(float));
  cudaMalloc(&y, 16 * sizeof(float));
  cudaMalloc(&buf, 16 * sizeof(float));
  matvec_rmw<<<1, 16>>>(A, x, y, 16, 16);
  aliased<<<1, 16>>>(buf, buf, 16);
  run_wrapped(A, y);
  float *az;
  cudaMalloc(&az, 16 * sizeof(float));
  nbody_accel<<<1, 16>>>(x, A, y, buf, az, 16);
  store_between<<<1, 16>>>(A, y, x, buf, 16);
  return 0;
}
#endif
