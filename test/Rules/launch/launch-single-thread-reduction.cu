// launch-single-thread-reduction: kernels launched with one thread whose
// work is a reduction loop (a column norm, the last step of a two-kernel
// sum): a block of 256 threads strides the loop, a fixed tree in shared
// memory combines the partial values, thread 0 runs the rest.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-single-thread-reduction' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the rewritten kernels read threadIdx and are launched with
// 256 threads; only the refused ones are reported again.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-single-thread-reduction' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: 'last_index' runs in one thread
// SECOND: warning: 'chained' runs in one thread
// SECOND: warning: 'calls_helper' runs in one thread
// SECOND: warning: 'start_from_acc' runs in one thread
// SECOND: warning: 'mixed_sign' runs in one thread
// SECOND: warning: 'bounded' runs in one thread
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON): float sums reassociate,
// an integer max is exact.
// RUN: %cuda-l1-rewrite --rules='-*,launch-single-thread-reduction' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "reassociating"
// FIX: "exactness": "reassociating"
// FIX: "exactness": "bitwise"
// FIX: "exactness": "reassociating"
// The rewritten file compiles (nvcc, NVRTC) and computes the same results on
// the CPU emulation (utils/bench/cuemu): printed to 5 digits for the float
// sums, exactly for the integer max.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: col_norm: 
// RUNS: sum_partials: 
// RUNS: offset_sum: 
// RUNS: imax: 
// RUNS: pragma_start: 
// RUNS: done
#include <cstdio>

#define DATA_TYPE float
#define BLOCK_SIZE 128

