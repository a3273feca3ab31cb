// launch-small-block: blocks so small that the per-SM block limit caps
// occupancy. Where the kernel knows its threads only by their global index
// (and the grid-stride step), blocks fold into 256-thread ones with the same
// threads: bitwise, checked on the CPU emulation below.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-block' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-block' --fix %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-block' --format=json %s | FileCheck --check-prefix=JSON %s
// JSON: "exactness": "bitwise"
// The rewritten file compiles (nvcc, NVRTC) and computes bitwise the same
// arrays as the original on the CPU emulation (utils/bench/cuemu), for
// sizes whose grid folds and sizes whose grid does not.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: n=4096: {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}}
// RUNS: n=3001: {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}} {{[0-9a-f]+}}
#include <cstdio>
#include <cstdlib>
#include <cmath>

// Grid-stride loop: the step is blockDim.x * gridDim.x, the same after
// folding.
__global__ void axpy(float a, const float *__restrict__ x,
                     float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// A device function that only computes: followed, it reads no index.
__device__ float cnd(float d) {
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  return k * (0.31938153f + k * -0.356563782f);
}
__global__ void price(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = s[i] * cnd(s[i]) - cnd(-s[i]);
}

// Seen in third-party code (a fractal flame renderer): the index written
// blockDim.x * blockIdx.x + threadIdx.x, a struct of parameters by value
// handed to a helper by reference, and a dim3 grid and block from macros.
#define NUM_THREADS 262144
#define THREADS_PER_BLOCK 32
struct Params {
  int split[4];
};
__device__ int pick(int idx, const Params &p) {
  int f = 0;
  idx &= ~31;
  for (int k = 0; k < 4; k++)
    if (p.split[k] <= idx)
      f = k;
  return f;
}
__global__ void iterate(float *pts, const Params p) {
  int idx = blockDim.x * blockIdx.x + threadIdx.x;
  int f = pick(idx, p);
  pts[idx] = pts[idx] * 0.5f + (float)f;
}

// Reads threadIdx.x on its own: the block's first thread is special.
__global__ void first_of_block(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.x == 0)
    out[i] = s[i];
}

// Shared memory: the block's threads cooperate.
__global__ void staged(const float *s, float *out, int n) {
  __shared__ float tile[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tile[threadIdx.x] = s[i];
  __syncthreads();
  if (i < n)
    out[i] = tile[threadIdx.x] * 2.0f;
}

// Atomics: left alone.
__global__ void count_positive(const float *s, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && s[i] > 0.0f)
    atomicAdd(count, 1);
}

// Launch bounds below 256 threads: a block of 256 could not be launched.
__global__ void __launch_bounds__(64) bounded(const float *s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = s[i] + 1.0f;
}

// Shared memory that already limits an SM to 28 blocks (8 KiB each, plus
// the 1 KiB reserved per block, of 228 KiB): that caps occupancy, not the
// limit of 32 blocks per SM. Seen in third-party code (a bit-reversal
// permutation with an 8 KiB tile per 32-thread block), static and dynamic.
__global__ void tiled(const float *s, float *out, int n) {
  __shared__ float tile[32][64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x][0] = i < n ? s[i] : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = tile[threadIdx.x][0] + 1.0f;
}
__global__ void tiled_dynamic(const float *s, float *out, int n) {
  extern __shared__ float buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x * 64] = i < n ? s[i] : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = buf[threadIdx.x * 64] + 2.0f;
}

