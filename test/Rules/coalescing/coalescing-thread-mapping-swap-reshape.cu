// coalescing-thread-mapping-swap, reshaped grid: a 2-D kernel whose rows
// run along threadIdx.x, with 32x8 blocks (FDTD's field updates). Swapping
// grid and block would leave warps 8 elements wide; when the kernel knows
// its threads only by `blockIdx.D * blockDim.D + threadIdx.D`, the block
// stays 32x8 and the grid covers the swapped extents, so a warp spans 32
// consecutive elements. At run time, launches whose swapped extents do not
// divide by the block swap grid and block instead (also exact). Both paths
// run on the CPU emulation and give the original's bits.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-thread-mapping-swap' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-thread-mapping-swap' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Same bits as the original, for a size that reshapes and one that swaps.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: 256x192: {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}}
// RUNS: 200x150: {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}}
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// FDTD's hz update: i (rows) from x, j (columns) from y.
__global__ void hz_update(const float *ex, const float *ey, float *hz, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < (nx - 1)) && (j < (ny - 1)))
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] +
                                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: consecutive threadIdx.x values access 'hz[i * ny + j]' a row apart{{.*}} [coalescing-thread-mapping-swap]
// CHECK-FIXES:      int i = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT: int j = blockIdx.x * blockDim.x + threadIdx.x;

// Operands in the other order: still the global index.
__global__ void scaled_copy(const float *in, float *out, int nx, int ny) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  if (i < nx && j < ny)
    out[i * ny + j] = 2.0f * in[i * ny + j];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[i * ny + j]'{{.*}} [coalescing-thread-mapping-swap]
// CHECK-FIXES:      int i = threadIdx.y + blockDim.y * blockIdx.y;
// CHECK-FIXES-NEXT: int j = threadIdx.x + blockIdx.x * blockDim.x;

// Negative for the reshape: threadIdx.x on its own (the block's first
// column of threads): the block is swapped, the grid stays.
__global__ void first_lane(const float *in, float *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  float s = threadIdx.x == 0 ? 2.0f : 1.0f;
  if (i < nx && j < ny)
    out[i * ny + j] = s * in[i * ny + j];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: consecutive threadIdx.x values access 'out[i * ny + j]'{{.*}} [coalescing-thread-mapping-swap]
// CHECK-FIXES:      float s = threadIdx.y == 0 ? 2.0f : 1.0f;

void run(int nx, int ny, const float *ex, const float *ey, float *hz, float *out, float *out2) {
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  hz_update<<<grid, block>>>(ex, ey, hz, nx, ny);
  scaled_copy<<<grid, block>>>(ex, out, nx, ny);
  first_lane<<<grid, block>>>(ey, out2, nx, ny);
}
// CHECK-FIXES: hz_update<<<dim3(((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (grid).y * (block).y / (block).x : (grid).y, ((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (grid).x * (block).x / (block).y : (grid).x, (grid).z), dim3(((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (block).x : (block).y, ((grid).y * (block).y % (block).x + (grid).x * (block).x % (block).y == 0 && (grid).x * (block).x / (block).y <= 65535) ? (block).y : (block).x, (block).z)>>>(ex, ey, hz, nx, ny);
// CHECK-FIXES-NEXT: scaled_copy<<<dim3(((grid).y
// CHECK-FIXES-NEXT: first_lane<<<grid, dim3((block).y, (block).x, (block).z)>>>(ey, out2, nx, ny);

unsigned long long hash(const float *d, long n) {
  unsigned *h = (unsigned *)malloc(sizeof(float) * n);
  cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost);
  unsigned long long x = 1469598103934665603ull;
  for (long i = 0; i < n; i++)
    x = (x ^ h[i]) * 1099511628211ull;
  free(h);
  return x;
}

void one(int nx, int ny) {
  long n = (long)nx * ny;
  float *h = (float *)malloc(sizeof(float) * n);
  float *ex, *ey, *hz, *out, *out2;
  cudaMalloc(&ex, sizeof(float) * n);
  cudaMalloc(&ey, sizeof(float) * n);
  cudaMalloc(&hz, sizeof(float) * n);
  cudaMalloc(&out, sizeof(float) * n);
  cudaMalloc(&out2, sizeof(float) * n);
  for (long k = 0; k < n; k++)
    h[k] = (float)((k * 37) % 101) / 25.0f - 2.0f;
  cudaMemcpy(ex, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  for (long k = 0; k < n; k++)
    h[k] = (float)((k * 53) % 89) / 17.0f;
  cudaMemcpy(ey, h, sizeof(float) * n, cudaMemcpyHostToDevice);
  cudaMemset(hz, 0, sizeof(float) * n);
  cudaMemset(out, 0, sizeof(float) * n);
  cudaMemset(out2, 0, sizeof(float) * n);
  run(nx, ny, ex, ey, hz, out, out2);
  cudaDeviceSynchronize();
  printf("%dx%d: %llx %llx %llx\n", nx, ny, hash(hz, n), hash(out, n), hash(out2, n));
  cudaFree(ex); cudaFree(ey); cudaFree(hz); cudaFree(out); cudaFree(out2);
  free(h);
}

int main() {
  one(256, 192);
  one(200, 150);
  return 0;
}
