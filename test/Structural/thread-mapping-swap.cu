// RUN: cuda-l1-structural --rules=coalescing-thread-mapping-swap %s --fixed=%t.cu -- \
// RUN:   | FileCheck %s --implicit-check-not=warning:
// RUN: grep -v "// CHECK" %t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
// RUN: cuda-l1-nvrtc-check %t.cu
// RUN: cuda-l1-structural --rules=coalescing-thread-mapping-swap %t.cu -- | FileCheck --check-prefix=AGAIN %s --allow-empty
// AGAIN-NOT: note: fix (
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
// CHECK: thread-mapping-swap.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[r * W + c]' a row apart while threadIdx.y walks along the row (2 of 2 analysed accesses){{.*}} [coalescing-thread-mapping-swap]
// CHECK: note: grid and block swapped at this launch
// CHECK: note: grid and block swapped at this launch
// CHECK: note: grid and block swapped at this launch
// CHECK: note: assumes every launch of 'scale2d' is in this file
// CHECK: note: fix (bitwise): swap x and y
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
// CHECK: thread-mapping-swap.cu:[[@LINE-4]]:33: warning: consecutive threadIdx.x values access 'in[r * W + c]' {{.*}} [coalescing-thread-mapping-swap]
// CHECK: note: no fix: the kernel uses barriers, warp operations or atomics: threads are not independent

// Refused: no launch site, so grid and block cannot be swapped.
__global__ void no_launch(const float *in, float *out, int W) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  out[r * W + c] = in[r * W + c] + 1.0f;
}
// CHECK: thread-mapping-swap.cu:[[@LINE-2]]:3: warning: consecutive threadIdx.x values {{.*}} [coalescing-thread-mapping-swap]
// CHECK: note: no fix: no launch site of 'no_launch' is visible in this file

// Refused: the thread index comes from a macro the rewrite cannot edit.
#define ROW (blockIdx.x * blockDim.x + threadIdx.x)
__global__ void macro_index(const float *in, float *out, int W) {
  int r = ROW;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  out[r * W + c] = in[r * W + c] * 2.0f;
}
// CHECK: thread-mapping-swap.cu:[[@LINE-2]]:3: warning: consecutive threadIdx.x values {{.*}} [coalescing-thread-mapping-swap]
// CHECK: note: no fix: 'blockIdx.x' is written in a macro

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

#ifndef __CUDACC_RTC__
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