// Gram-Schmidt's column norm: one thread walks a column, once per column
// of a host loop.
__global__ void col_norm(DATA_TYPE *A, DATA_TYPE *R, int k, int m, int n) {
  DATA_TYPE nrm = 0.0;
  for (int i = 0; i < m; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'col_norm' runs in one thread (every launch is <<<1, 1>>>): its loop over 'i' reducing into 'nrm' runs serially on one SM{{.*}} [launch-single-thread-reduction]
    nrm += A[i * n + k] * A[i * n + k];
  R[k * n + k] = sqrtf(nrm);
}
// CHECK-FIXES:      __global__ void col_norm(DATA_TYPE *A, DATA_TYPE *R, int k, int m, int n) {
// CHECK-FIXES-NEXT:   __shared__ DATA_TYPE cudal1_part[256];
// CHECK-FIXES-NEXT:   DATA_TYPE nrm = 0.0;
// CHECK-FIXES-NEXT:   for (int i = (int)threadIdx.x; i < m; i += (int)blockDim.x)
// CHECK-FIXES-NEXT:     nrm += A[i * n + k] * A[i * n + k];
// CHECK-FIXES-NEXT:   cudal1_part[threadIdx.x] = nrm;
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_s = 1u; cudal1_s < blockDim.x; cudal1_s *= 2u) {
// CHECK-FIXES-NEXT:     if (threadIdx.x % (2u * cudal1_s) == 0u && threadIdx.x + cudal1_s < blockDim.x)
// CHECK-FIXES-NEXT:       cudal1_part[threadIdx.x] += cudal1_part[threadIdx.x + cudal1_s];
// CHECK-FIXES-NEXT:     __syncthreads();
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   if (threadIdx.x != 0u)
// CHECK-FIXES-NEXT:     return;
// CHECK-FIXES-NEXT:   nrm = cudal1_part[0];
// CHECK-FIXES-NEXT:   R[k * n + k] = sqrtf(nrm);

// The second kernel of a two-kernel sum: the loop variable is declared
// before the loop (not read after it), the bound is computed, and the
// result goes to the buffer the loop reads (thread 0, after the barrier).
__global__ void sum_partials(float *partial_sums, const int count) {
  int x;
  float sum = 0;
  int num_blocks = (count + BLOCK_SIZE - 1) / BLOCK_SIZE;
  for (x = 0; x < num_blocks; x++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'sum_partials' runs in one thread{{.*}} reducing into 'sum'
    sum += partial_sums[x];
  }
  partial_sums[0] = sum;
}
// CHECK-FIXES:      for (x = (int)threadIdx.x; x < num_blocks; x += (int)blockDim.x) {

// A sum that starts from a loaded value: thread 0 keeps it, the others
// start at zero; two accumulators in one loop.
__global__ void offset_sum(const double *v, double *out, int n) {
  double s = v[0];
  double q = 0.0;
  for (int i = 1; i <= n; i++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'offset_sum' runs in one thread{{.*}} reducing into 's', 'q'
    s += v[i];
    q += v[i] * v[i];
  }
  out[0] = s;
  out[1] = q;
}
// CHECK-FIXES:      __global__ void offset_sum(const double *v, double *out, int n) {
// CHECK-FIXES-NEXT:   __shared__ double cudal1_part[256];
// CHECK-FIXES-NEXT:   __shared__ double cudal1_part_2[256];
// CHECK-FIXES:        if (threadIdx.x != 0u)
// CHECK-FIXES-NEXT:     s = 0;
// CHECK-FIXES-NEXT:   for (int i = (1) + (int)threadIdx.x; i <= n; i += (int)blockDim.x) {
// CHECK-FIXES:          cudal1_part_2[threadIdx.x] += cudal1_part_2[threadIdx.x + cudal1_s];

// An integer max (exact): every thread may start from the same value.
__global__ void imax(const int *v, int *out, int n) {
  int m = v[0];
  for (int i = 0; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'imax' runs in one thread{{.*}} reducing into 'm'
    m = max(m, v[i]);
  *out = m;
}
// CHECK-FIXES:      cudal1_part[threadIdx.x] = max(cudal1_part[threadIdx.x], cudal1_part[threadIdx.x + cudal1_s]);

// A sum from a loaded start under a '#pragma unroll' (what
// memory-register-accumulation and unrolling-param-bound leave of
// `e[0] += e[i]`): the reset comes before the pragma.
__global__ void pragma_start(float *e, int n) {
  float e_acc = e[0];
#pragma unroll 4
  for (int i = 1; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'pragma_start' runs in one thread{{.*}} reducing into 'e_acc'
    e_acc += e[i];
  e[0] = e_acc;
}
// CHECK-FIXES:      float e_acc = e[0];
// CHECK-FIXES-NEXT:   if (threadIdx.x != 0u)
// CHECK-FIXES-NEXT:     e_acc = 0;
// CHECK-FIXES-NEXT: #pragma unroll 4
// CHECK-FIXES-NEXT:   for (int i = (1) + (int)threadIdx.x; i < n; i += (int)blockDim.x)

// --- no fix, or not this rule ------------------------------------------------

// The loop variable is read after the loop.
__global__ void last_index(const float *v, float *out, int n) {
  int i;
  float s = 0.0f;
  for (i = 0; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'last_index' runs in one thread
    // CHECK-MESSAGES: note: no fix: the loop variable 'i' is declared before the loop and read after it
    s += v[i];
  out[0] = s / i;
}

// A sum that reads the other accumulator.
__global__ void chained(const float *v, float *out, int n) {
  float a = 0.0f, b = 0.0f;
  for (int i = 0; i < n; i++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'chained' runs in one thread
    // CHECK-MESSAGES: note: no fix: the value reduced into 'b' reads 'a'
    a += v[i];
    b += a;
  }
  out[0] = b;
}

// A device function of the program might read blockDim.
__device__ float twice(float x) { return 2.0f * x; }
__global__ void calls_helper(const float *v, float *out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'calls_helper' runs in one thread
    // CHECK-MESSAGES: note: no fix: the kernel calls a function of the program
    s += v[i];
  out[0] = twice(s);
}

// The loop starts at the accumulator's own start value.
__global__ void start_from_acc(const int *a, int *out, int n) {
  int s = 1;
  for (int i = s; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'start_from_acc' runs in one thread
    // CHECK-MESSAGES: note: no fix: the loop's start or bound reads 's', which the loop reduces
    s += a[i];
  out[0] = s;
}

// An int loop variable against an unsigned bound: -5 < n compares as
// unsigned.
__global__ void mixed_sign(const float *v, float *out, unsigned n) {
  float s = 0.0f;
  for (int i = -5; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'mixed_sign' runs in one thread
    // CHECK-MESSAGES: note: no fix: the loop's condition compares 'i' in another type than its own
    s += v[i + 5];
  out[0] = s;
}

// __launch_bounds__ below the new block.
__global__ void __launch_bounds__(64) bounded(const float *v, float *out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'bounded' runs in one thread
    // CHECK-MESSAGES: note: no fix: the kernel has __launch_bounds__
    s += v[i];
  out[0] = s;
}

// Silent: reads blockDim as a whole.
__global__ void whole_dim(const float *v, float *out, int n) {
  dim3 b = blockDim;
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += v[i];
  out[0] = s / b.x;
}

// Silent: launched with a block of 32 threads; reads threadIdx; a loop of
// 16 iterations.
__global__ void warp_sum(const float *v, float *out, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += v[i];
  out[0] = s;
}
__global__ void tid_sum(const float *v, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i++)
    s += v[i];
  out[0] = s;
}
__global__ void short_sum(const float *v, float *out) {
  float s = 0.0f;
  for (int i = 0; i < 16; i++)
    s += v[i];
  out[0] = s;
}

static void printf5(const char *What, const float *D, int N) {
  float *H = new float[N];
  cudaMemcpy(H, D, N * sizeof(float), cudaMemcpyDeviceToHost);
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += H[I] * (1 + I % 7);
  printf("%s: %.5g %.5g %.5g\n", What, H[0], H[N - 1], S);
  delete[] H;
}

int main() {
  const int m = 1000, n = 24, total = 5000;
  float *hA = new float[m * n];
  for (int I = 0; I < m * n; ++I)
    hA[I] = float((I * 7919) % 2001) / 1000.0f - 1.0f;
  float *A, *R, *P, *out;
  cudaMalloc((void **)&A, m * n * sizeof(float));
  cudaMalloc((void **)&R, n * n * sizeof(float));
  cudaMalloc((void **)&P, total * sizeof(float));
  cudaMalloc((void **)&out, 4 * sizeof(float));
  cudaMemcpy(A, hA, m * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(P, hA, total * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(R, 0, n * n * sizeof(float));
  for (int k = 0; k < n; k++)
    col_norm<<<1, 1>>>(A, R, k, m, n);
  // CHECK-FIXES: col_norm<<<1, 256>>>(A, R, k, m, n);
  printf5("col_norm", R, n * n);
  sum_partials<<<1, 1>>>(P, total * BLOCK_SIZE);
  printf5("sum_partials", P, 1);
  double *dv, *dout;
  double hv[701];
  for (int I = 0; I < 701; ++I)
    hv[I] = (I % 13) * 0.25 - 1.0;
  cudaMalloc((void **)&dv, 701 * sizeof(double));
  cudaMalloc((void **)&dout, 2 * sizeof(double));
  cudaMemcpy(dv, hv, 701 * sizeof(double), cudaMemcpyHostToDevice);
  offset_sum<<<dim3(1), dim3(1)>>>(dv, dout, 700);
  // CHECK-FIXES: offset_sum<<<dim3(1), 256>>>(dv, dout, 700);
  double ho[2];
  cudaMemcpy(ho, dout, 2 * sizeof(double), cudaMemcpyDeviceToHost);
  printf("offset_sum: %.10g %.10g\n", ho[0], ho[1]);
  int *iv, *io;
  int hi[900];
  for (int I = 0; I < 900; ++I)
    hi[I] = (I * 7919) % 1013 - 500;
  cudaMalloc((void **)&iv, 900 * sizeof(int));
  cudaMalloc((void **)&io, sizeof(int));
  cudaMemcpy(iv, hi, 900 * sizeof(int), cudaMemcpyHostToDevice);
  imax<<<1, 1>>>(iv, io, 900);
  int hm;
  cudaMemcpy(&hm, io, sizeof(int), cudaMemcpyDeviceToHost);
  printf("imax: %d\n", hm);
  pragma_start<<<1, 1>>>(P, 3000);
  printf5("pragma_start", P, 1);
  last_index<<<1, 1>>>(P, out, 100);
  chained<<<1, 1>>>(P, out, 100);
  calls_helper<<<1, 1>>>(P, out, 100);
  start_from_acc<<<1, 1>>>(io, io, 10);
  mixed_sign<<<1, 1>>>(P, out, 10u);
  bounded<<<1, 1>>>(P, out, 100);
  whole_dim<<<1, 1>>>(P, out, 100);
  warp_sum<<<1, 32>>>(P, out, 100);
  tid_sum<<<1, 1>>>(P, out, 100);
  short_sum<<<1, 1>>>(P, out);
  printf("done\n");
  return 0;
}
