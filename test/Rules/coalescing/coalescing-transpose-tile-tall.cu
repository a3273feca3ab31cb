// coalescing-transpose-tile, tall tile: a 32x8 (or 32x16) transpose whose
// launches the tool can edit goes through a 32x32 tile, 32 / BY of the
// original blocks along y in each block. At run time the launch takes
// grid.y / (32 / BY) blocks of 32xBY when grid.y divides, else the grid as
// it was with blocks of 32x(BY * BY / 32): each block covers blockDim.y *
// (32 / BY) of the original thread rows. The CPU emulation runs both
// launches of every kernel and prints the original's bits.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: transpose 100x70: [[A:[0-9a-f]+]]
// RUNS-NEXT: transpose16 100x70: [[A]]
// RUNS-NEXT: transpose_d 100x70: {{[0-9a-f]+}}
// RUNS-NEXT: transpose_m 100x70: [[A]]
// RUNS-NEXT: transpose_brow 100x70: [[A]]
// RUNS-NEXT: add_transposed_m 100x70: {{[0-9a-f]+}}
// RUNS-NEXT: transpose 128x96: [[B:[0-9a-f]+]]
// RUNS-NEXT: transpose16 128x96: [[B]]
// RUNS-NEXT: transpose_d 128x96: {{[0-9a-f]+}}
// RUNS-NEXT: transpose_m 128x96: [[B]]
// RUNS-NEXT: transpose_brow 128x96: [[B]]
// RUNS-NEXT: add_transposed_m 128x96: {{[0-9a-f]+}}
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE_X 32
#define TILE_Y 8
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

