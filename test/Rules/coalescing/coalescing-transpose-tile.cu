// coalescing-transpose-tile: transpose-like copies go through a padded shared-memory tile.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// Naive transpose (with a scale), 16x16 blocks.
__global__ void transpose(const float *in, float *out, int W, int H,
                          float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[x * H + y] = s * in[y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy: 'in[y * W + x]' is read along the row but 'out[x * H + y]' is written a row apart per lane{{.*}} [coalescing-transpose-tile]
// CHECK-MESSAGES: note: no aliasing: every launch site in this file passes separate cudaMalloc allocations for 'in' and 'out'
// FIX: "description": "transpose through a 16x16 shared-memory tile (+1 padding column)
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      __global__ void transpose(const float *in, float *out, int W, int H,
// CHECK-FIXES-NEXT:                           float s) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 16x16 shared-memory tile (+1 padding column)
// CHECK-FIXES-NEXT:   __shared__ float cudal1_tile[16][16 + 1];
// CHECK-FIXES-NEXT:   { // load: coalesced along threadIdx.x
// CHECK-FIXES-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     int y = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:     if (x < W && y < H)
// CHECK-FIXES-NEXT:       cudal1_tile[threadIdx.y][threadIdx.x] = in[y * W + x];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   { // store: each thread takes its transposed partner's element
// CHECK-FIXES-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.y;
// CHECK-FIXES-NEXT:     int y = blockIdx.y * blockDim.y + threadIdx.x;
// CHECK-FIXES-NEXT:     if (x < W && y < H)
// CHECK-FIXES-NEXT:       out[x * H + y] = s * cudal1_tile[threadIdx.x][threadIdx.y];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// A 32x8 block (the usual hand-written transpose) whose launches the tool
// can edit: a tall 32x32 tile, 4 of the original blocks along y in each
// block (4 elements per thread; a warp writes 32 contiguous floats). The
// launch takes a quarter of grid.y when it divides by 4, else the grid as
// it was with 32x2 blocks: each block covers blockDim.y * 4 of the original
// thread rows (coalescing-transpose-tile-tall.cu runs both on the CPU).
__global__ void transpose_32x8(const float *in, float *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[x * H + y] = in[y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// FIX: "description": "transpose through a 32x32 shared-memory tile (+1 padding column), 4 of the 32x8 blocks in each block
// FIX: "exactness": "bitwise"
// CHECK-FIXES:      __global__ void transpose_32x8(const float *in, float *out, int W, int H) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 32x32 shared-memory tile (+1 padding column), 4 of the 32x8 blocks along y in each block
// CHECK-FIXES-NEXT:   __shared__ float cudal1_tile[32][32 + 1];
// CHECK-FIXES-NEXT:   // rows of the original threads per block: 32 with 32x8 blocks, 8 with 32x2 blocks (the launch's choice)
// CHECK-FIXES-NEXT:   const unsigned cudal1_tshift = blockDim.y == 8 ? 5 : 3;
// CHECK-FIXES-NEXT:   #pragma unroll
// CHECK-FIXES-NEXT:   for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // load: coalesced along threadIdx.x
// CHECK-FIXES-NEXT:     const unsigned cudal1_q = threadIdx.y + cudal1_k * blockDim.y;
// CHECK-FIXES-NEXT:     const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
// CHECK-FIXES-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     int y = cudal1_by * 8u + cudal1_ty;
// CHECK-FIXES-NEXT:     if (x < W && y < H)
// CHECK-FIXES-NEXT:       cudal1_tile[cudal1_q][threadIdx.x] = in[y * W + x];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   #pragma unroll
// CHECK-FIXES-NEXT:   for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // store: consecutive lanes take consecutive output elements of a tile column
// CHECK-FIXES-NEXT:     const unsigned cudal1_e = (threadIdx.y + cudal1_k * blockDim.y) * 32 + threadIdx.x;
// CHECK-FIXES-NEXT:     const unsigned cudal1_q = cudal1_e & ((1u << cudal1_tshift) - 1u), cudal1_c = cudal1_e >> cudal1_tshift;
// CHECK-FIXES-NEXT:     const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
// CHECK-FIXES-NEXT:     int x = blockIdx.x * blockDim.x + cudal1_c;
// CHECK-FIXES-NEXT:     int y = cudal1_by * 8u + cudal1_ty;
// CHECK-FIXES-NEXT:     if (x < W && y < H)
// CHECK-FIXES-NEXT:       out[x * H + y] = cudal1_tile[cudal1_q][cudal1_c];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// 16x4 blocks of doubles with the bounds in an early exit, and the guard
// written the other way round: the early exit joins the guard.
__global__ void transpose_16x4_exit(const double *in, double *out, int W,
                                    int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= W) return;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < H)
    out[(long)x * H + y] = 2.0 * in[(long)y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-FIXES:      __shared__ double cudal1_tile[4][16 + 8];
// CHECK-FIXES:          if (!(x >= W) && (y < H))
// CHECK-FIXES-NEXT:       cudal1_tile[threadIdx.y][threadIdx.x] = in[(long)y * W + x];
// CHECK-FIXES:          int x = blockIdx.x * blockDim.x + (cudal1_lane / 4);
// CHECK-FIXES-NEXT:     int y = blockIdx.y * blockDim.y + (cudal1_lane % 4);
// CHECK-FIXES-NEXT:     if (!(x >= W) && (y < H))
// CHECK-FIXES-NEXT:       out[(long)x * H + y] = 2.0 * cudal1_tile[(cudal1_lane % 4)][(cudal1_lane / 4)];

// Refused: one row per block: no run of output elements to write together.
__global__ void transpose_256x1(const float *in, float *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[x * H + y] = in[y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-MESSAGES: note: no fix: the block (256x1x1) is not two-dimensional with at least 2 rows

// Refused: no launch site: 'in' and 'out' may alias.
__global__ void transpose_unlaunched(const float *in, float *out, int W,
                                     int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * H + y] = in[y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-MESSAGES: note: no fix: no launch site of 'transpose_unlaunched' is visible in this file, so its block size is unknown; the tile needs a constant block

// Refused: the early exit reads memory (a per-thread decision the second
// phase could not make for its partner without another read).
__global__ void transpose_offset(const float *in, float *out, const int *off,
                                 int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= off[0]) return;
  out[x * H + y] = in[y * W + x];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: transpose-like copy{{.*}} [coalescing-transpose-tile]
// CHECK-MESSAGES: note: no fix: 'if (x >= W || y >= off[0]) return' is not a declaration of a value computed without memory reads

// A plain copy is not a transpose: no finding.
__global__ void copy2d(const float *in, float *out, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * W + x] = in[y * W + x];
}

#ifndef __CUDACC_RTC__
int main() {
  float *in, *out;
  int *off;
  cudaMalloc(&in, 4096 * 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  cudaMalloc(&off, sizeof(int));
  transpose<<<dim3(256, 256), dim3(16, 16)>>>(in, out, 4096, 4096, 2.0f);
  transpose_32x8<<<dim3(128, 512), dim3(32, 8)>>>(in, out, 4096, 4096);
// CHECK-FIXES: transpose_32x8<<<dim3((dim3(128, 512)).x, ((dim3(128, 512)).y % 4 == 0) ? (dim3(128, 512)).y / 4 : (dim3(128, 512)).y, (dim3(128, 512)).z), dim3((dim3(32, 8)).x, ((dim3(128, 512)).y % 4 == 0) ? (dim3(32, 8)).y : (dim3(32, 8)).y / 4, (dim3(32, 8)).z)>>>(in, out, 4096, 4096);
  transpose_256x1<<<dim3(16, 4096), dim3(256, 1)>>>(in, out, 4096, 4096);
  double *din, *dout;
  cudaMalloc(&din, 1024 * 1024 * sizeof(double));
  cudaMalloc(&dout, 1024 * 1024 * sizeof(double));
  transpose_16x4_exit<<<dim3(64, 256), dim3(16, 4)>>>(din, dout, 1024, 1024);
  transpose_offset<<<dim3(256, 256), dim3(16, 16)>>>(in, out, off, 4096, 4096);
  copy2d<<<dim3(256, 256), dim3(16, 16)>>>(in, out, 4096);
  return 0;
}
#endif