void run(const float *d_s, float *d_a, float *d_b, float *d_c, int *d_n,
         int n) {
  axpy<<<8192, 32>>>(2.0f, d_s, d_a, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads: with at most 32 resident blocks per SM, an SM holds only 1024 of its 2048 threads{{.*}} [launch-small-block]
  // CHECK-FIXES: axpy<<<1024, 256>>>(2.0f, d_s, d_a, n);
  // Negative: 64 blocks of one warp are resident at once on 132 SMs (the
  // limit of 32 blocks per SM never binds; 8 blocks of 256 would leave 124
  // SMs idle), and a single block is setup work.
  axpy<<<64, 32>>>(2.0f, d_s, d_a, n);
  axpy<<<1, 16>>>(2.0f, d_s, d_a, n);
  // CHECK-FIXES: axpy<<<64, 32>>>(2.0f, d_s, d_a, n);
  dim3 grid((n + 31) / 32), block(32);
  price<<<grid, block>>>(d_s, d_b, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-FIXES: price<<<dim3((grid).x % 8 == 0 ? (grid).x / 8 : (grid).x, (grid).y, (grid).z), dim3((grid).x % 8 == 0 ? (block).x * 8 : (block).x, (block).y, (block).z)>>>(d_s, d_b, n);
  price<<<(n + 15) / 16, 16>>>(d_s, d_c, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 16 threads{{.*}} [launch-small-block]
  // CHECK-FIXES: price<<<(((n + 15) / 16) % 16 == 0 ? ((n + 15) / 16) / 16 : ((n + 15) / 16)), (((n + 15) / 16) % 16 == 0 ? (16) * 16 : (16))>>>(d_s, d_c, n);
  first_of_block<<<(n + 31) / 32, 32>>>(d_s, d_c, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-MESSAGES: note: no fix: the kernel could tell larger blocks apart: it reads 'threadIdx.x' other than in `blockIdx.x * blockDim.x + threadIdx.x` or `blockDim.x * gridDim.x`
  staged<<<(n + 31) / 32, 32>>>(d_s, d_c, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-MESSAGES: note: no fix: the kernel could tell larger blocks apart: it uses shared memory (shared by the threads of a block)
  count_positive<<<(n + 31) / 32, 32>>>(d_s, d_n, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-MESSAGES: note: no fix: the kernel could tell larger blocks apart: it calls 'atomicAdd'
  axpy<<<8193, 32>>>(2.0f, d_s, d_a, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-MESSAGES: note: no fix: the grid's 8193 blocks are not a multiple of 8, so blocks of 256 threads would not make the same threads
  bounded<<<(n + 31) / 32, 32>>>(d_s, d_c, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-MESSAGES: note: no fix: the kernel's __launch_bounds__ allows fewer than 256 threads per block
  // A floating grid (converted as the launch converts it).
  price<<<ceil(n / 32.0), 32>>>(d_s, d_b, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 32 threads{{.*}} [launch-small-block]
  // CHECK-FIXES: price<<<(((unsigned)(ceil(n / 32.0))) % 8 == 0 ? ((unsigned)(ceil(n / 32.0))) / 8 : ((unsigned)(ceil(n / 32.0)))), (((unsigned)(ceil(n / 32.0))) % 8 == 0 ? (32) * 8 : (32))>>>(d_s, d_b, n);
  {
    Params p = {{0, 512, 1024, 1536}};
    dim3 fgrid(NUM_THREADS / THREADS_PER_BLOCK, 1, 1);
    dim3 fblock(THREADS_PER_BLOCK, 1, 1);
    if (n >= NUM_THREADS)
      iterate<<<fgrid, fblock>>>(d_a, p);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:7: warning: blocks of 32 threads{{.*}} [launch-small-block]
    // CHECK-FIXES: iterate<<<dim3((fgrid).x % 8 == 0 ? (fgrid).x / 8 : (fgrid).x, (fgrid).y, (fgrid).z), dim3((fgrid).x % 8 == 0 ? (fblock).x * 8 : (fblock).x, (fblock).y, (fblock).z)>>>(d_a, p);
  }
  // Negative: 64 threads and more.
  axpy<<<4096, 64>>>(2.0f, d_s, d_a, n);
  axpy<<<4096, dim3(16, 8)>>>(2.0f, d_s, d_a, n);
  // Negative, seen in third-party code (Winograd convolutions with blocks
  // of 36 threads): a block of 33 to 63 threads takes 2 warps, and 32 of
  // them fill the SM's 64 warps; the idle lanes are launch-partial-warp's.
  axpy<<<8192, 36>>>(2.0f, d_s, d_a, n);
  // CHECK-FIXES: axpy<<<8192, 36>>>(2.0f, d_s, d_a, n);
  // Positive: 4000 blocks of 16 are resident at once, but half the lanes
  // of every warp idle (launch-partial-warp leaves blocks under a warp to
  // this rule). Negative: 8 threads in all only pay the launch's latency.
  axpy<<<4000, 16>>>(2.0f, d_s, d_a, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: blocks of 16 threads{{.*}} [launch-small-block]
  // CHECK-FIXES: axpy<<<250, 256>>>(2.0f, d_s, d_a, n);
  axpy<<<4, 2>>>(2.0f, d_s, d_a, n);
  // CHECK-FIXES: axpy<<<4, 2>>>(2.0f, d_s, d_a, n);
  // Negative: shared memory is the limit (8 KiB per block).
  tiled<<<(n + 31) / 32, 32>>>(d_s, d_c, n);
  tiled_dynamic<<<(n + 31) / 32, 32, 32 * 64 * sizeof(float)>>>(d_s, d_c, n);
}

static unsigned long long hash(const void *d, int n, size_t elem) {
  size_t bytes = (size_t)n * elem;
  unsigned char *h = (unsigned char *)malloc(bytes);
  cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  unsigned long long x = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++)
    x = (x ^ h[i]) * 1099511628211ull;
  free(h);
  return x;
}

int main() {
  for (int n : {4096, 3001}) {
    float *h = (float *)malloc(sizeof(float) * n);
    float *d_s, *d_a, *d_b, *d_c;
    int *d_n;
    cudaMalloc(&d_s, sizeof(float) * n);
    cudaMalloc(&d_a, sizeof(float) * n);
    cudaMalloc(&d_b, sizeof(float) * n);
    cudaMalloc(&d_c, sizeof(float) * n);
    cudaMalloc(&d_n, sizeof(int));
    for (int i = 0; i < n; i++)
      h[i] = (float)((i * 37) % 101) / 25.0f - 2.0f;
    cudaMemcpy(d_s, h, sizeof(float) * n, cudaMemcpyHostToDevice);
    cudaMemset(d_a, 0, sizeof(float) * n);
    cudaMemset(d_b, 0, sizeof(float) * n);
    cudaMemset(d_c, 0, sizeof(float) * n);
    cudaMemset(d_n, 0, sizeof(int));
    run(d_s, d_a, d_b, d_c, d_n, n);
    cudaDeviceSynchronize();
    printf("n=%d: %llx %llx %llx %llx\n", n, hash(d_a, n, 4), hash(d_b, n, 4),
           hash(d_c, n, 4), hash(d_n, 1, 4));
    cudaFree(d_s);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaFree(d_n);
    free(h);
  }
  return 0;
}
