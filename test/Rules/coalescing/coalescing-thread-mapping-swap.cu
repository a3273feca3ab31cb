// coalescing-thread-mapping-swap: 2-D kernels indexing rows by threadIdx.x swap x and y (kernel and launches).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-thread-mapping-swap' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-thread-mapping-swap' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-thread-mapping-swap' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

// Rows indexed by threadIdx.x: lanes of a warp are a row apart.
__global__ void scale2d(const float *in, float *out, int W, int H, float a) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < H && c < W)
    out[r * W + c] = a * in[r * W + c];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[r * W + c]' a row apart while threadIdx.y walks along the row (2 of 2 analysed accesses){{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: grid and block swapped at this launch
// CHECK-MESSAGES: note: grid and block swapped at this launch
// CHECK-MESSAGES: note: grid and block swapped at this launch
// CHECK-MESSAGES: note: assumes every launch of 'scale2d' is in this file
// FIX: "description": "swap x and y
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      int r = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT: int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: if (r < H && c < W)
// CHECK-FIXES-NEXT:   out[r * W + c] = a * in[r * W + c];

// Refused: shared memory makes threads interdependent.
__global__ void with_smem(const float *in, float *out, int W) {
  __shared__ float t[16][16];
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  t[threadIdx.x][threadIdx.y] = in[r * W + c];
  __syncthreads();
  out[r * W + c] = t[threadIdx.x][threadIdx.y];
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:33: warning: consecutive threadIdx.x values access 'in[r * W + c]' {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: no fix: the kernel uses barriers, warp operations or atomics: threads are not independent

// Refused: no launch site, so grid and block cannot be swapped.
__global__ void no_launch(const float *in, float *out, int W) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  out[r * W + c] = in[r * W + c] + 1.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: consecutive threadIdx.x values {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: no fix: no launch site of 'no_launch' is visible in this file

// Refused: the thread index comes from a macro the rewrite cannot edit.
#define ROW (blockIdx.x * blockDim.x + threadIdx.x)
__global__ void macro_index(const float *in, float *out, int W) {
  int r = ROW;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  out[r * W + c] = in[r * W + c] * 2.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: consecutive threadIdx.x values {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: no fix: 'blockIdx.x' is written in a macro

// One store per thread after an escape loop of many iterations, in a
// member function the kernel calls for every point (mandelbrot): the
// swapped store is a small share of the kernel's time. Not reported, as
// coalescing-uncoalesced-access does not report it.
struct Escape {
  int maxit;
  __device__ int steps(float cr, float ci) const {
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    for (int it = 0; it < maxit; ++it) {
      if (zr * zr + zi * zi >= 4.0f)
        break;
      float t = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = t;
      ++k;
    }
    return k;
  }
};
__global__ void escape_map(int *out, const Escape *e, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols)
    out[i * cols + j] = e->steps(0.01f * j - 2.0f, 0.01f * i - 1.0f);
}

// A product with one output per thread, rows by threadIdx.x: the store
// after the loop is once per thread, but the loop's reads of A's rows
// (each lane its own row, on every iteration) become broadcasts after the
// swap. Reported (the fix is shown as not proven: no launch in this file).
__global__ void rows_by_x(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * B[k * n + j];
    C[i * n + j] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: consecutive threadIdx.x values access 'C[i * n + j]' a row apart{{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: no fix: no launch site of 'rows_by_x' is visible in this file

// A transpose (one access each way) is not this rule's: no finding. Nor a
// kernel that is already coalesced along x.
__global__ void transpose_naive(const float *in, float *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H)
    out[x * H + y] = in[y * W + x];
}
__global__ void coalesced2d(const float *in, float *out, int W) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  out[r * W + c] = in[r * W + c];
}

// The grid is not a compile-time constant (sizes known only at run time):
// the block alone is swapped, blockIdx and gridDim stay, so every block
// keeps its outputs whatever the grid (no 65535 limit on gridDim.y).
__global__ void stencil_rt(const float *in, float *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx && j < ny)
    out[i * ny + j] = in[i * ny + j] - 0.5f * in[(i - 1) * ny + j];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[i * ny + j]' {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: block swapped at this launch (the grid stays)
// CHECK-MESSAGES: note: assumes every launch of 'stencil_rt' is in this file
// CHECK-FIXES:      int i = blockIdx.x * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT: int j = blockIdx.y * blockDim.x + threadIdx.x;

// The same with blocks of 4 threads along y: swapping the block alone
// would give warps 4 elements of a row; the full swap needs grid.x <=
// 65535, not known here: shown, not applied.
__global__ void narrow_rt(const float *in, float *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny)
    out[i * ny + j] = 2.0f * in[i * ny + j];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[i * ny + j]' {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: grid and block swapped at this launch
// CHECK-MESSAGES: note: the grid size is not a compile-time constant, and a block with fewer than 8 threads along y (or not constant) would gain little from swapping the block alone: the full swap needs grid.x <= 65535, not proven
// CHECK-MESSAGES: note: no fix: 'swap x and y of threadIdx/blockIdx/blockDim/gridDim in 'narrow_rt' and of grid and block at its launch sites' is not proven correct here
// CHECK-FIXES:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: int j = blockIdx.y * blockDim.y + threadIdx.y;

// Silent: each output reads a row of 'in' that is the same for every
// threadIdx.x (a broadcast) and stores once, rows apart along x. Swapping
// would make the loop's loads strided to make the one store contiguous.
__global__ void row_transform(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols)
    return;
  float acc = 0.0f;
  for (int k = 0; k < cols; ++k)
    acc += in[r * cols + k] * (float)((c * k) % 7);
  out[c * rows + r] = acc;
}

// Silent too: the row read in the loop is mirrored (`(rows - r) % rows`,
// not affine), still the same for every threadIdx.x.
__global__ void mirrored_rows(const float *in, float *out, int rows, int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols)
    return;
  float acc = 0.0f;
  for (int k = 1; k < cols; ++k)
    acc += in[((rows - r) % rows) * cols + (cols - k) % cols] * (float)k;
  out[c * rows + r] = acc;
}

// Not proven: the kernel is also launched through its address, a launch
// the fix would not swap.
__global__ void launched_twice(const float *in, float *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny)
    out[i * ny + j] = in[i * ny + j] + 1.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[i * ny + j]' {{.*}} [coalescing-thread-mapping-swap]
// CHECK-MESSAGES: note: not every launch of 'launched_twice' is known to be swapped with it ({{.*}}): not proven
// CHECK-MESSAGES: note: no fix: {{.*}} is not proven correct here

#ifndef __CUDACC_RTC__
void run_rt(const float *in, float *out, int nx, int ny) {
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  stencil_rt<<<grid, block>>>(in, out, nx, ny);
  dim3 nblock(64, 4);
  dim3 ngrid((nx + 63) / 64, (ny + 3) / 4);
  narrow_rt<<<ngrid, nblock>>>(in, out, nx, ny);
  row_transform<<<grid, block>>>(in, out, nx, ny);
  mirrored_rows<<<grid, block>>>(in, out, nx, ny);
  launched_twice<<<grid, block>>>(in, out, nx, ny);
  void *args[] = {&in, &out, &nx, &ny};
  cudaLaunchKernel((const void *)launched_twice, grid, block, args, 0, 0);
}
// CHECK-FIXES: stencil_rt<<<grid, dim3((block).y, (block).x, (block).z)>>>(in, out, nx, ny);
// CHECK-FIXES: narrow_rt<<<ngrid, nblock>>>(in, out, nx, ny);

int main() {
  float *in, *out;
  int W = 4096, H = 4096;
  cudaMalloc(&in, W * H * sizeof(float));
  cudaMalloc(&out, W * H * sizeof(float));
  dim3 block(16, 16);
  dim3 grid((H + 15) / 16, (W + 15) / 16);
  scale2d<<<grid, block>>>(in, out, W, H, 2.0f);
  scale2d<<<dim3(256, 256), dim3(16, 16)>>>(in, out, W, H, 2.0f);
  scale2d<<<256, 16>>>(in, out, W, H, 2.0f);
  with_smem<<<grid, block>>>(in, out, W);
  macro_index<<<grid, block>>>(in, out, W);
  transpose_naive<<<grid, block>>>(in, out, W, H);
  coalesced2d<<<grid, block>>>(in, out, W);
  return 0;
}
#endif
// CHECK-FIXES: scale2d<<<dim3((grid).y, (grid).x, (grid).z), dim3((block).y, (block).x, (block).z)>>>(in, out, W, H, 2.0f);
// CHECK-FIXES-NEXT: scale2d<<<dim3(256, 256, 1), dim3(16, 16, 1)>>>(in, out, W, H, 2.0f);
// CHECK-FIXES-NEXT: scale2d<<<dim3(1, 256), dim3(1, 16)>>>(in, out, W, H, 2.0f);
