// coalescing-column-split by composition: column sums accumulated in global
// memory (`mean[j] = 0; for (...) mean[j] += data[i * n + j];`, or into
// the output's previous value) become register sums by
// memory-register-accumulation in round 1 and are split across the block
// in round 2 of the same --fix run. The result agrees with the original
// within the tolerance on the CPU emulation (utils/bench/cuemu) and
// compiles.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation,coalescing-column-split' \
// RUN:   --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=ROUNDS %s
// ROUNDS-DAG: cuda-l1: kernel 'mean_kernel' combines memory-register-accumulation (round 1) + coalescing-column-split (round 2): applied
// ROUNDS-DAG: cuda-l1: kernel 'gradient_kernel' combines memory-register-accumulation (round 1) + coalescing-column-split (round 2): applied
// ROUNDS-DAG: cuda-l1: kernel 'gs_project_kernel' combines memory-register-accumulation (round 1) + coalescing-column-split (round 2): applied
// ROUNDS-DAG: cuda-l1: kernel 'matvec_col_kernel' combines memory-register-accumulation (round 1) + coalescing-column-split (round 2): applied
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-register-accumulation,coalescing-column-split' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Within the tolerance of the original on the CPU emulation.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: %python %S/Inputs/close.py %t/orig.txt %t/new.txt 1e-4 1e-5 | FileCheck --check-prefix=CLOSE %s
// CLOSE: close: {{[0-9]+}} floating-point values within rtol 0.0001
// The rewritten file compiles with nvcc.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cstdio>
#include <cuda_runtime.h>

#define DATA_TYPE float

__global__ void mean_kernel(DATA_TYPE *mean, DATA_TYPE *data, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    mean[j] = 0.0;
    for (int i = 0; i < m; i++)
      mean[j] += data[i * n + j];
    mean[j] /= (DATA_TYPE)m;
  }
}
// CHECK-FIXES:      int j = blockIdx.x * 8u + cudal1_t % 8u;
// CHECK-FIXES-NEXT: if (j < n) {
// CHECK-FIXES-NEXT:   DATA_TYPE mean_acc = 0.0;
// CHECK-FIXES-NEXT:   for (int i = 0 + (int)cudal1_seg; i < m; i += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:     mean_acc += data[i * n + j];
// CHECK-FIXES-NEXT:   cudal1_part_mean_acc[cudal1_t] = mean_acc;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if (cudal1_seg == 0u && (j < n)) {
// CHECK-FIXES-NEXT:   DATA_TYPE mean_acc = 0.0;
// CHECK-FIXES-NEXT:   mean_acc = cudal1_part_mean_acc[cudal1_t];
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_q = 1u; cudal1_q < cudal1_nseg; ++cudal1_q)
// CHECK-FIXES-NEXT:     mean_acc += cudal1_part_mean_acc[cudal1_t + 8u * cudal1_q];
// CHECK-FIXES-NEXT:   mean[j] = mean_acc;
// CHECK-FIXES-NEXT:   mean[j] /= (DATA_TYPE)m;
// CHECK-FIXES-NEXT: }

__global__ void gradient_kernel(DATA_TYPE *A, DATA_TYPE *r, DATA_TYPE *g, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    g[j] = 0.0;
    for (int i = 0; i < m; i++)
      g[j] += A[i * n + j] * r[i];
  }
}
// CHECK-FIXES: cudal1_part_g_acc[cudal1_t] = g_acc;

// No initialising store: the sum starts from the output's value (segment 0
// keeps it, the other segments start from zero).
__global__ void matvec_col_kernel(DATA_TYPE *a, DATA_TYPE *x2, DATA_TYPE *y_2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j < n; j++) {
      x2[i] += a[j * n + i] * y_2[j];
    }
  }
}
// CHECK-FIXES:      if (cudal1_seg != 0u) {
// CHECK-FIXES-NEXT:   x2_acc = 0;
// CHECK-FIXES-NEXT: }

