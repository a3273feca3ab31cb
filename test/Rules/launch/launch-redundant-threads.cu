// launch-redundant-threads: a launch gives a dimension an extent > 1 whose index the kernel never
// reads: several threads per element compute and store the same values.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-redundant-threads' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing and finds nothing to fix.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-redundant-threads' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND
// RUN: diff %t/once.cu %t/t.cu
// Once the launch is one-dimensional, coalescing-warp-per-row (which refuses
// the 2-D block) applies to the row sum.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' %s 2>&1 | FileCheck --check-prefix=BEFORE %s
// BEFORE: warning: each thread sums its own row
// BEFORE: note: no fix: the block is 32x8 but the kernel reads only threadIdx.x
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' --format=json %t/t.cu | FileCheck --check-prefix=AFTER %s
// AFTER: "description": "one warp per row
// AFTER: "message": "each thread sums its own row
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,launch-redundant-threads' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// x-only index, guarded.
__global__ void scale(const float *in, float *out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i];
}

// Reads threadIdx.y: every thread is distinct.
__global__ void scale2d(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 2.0f * in[y * w + x];
}

// Reads threadIdx.y through a helper.
__device__ int row_of() { return blockIdx.y * blockDim.y + threadIdx.y; }
__global__ void via_helper(const float *in, float *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  out[row_of() * w + x] = in[row_of() * w + x];
}

// Reads threadIdx.y through a copy of the whole built-in.
__global__ void via_alias(const float *in, float *out, int w) {
  uint3 t = threadIdx;
  out[t.y * w + t.x] = in[t.y * w + t.x];
}

// x-only index through a helper: still redundant.
__device__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__global__ void copy_helper(const float *in, float *out, int n) {
  int i = gid();
  if (i < n)
    out[i] = in[i];
}

// blockDim.y in the arithmetic: redundant, but the extent is read.
__global__ void stride_y(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x * blockDim.y + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// Atomics: each duplicate adds; the result depends on the duplication.
__global__ void count(const int *in, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i] & 15], 1);
}

// Reads and writes the same buffer: the duplicates race.
__global__ void accumulate(float *acc, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += b[i];
}

// __syncthreads_count counts the duplicates.
__global__ void vote(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = __syncthreads_count(i < n && in[i] > 0.0f);
  if (i < n)
    out[i] = (float)c;
}

// One thread per row, summing it.
__global__ void rowsum(const float *A, float *y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k)
      sum += A[row * N + k];
    y[row] = sum;
  }
}

