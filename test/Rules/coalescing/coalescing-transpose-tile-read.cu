// coalescing-transpose-tile, mirrored: a store contiguous along threadIdx.x
// whose value reads one element a row apart per lane (a transposed operand)
// loads that operand through a shared-memory tile first. Bitwise: the CPU
// emulation (utils/bench/cuemu) of the rewritten program prints the same
// hashes as the original's.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-transpose-tile' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: scale_add 45x70:
// RUNS: scale_add 64x40:
// RUNS: centre 33x17:
// RUNS: antisymmetric 50:
// RUNS: done
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s\n", cudaGetErrorString(e));               \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static unsigned long long hash(const float *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n * sizeof(float); i++)
    h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

// C (rows x cols) = alpha * transpose(At) + B, At is cols x rows; a 32x8
// block.
__global__ void scale_add(float *At, float *B, float *C, float alpha, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols)
    C[row * cols + col] = alpha * At[col * rows + row] + B[row * cols + col];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:35: warning: transposed read: 'At[col * rows + row]' is read a row apart per lane (one 32-byte sector per lane) while 'C[row * cols + col]' is written along the row; a shared-memory tile makes the read contiguous [coalescing-transpose-tile]
// With its launches edited: a tall 32x32 tile, 4 of the 32x8 blocks along y
// in each block; 45 rows (grid.y 6) take 32x2 blocks, 64 rows (grid.y 8) a
// quarter of the grid: both run below.
// CHECK-FIXES:      __global__ void scale_add(float *At, float *B, float *C, float alpha, int rows, int cols) {
// CHECK-FIXES-NEXT:   // cuda-l1 coalescing-transpose-tile: through a 32x32 shared-memory tile (+1 padding column), 4 of the 32x8 blocks along y in each block
// CHECK-FIXES-NEXT:   __shared__ float cudal1_tile[32][32 + 1];
// CHECK-FIXES-NEXT:   // rows of the original threads per block: 32 with 32x8 blocks, 8 with 32x2 blocks (the launch's choice)
// CHECK-FIXES-NEXT:   const unsigned cudal1_tshift = blockDim.y == 8 ? 5 : 3;
// CHECK-FIXES-NEXT:   #pragma unroll
// CHECK-FIXES-NEXT:   for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // load: consecutive lanes take consecutive input elements of a tile column
// CHECK-FIXES-NEXT:     const unsigned cudal1_e = (threadIdx.y + cudal1_k * blockDim.y) * 32 + threadIdx.x;
// CHECK-FIXES-NEXT:     const unsigned cudal1_q = cudal1_e & ((1u << cudal1_tshift) - 1u), cudal1_c = cudal1_e >> cudal1_tshift;
// CHECK-FIXES-NEXT:     const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + cudal1_c;
// CHECK-FIXES-NEXT:     int row = cudal1_by * 8u + cudal1_ty;
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       cudal1_tile[cudal1_q][cudal1_c] = At[col * rows + row];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   #pragma unroll
// CHECK-FIXES-NEXT:   for (unsigned cudal1_k = 0; cudal1_k < 4; ++cudal1_k) { // compute: coalesced along threadIdx.x
// CHECK-FIXES-NEXT:     const unsigned cudal1_q = threadIdx.y + cudal1_k * blockDim.y;
// CHECK-FIXES-NEXT:     const unsigned cudal1_by = ((blockIdx.y << cudal1_tshift) + cudal1_q) / 8u, cudal1_ty = ((blockIdx.y << cudal1_tshift) + cudal1_q) % 8u;
// CHECK-FIXES-NEXT:     int col = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     int row = cudal1_by * 8u + cudal1_ty;
// CHECK-FIXES-NEXT:     if (row < rows && col < cols)
// CHECK-FIXES-NEXT:       C[row * cols + col] = alpha * cudal1_tile[cudal1_q][threadIdx.x] + B[row * cols + col];
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// A square block, an early return, a per-column read along x and a read
// the same in every lane.
__global__ void centre(const float *in, const float *mean, const float *scale, float *out,
                       int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H)
    return;
  out[y * W + x] = (in[x * H + y] - mean[x]) * scale[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:21: warning: transposed read: 'in[x * H + y]'
// CHECK-FIXES:      { // load: each thread takes its transposed partner's element
// CHECK-FIXES-NEXT:     int x = blockIdx.x * blockDim.x + threadIdx.y;
// CHECK-FIXES-NEXT:     int y = blockIdx.y * blockDim.y + threadIdx.x;
// CHECK-FIXES-NEXT:     if (!(x >= W || y >= H))
// CHECK-FIXES-NEXT:       cudal1_tile[threadIdx.x][threadIdx.y] = in[x * H + y];

// A matrix minus its transpose: the read along x and the transposed read
// are of one array.
__global__ void antisymmetric(const float *a, float *d, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    d[y * n + x] = a[y * n + x] - a[x * n + y];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:35: warning: transposed read: 'a[x * n + y]'

// --- refused and silent ----------------------------------------------------

// A call in the value: refused.
__global__ void root_of_transpose(const float *a, float *d, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    d[y * n + x] = sqrtf(a[x * n + y]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:26: warning: transposed read: 'a[x * n + y]'
// CHECK-MESSAGES: note: no fix: the stored value is not plain arithmetic on array elements

// Two transposed reads: not this shape (silent).
__global__ void two_transposed(const float *a, const float *b, float *d, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    d[y * n + x] = a[x * n + y] + b[x * n + y];
}

// Everything along x already (silent).
__global__ void plain_add(const float *a, const float *b, float *d, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    d[y * n + x] = a[y * n + x] + b[y * n + x];
}

// --- driver ---------------------------------------------------------------

#define UPLOAD(d, src, n)                                                      \
  CHECK(cudaMalloc(&d, (n) * sizeof(float)));                                  \
  CHECK(cudaMemcpy(d, src, (n) * sizeof(float), cudaMemcpyHostToDevice))

int main() {
  const int rows = 45, cols = 70, W = 33, H = 17, n = 50;
  const size_t big = 4096;
  float *h = (float *)malloc(big * sizeof(float)), *r = (float *)malloc(big * sizeof(float));
  for (size_t i = 0; i < big; i++)
    h[i] = (float)((i * 37) % 101) / 7 - 5;
  float *At, *B, *C, *in, *mean, *scale, *out, *a, *b, *d;
  UPLOAD(At, h, 4000);
  UPLOAD(B, h + 7, 4000);
  UPLOAD(C, h, 4000);
  scale_add<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(At, B, C, 1.5f, rows, cols);
  CHECK(cudaMemcpy(r, C, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
  printf("scale_add %dx%d: %016llx\n", rows, cols, hash(r, rows * cols));
  scale_add<<<dim3((40 + 31) / 32, (64 + 7) / 8), dim3(32, 8)>>>(At, B, C, 1.5f, 64, 40);
  CHECK(cudaMemcpy(r, C, 64 * 40 * sizeof(float), cudaMemcpyDeviceToHost));
  printf("scale_add 64x40: %016llx\n", hash(r, 64 * 40));
  UPLOAD(in, h, W * H);
  UPLOAD(mean, h + 3, W);
  UPLOAD(scale, h + 9, 1);
  UPLOAD(out, h, W * H);
  centre<<<dim3((W + 15) / 16, (H + 15) / 16), dim3(16, 16)>>>(in, mean, scale, out, W, H);
  CHECK(cudaMemcpy(r, out, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  printf("centre %dx%d: %016llx\n", W, H, hash(r, W * H));
  UPLOAD(a, h, n * n);
  UPLOAD(d, h, n * n);
  UPLOAD(b, h + 1, n * n);
  dim3 blk(32, 8), grd((n + 31) / 32, (n + 7) / 8);
  antisymmetric<<<grd, blk>>>(a, d, n);
  CHECK(cudaMemcpy(r, d, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("antisymmetric %d: %016llx\n", n, hash(r, n * n));
  root_of_transpose<<<grd, blk>>>(a, d, n);
  two_transposed<<<grd, blk>>>(a, b, d, n);
  plain_add<<<grd, blk>>>(a, b, d, n);
  printf("done\n");
  return 0;
}