// Gram-Schmidt's projection as naive code writes it: the dot product
// accumulated into R, then the column updated with R's element. Round 2
// splits both row loops (the second after a second barrier, reading R's
// element that segment 0 stored; the sum itself is not needed there); A, Q
// and R are separate allocations at the launch, so the update is proven.
__global__ void gs_project_kernel(DATA_TYPE *A, DATA_TYPE *R, DATA_TYPE *Q, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((j > k) && (j < n)) {
    R[k * n + j] = 0.0;
    for (int i = 0; i < m; i++)
      R[k * n + j] += Q[i * n + k] * A[i * n + j];
    for (int i = 0; i < m; i++)
      A[i * n + j] = A[i * n + j] - Q[i * n + k] * R[k * n + j];
  }
}
// CHECK-FIXES:      if (cudal1_seg == 0u && ((j > k) && (j < n))) {
// CHECK-FIXES:        R[k * n + j] = R_acc;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();
// CHECK-FIXES-NEXT: if ((j > k) && (j < n)) {
// CHECK-FIXES-NEXT:   for (int i = 0 + (int)cudal1_seg; i < m; i += (int)cudal1_nseg)
// CHECK-FIXES-NEXT:     A[i * n + j] = A[i * n + j] - Q[i * n + k] * R[k * n + j];
// CHECK-FIXES-NEXT: }

static unsigned Seed = 7;
static float rnd() {
  Seed = Seed * 1103515245u + 12345u;
  return (float)((Seed >> 8) & 0xffff) / 65536.0f;
}

static void show(const char *name, const float *d, int n) {
  float *h = new float[n];
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    printf("%s %d %.9g\n", name, i, h[i]);
  delete[] h;
}

int main() {
  const int m = 211, n = 300;
  float *h = new float[n * n], *hv = new float[n > m ? n : m];
  for (int i = 0; i < n * n; i++)
    h[i] = rnd();
  for (int i = 0; i < (n > m ? n : m); i++)
    hv[i] = rnd() - 0.5f;
  float *data, *mean, *r, *g, *sq, *x2, *y2;
  cudaMalloc((void **)&data, sizeof(float) * m * n);
  cudaMalloc((void **)&mean, sizeof(float) * n);
  cudaMalloc((void **)&r, sizeof(float) * m);
  cudaMalloc((void **)&g, sizeof(float) * n);
  cudaMalloc((void **)&sq, sizeof(float) * n * n);
  cudaMalloc((void **)&x2, sizeof(float) * n);
  cudaMalloc((void **)&y2, sizeof(float) * n);
  cudaMemcpy(data, h, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(r, hv, sizeof(float) * m, cudaMemcpyHostToDevice);
  cudaMemcpy(y2, hv, sizeof(float) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(x2, hv, sizeof(float) * n, cudaMemcpyHostToDevice);
  cudaMemcpy(sq, h, sizeof(float) * n * n, cudaMemcpyHostToDevice);
  mean_kernel<<<(n + 255) / 256, 256>>>(mean, data, m, n);
  gradient_kernel<<<(n + 127) / 128, 128>>>(data, r, g, m, n);
  matvec_col_kernel<<<(n + 255) / 256, 256>>>(sq, x2, y2, n);
  float *gA, *gR, *gQ;
  cudaMalloc((void **)&gA, sizeof(float) * m * n);
  cudaMalloc((void **)&gR, sizeof(float) * n * n);
  cudaMalloc((void **)&gQ, sizeof(float) * m * n);
  cudaMemcpy(gA, h, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(gQ, h, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(gR, h, sizeof(float) * n * n, cudaMemcpyHostToDevice);
  gs_project_kernel<<<(n + 255) / 256, 256>>>(gA, gR, gQ, 1, m, n);
  show("gsA", gA, m * n);
  show("gsR", gR, n * n);
  show("mean", mean, n);
  show("g", g, n);
  show("x2", x2, n);
  return 0;
}