void launch(const float *in, float *out, float *acc, const int *keys,
            int *hist, int n, int w, int h, int ny) {
  // A local dim3 used by this launch only: changed where it is declared.
  dim3 block(32, 8);
  scale<<<(n + 31) / 32, block>>>(in, out, 2.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'scale' never reads threadIdx.y, yet this launch gives its block 8 threads along y: 8 threads per element compute and store the same values; launch each distinct thread once [launch-redundant-threads]
  // CHECK-MESSAGES: note: 'block' is used by this launch only: changed where it is declared
  // CHECK-FIXES: dim3 block(32, 1);
  // CHECK-FIXES-NEXT: scale<<<(n + 31) / 32, block>>>(in, out, 2.0f, n);
  // FIX: "description": "launch 'scale' with extent 1 along block y (each distinct thread once)"
  // FIX: "exactness": "bitwise"

  // Written in the launch, grid and block both redundant along y.
  copy_helper<<<dim3((n + 63) / 64, 2), dim3(64, 4)>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'copy_helper' never reads blockIdx.y or threadIdx.y, yet this launch gives its grid 2 blocks along y and its block 4 threads along y: 8 threads per element
  // CHECK-FIXES: copy_helper<<<dim3((n + 63) / 64, 1), dim3(64, 1)>>>(in, out, n);

  // One dim3 shared with a kernel that reads threadIdx.y: the declaration
  // stays, the x-only launch gets a dim3 of its own.
  dim3 tile(16, 16);
  dim3 grid2d((w + 15) / 16, (h + 15) / 16);
  scale<<<(n + 15) / 16, tile>>>(in, out, 3.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'scale' never reads threadIdx.y, yet this launch gives its block 16 threads along y: 16 threads per element
  // CHECK-MESSAGES: note: 'tile' is used elsewhere in 'launch': this launch gets a dim3 of its own
  scale2d<<<grid2d, tile>>>(in, out, w, h);
  // CHECK-FIXES: dim3 tile(16, 16);
  // CHECK-FIXES: scale<<<(n + 15) / 16, dim3(tile.x, 1, tile.z)>>>(in, out, 3.0f, n);
  // CHECK-FIXES-NEXT: scale2d<<<grid2d, tile>>>(in, out, w, h);

  // Negatives: the y index is read (directly, through a helper, through an
  // alias of the built-in).
  via_helper<<<grid2d, tile>>>(in, out, w);
  via_alias<<<1, tile>>>(in, out, w);
  // Negative: the block's y-extent is not known.
  dim3 open(32, ny);
  scale<<<(n + 31) / 32, open>>>(in, out, 2.0f, n);
  // CHECK-FIXES: dim3 open(32, ny);
  // Negative: atomics (no finding).
  count<<<(n + 31) / 32, dim3(32, 4)>>>(keys, hist, n);
  // CHECK-FIXES: count<<<(n + 31) / 32, dim3(32, 4)>>>(keys, hist, n);

  // Findings without a fix.
  stride_y<<<(n + 127) / 128, dim3(32, 4)>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'stride_y' never reads threadIdx.y{{.*}}4 threads per element
  // CHECK-MESSAGES: note: 'blockDim.y' read here
  // CHECK-MESSAGES: note: no fix: the kernel reads 'blockDim.y': launching with extent 1 along y changes its arithmetic
  // CHECK-FIXES: stride_y<<<(n + 127) / 128, dim3(32, 4)>>>(in, out, n);
  accumulate<<<(n + 31) / 32, dim3(32, 2)>>>(acc, in, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'accumulate' never reads threadIdx.y{{.*}}2 threads per element
  // CHECK-MESSAGES: note: no fix: the kernel reads and writes 'acc': a duplicate thread may read what another already wrote
  // CHECK-FIXES: accumulate<<<(n + 31) / 32, dim3(32, 2)>>>(acc, in, n);
  vote<<<(n + 31) / 32, dim3(32, 2)>>>(in, out, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'vote' never reads threadIdx.y{{.*}}2 threads per element
  // CHECK-MESSAGES: note: no fix: the kernel calls '__syncthreads_count', whose result counts the duplicate threads
  // CHECK-FIXES: vote<<<(n + 31) / 32, dim3(32, 2)>>>(in, out, n);
}

// The block comes from a parameter of the host function: its value from the
// call site; the launch gets a dim3 of its own.
void run(dim3 threads, const float *in, float *out, int n) {
  scale<<<(n + 31) / 32, threads>>>(in, out, 0.5f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'scale' never reads threadIdx.y, yet this launch gives its block 8 threads along y: 8 threads per element
  // CHECK-MESSAGES: note: the launch's values along run() called at
  // CHECK-MESSAGES: note: 'threads' is a parameter of 'run': this launch gets a dim3 of its own
  // CHECK-FIXES: scale<<<(n + 31) / 32, dim3(threads.x, 1, threads.z)>>>(in, out, 0.5f, n);
}

void caller(const float *in, float *out, int n) {
  dim3 rows(32, 8);
  rowsum<<<(n + 31) / 32, rows>>>(in, out, n, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'rowsum' never reads threadIdx.y{{.*}}8 threads per element
  // CHECK-MESSAGES: note: 'rows' is used by this launch only
  // CHECK-FIXES: dim3 rows(32, 1);
  run(dim3(32, 8), in, out, n);
  // CHECK-FIXES: run(dim3(32, 8), in, out, n);
}

// The launches fixed are not reported again; those without a fix are.
// SECOND-NOT: 'scale' never reads
// SECOND-NOT: 'copy_helper' never reads
// SECOND: warning: 'stride_y' never reads
// SECOND: warning: 'accumulate' never reads
// SECOND: warning: 'vote' never reads
// SECOND-NOT: 'scale' never reads