// The naive out-of-place transpose as everyday code writes it: sizes from
// parameters, the element type from a macro, the grid from ceil().
__global__ void transpose(DATA_TYPE *in, DATA_TYPE *out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      __global__ void transpose(DATA_TYPE *in, DATA_TYPE *out, int rows, int cols) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 32x32 shared-memory tile (+1 padding column), 4 of the 32x8 blocks along y in each block
// CHECK-FIXES-NEXT:   __shared__ DATA_TYPE cudal1_tile[32][32 + 1];
// CHECK-FIXES:          out[col * rows + row] = cudal1_tile[cudal1_q][cudal1_c];

// 32x16 blocks: two of them along y in each block (32x8 when grid.y is odd).
__global__ void transpose16(const float *__restrict__ in, float *__restrict__ out, int rows,
                            int cols) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  if (col >= cols) return;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (row < rows)
    out[col * rows + row] = in[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      // cuda-l1 coalescing-transpose-tile: through a 32x32 shared-memory tile (+1 padding column), 2 of the 32x16 blocks along y in each block
// CHECK-FIXES:        const unsigned cudal1_tshift = blockDim.y == 16 ? 5 : 4;
// CHECK-FIXES:        for (unsigned cudal1_k = 0; cudal1_k < 2; ++cudal1_k) { // load: coalesced along threadIdx.x
// CHECK-FIXES:          const int col = threadIdx.x + blockIdx.x * blockDim.x;
// CHECK-FIXES-NEXT:     const int row = cudal1_ty + cudal1_by * 16u;
// CHECK-FIXES-NEXT:     if (!(col >= cols) && (row < rows))

// Doubles, with long indices.
__global__ void transpose_d(const double *in, double *out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    out[(long)col * rows + row] = 0.5 * in[(long)row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      __shared__ double cudal1_tile[32][32 + 1];

// Launched through a macro: the launch cannot be edited, so the block's own
// 32x8 tile (runs of 8 contiguous output elements) and the launch as it was.
__global__ void transpose_m(const float *in, float *out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      __global__ void transpose_m(const float *in, float *out, int rows, int cols) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 32x8 shared-memory tile (+4 padding columns)
// CHECK-FIXES-NEXT:   __shared__ float cudal1_tile[8][32 + 4];
// CHECK-FIXES-NEXT:   { // load: coalesced along threadIdx.x
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     int row = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       cudal1_tile[threadIdx.y][threadIdx.x] = in[row * cols + col];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   { // store: thread l takes the role of thread (l / 8, l % 8): runs of 8 contiguous output elements
// CHECK-FIXES-NEXT:     const unsigned cudal1_lane = threadIdx.y * 32 + threadIdx.x;
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + (cudal1_lane / 8);
// CHECK-FIXES-NEXT:     int row = blockIdx.y * blockDim.y + (cudal1_lane % 8);
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       out[col * rows + row] = cudal1_tile[(cudal1_lane % 8)][(cudal1_lane / 8)];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }
#define LAUNCH_M(g, b, ...) transpose_m<<<g, b>>>(__VA_ARGS__)

// The mirrored form (a transposed read), launched through a macro too: the
// 32x8 tile, its load phase walking the input column in runs of 8.
__global__ void add_transposed_m(const float *At, const float *B, float *C, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    C[row * cols + col] = At[col * rows + row] + B[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:27: warning: transposed read{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      __global__ void add_transposed_m(const float *At, const float *B, float *C, int rows, int cols) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 32x8 shared-memory tile (+4 padding columns)
// CHECK-FIXES-NEXT:   __shared__ float cudal1_tile[8][32 + 4];
// CHECK-FIXES-NEXT:   { // load: thread l takes the role of thread (l / 8, l % 8): runs of 8 contiguous input elements
// CHECK-FIXES-NEXT:     const unsigned cudal1_lane = threadIdx.y * 32 + threadIdx.x;
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + (cudal1_lane / 8);
// CHECK-FIXES-NEXT:     int row = blockIdx.y * blockDim.y + (cudal1_lane % 8);
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       cudal1_tile[(cudal1_lane % 8)][(cudal1_lane / 8)] = At[col * rows + row];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   { // compute: coalesced along threadIdx.x
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     int row = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       C[row * cols + col] = cudal1_tile[threadIdx.y][threadIdx.x] + B[row * cols + col];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }
#define LAUNCH_AT(g, b, ...) add_transposed_m<<<g, b>>>(__VA_ARGS__)

// The block's row offset spelled in a macro: the tall tile would rewrite
// it, so the 32x8 tile (which keeps blockIdx.y) is used.
#define BROW (blockIdx.y * blockDim.y)
__global__ void transpose_brow(const float *in, float *out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = BROW + threadIdx.y;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      // cuda-l1 coalescing-transpose-tile: through a 32x8 shared-memory tile (+4 padding columns)
// CHECK-FIXES:          int row = BROW + (cudal1_lane % 8);

unsigned long long hash(const void *d, size_t bytes) {
  unsigned char *h = (unsigned char *)malloc(bytes);
  cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  unsigned long long x = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++)
    x = (x ^ h[i]) * 1099511628211ull;
  free(h);
  return x;
}

void run(int rows, int cols, float *in, float *out, double *din, double *dout) {
  size_t n = (size_t)rows * cols;
  dim3 block(TILE_X, TILE_Y);
  dim3 grid((size_t)ceil(((float)cols) / ((float)block.x)),
            (size_t)ceil(((float)rows) / ((float)block.y)));
  cudaMemset(out, 0, n * sizeof(float));
  transpose<<<grid, block>>>(in, out, rows, cols);
  printf("transpose %dx%d: %016llx\n", rows, cols, hash(out, n * sizeof(float)));
  cudaMemset(out, 0, n * sizeof(float));
  dim3 block16(32, 16), grid16((cols + 31) / 32, (rows + 15) / 16);
  transpose16<<<grid16, block16>>>(in, out, rows, cols);
  printf("transpose16 %dx%d: %016llx\n", rows, cols, hash(out, n * sizeof(float)));
  cudaMemset(dout, 0, n * sizeof(double));
  transpose_d<<<grid, block>>>(din, dout, rows, cols);
  printf("transpose_d %dx%d: %016llx\n", rows, cols, hash(dout, n * sizeof(double)));
  cudaMemset(out, 0, n * sizeof(float));
  LAUNCH_M(grid, block, in, out, rows, cols);
  printf("transpose_m %dx%d: %016llx\n", rows, cols, hash(out, n * sizeof(float)));
  cudaMemset(out, 0, n * sizeof(float));
  transpose_brow<<<grid, block>>>(in, out, rows, cols);
  printf("transpose_brow %dx%d: %016llx\n", rows, cols, hash(out, n * sizeof(float)));
  cudaMemset(out, 0, n * sizeof(float));
  LAUNCH_AT(grid, block, in, in, out, rows, cols);
  printf("add_transposed_m %dx%d: %016llx\n", rows, cols, hash(out, n * sizeof(float)));
}
// CHECK-FIXES: transpose<<<dim3((grid).x, ((grid).y % 4 == 0) ? (grid).y / 4 : (grid).y, (grid).z), dim3((block).x, ((grid).y % 4 == 0) ? (block).y : (block).y / 4, (block).z)>>>(in, out, rows, cols);
// CHECK-FIXES: transpose16<<<dim3((grid16).x, ((grid16).y % 2 == 0) ? (grid16).y / 2 : (grid16).y, (grid16).z), dim3((block16).x, ((grid16).y % 2 == 0) ? (block16).y : (block16).y / 2, (block16).z)>>>(in, out, rows, cols);
// CHECK-FIXES: LAUNCH_M(grid, block, in, out, rows, cols);

int main() {
  const size_t big = 128 * 96;
  float *h = (float *)malloc(big * sizeof(float));
  double *hd = (double *)malloc(big * sizeof(double));
  for (size_t i = 0; i < big; i++) {
    h[i] = (float)((i * 37) % 101) / 7 - 5;
    hd[i] = (double)h[i] / 3;
  }
  float *in, *out;
  double *din, *dout;
  cudaMalloc(&in, big * sizeof(float));
  cudaMalloc(&out, big * sizeof(float));
  cudaMalloc(&din, big * sizeof(double));
  cudaMalloc(&dout, big * sizeof(double));
  cudaMemcpy(in, h, big * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(din, hd, big * sizeof(double), cudaMemcpyHostToDevice);
  run(100, 70, in, out, din, dout); // grid.y 13 (7 for 32x16): the blocks shrink
  run(128, 96, in, out, din, dout); // grid.y 16 (8): the grid shrinks
  return 0;
}
