// launch-fuse-elementwise: element-wise kernels launched one after the
// other with the same one-dimensional grid and block become one launch of
// a kernel that runs each body (a __noinline__ device function) in turn.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-fuse-elementwise' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the fused launches are single launches, and the fused
// kernels are now calls of their bodies (the refused chains of 'scale' and
// 'shift' are no longer element-wise kernels of their own; 'bump_x' and
// 'take_x' were not fused and are reported again).
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-fuse-elementwise' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: element-wise kernels 'bump_x', 'take_x' are launched
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-fuse-elementwise' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "bitwise"
// With the other rules: the kernel becomes the device function where it
// stands (only its head changes), so a kernel fix of the same round inside
// the body applies with the fusion (verified on the kernel as written, it
// runs as verified in the fused launch).
// RUN: cp %s %t/all.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-fuse-elementwise,algebraic-float-literal' --fix %t/all.cu 2>&1 | FileCheck --check-prefix=ROUNDS --implicit-check-not=overlaps --implicit-check-not='round 2' %s
// ROUNDS: applied 4 fixes in 1 file
// RUN: grep -A3 'cudal1_body_step2(float \*a' %t/all.cu | FileCheck --check-prefix=ROUNDS-BODY %s
// ROUNDS-BODY: a[i] >= 0.300000012f ? expf(-a[i] * a[i] * 0.5f) : 0.0f
// The rewritten file compiles (nvcc, NVRTC) and computes bitwise the same
// arrays as the original on the CPU emulation (utils/bench/cuemu).
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: chain: a {{[0-9a-f]+}}, b {{[0-9a-f]+}}, out {{[0-9a-f]+}}
// RUNS: in_place: {{[0-9a-f]+}}
// RUNS: grid_stride: {{[0-9a-f]+}} {{[0-9a-f]+}}
// RUNS: done
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s\n", cudaGetErrorString(e));               \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CUDA_CHECK_KERNEL() CUDA_CHECK(cudaGetLastError())
#define DATA_TYPE float

// A chain of three with intermediate arrays, double math in float code.
__global__ void step1(float *x, float *y, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = sinf(x[i]) * cosf(y[i]) + 1.0f;
}
__global__ void step2(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] > 0.3 ? expf(-a[i] * a[i] * 0.5f) : 0.0f;
}
__global__ void step3(const DATA_TYPE *__restrict__ x, float *b, float *a,
                      float *out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  out[i] = a[i] / (1.0f + b[i]) + x[i] * x[i];
}

void chain(float *d_x, float *d_y, float *d_a, float *d_b, float *d_out, int n) {
  dim3 block(256);
  dim3 grid((n + 255) / 256);
  step1<<<grid, block>>>(d_x, d_y, d_a, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'step1', 'step2', 'step3' are launched one after the other with the same grid and block: each launch reads back from DRAM what the one before wrote; one launch can run each body in turn and read it from cache [launch-fuse-elementwise]
  CUDA_CHECK_KERNEL();
  step2<<<grid, block>>>(d_a, d_b, n);
  CUDA_CHECK_KERNEL();
  step3<<<grid, block>>>(d_x, d_b, d_a, d_out, n);
  CUDA_CHECK(cudaDeviceSynchronize());
}
// CHECK-FIXES:      // cuda-l1 launch-fuse-elementwise: the body of 'step1', also run by a fused launch
// CHECK-FIXES-NEXT: static __device__ __noinline__ void cudal1_body_step1(float *x, float *y, float *a, int n) {
// CHECK-FIXES-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (i < n)
// CHECK-FIXES-NEXT:     a[i] = sinf(x[i]) * cosf(y[i]) + 1.0f;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __global__ void step1(float *x, float *y, float *a, int n) {
// CHECK-FIXES-NEXT:   cudal1_body_step1(x, y, a, n);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES:      static __device__ __noinline__ void cudal1_body_step3(const DATA_TYPE *__restrict__ x, float *b, float *a,
// CHECK-FIXES:      __global__ void step3(const DATA_TYPE *__restrict__ x, float *b, float *a,
// CHECK-FIXES-NEXT:                       float *out, int n) {
// CHECK-FIXES-NEXT:   cudal1_body_step3(x, b, a, out, n);
// CHECK-FIXES:      // cuda-l1 launch-fuse-elementwise: 'step1', 'step2', 'step3' in one launch
// CHECK-FIXES-NEXT: __global__ void cudal1_fused_step1_step2_step3(float *cudal1_0_0, float *cudal1_0_1, float *cudal1_0_2, int cudal1_0_3, float *cudal1_1_0, float *cudal1_1_1, int cudal1_1_2, const DATA_TYPE *cudal1_2_0, float *cudal1_2_1, float *cudal1_2_2, float *cudal1_2_3, int cudal1_2_4) {
// CHECK-FIXES-NEXT:   cudal1_body_step1(cudal1_0_0, cudal1_0_1, cudal1_0_2, cudal1_0_3);
// CHECK-FIXES-NEXT:   cudal1_body_step2(cudal1_1_0, cudal1_1_1, cudal1_1_2);
// CHECK-FIXES-NEXT:   cudal1_body_step3(cudal1_2_0, cudal1_2_1, cudal1_2_2, cudal1_2_3, cudal1_2_4);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES:      void chain(float *d_x, float *d_y, float *d_a, float *d_b, float *d_out, int n) {
// CHECK-FIXES-NEXT:   dim3 block(256);
// CHECK-FIXES-NEXT:   dim3 grid((n + 255) / 256);
// CHECK-FIXES-NEXT:   cudal1_fused_step1_step2_step3<<<grid, block>>>(d_x, d_y, d_a, n, d_a, d_b, n, d_x, d_b, d_a, d_out, n);
// CHECK-FIXES-NEXT:   CUDA_CHECK_KERNEL();
// CHECK-FIXES-NEXT:   CUDA_CHECK_KERNEL();
// CHECK-FIXES-NEXT:   CUDA_CHECK(cudaDeviceSynchronize());

// In place: both kernels update the same array.
__global__ void scale(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= s;
}
__global__ void shift(float *v, float d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += d;
}
void in_place(float *d_v, int n) {
  scale<<<(n + 127) / 128, 128>>>(d_v, 3.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'scale', 'shift' are launched
  shift<<<(n + 127) / 128, 128>>>(d_v, 0.5f, n);
}
// CHECK-FIXES: cudal1_fused_scale_shift<<<(n + 127) / 128, 128>>>(d_v, 3.0f, n, d_v, 0.5f, n);

// Grid-stride loops: each element has one thread, the same in both.
__global__ void gs_square(float *v, float *w, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    w[i] = v[i] * v[i];
}
__global__ void gs_add(float *w, float *v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float t = w[i];
    v[i] = t + 1.0f;
  }
}
void grid_stride(float *d_v, float *d_w, int n) {
  gs_square<<<4, 256>>>(d_v, d_w, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'gs_square', 'gs_add' are launched
  gs_add<<<4, 256>>>(d_w, d_v, n);
}
// CHECK-FIXES: cudal1_fused_gs_square_gs_add<<<4, 256>>>(d_v, d_w, n, d_w, d_v, n);

// --- reported without a fix ---------------------------------------------------

// An offset pointer: shift at element i reads what scale writes at i + 1.
void offset(float *d_v, int n) {
  scale<<<(n + 127) / 128, 128>>>(d_v, 2.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'scale', 'shift' are launched
  // CHECK-MESSAGES: note: no fix: 'd_v' and 'd_v + 1' may point into one allocation at different offsets
  shift<<<(n + 127) / 128, 128>>>(d_v + 1, 1.0f, n - 1);
}
// A two-dimensional block: several threads share an element.
void two_d(float *d_v, int n) {
  dim3 b(32, 4);
  scale<<<(n + 31) / 32, b>>>(d_v, 2.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'scale', 'shift' are launched
  // CHECK-MESSAGES: note: no fix: the grid or the block is not written as one-dimensional
  shift<<<(n + 31) / 32, b>>>(d_v, 1.0f, n);
}
// Two pointers that are parameters of an uncalled function.
void unknown(float *p, float *q, int n) {
  scale<<<(n + 127) / 128, 128>>>(p, 2.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'scale', 'shift' are launched
  // CHECK-MESSAGES: note: no fix: 'p' and 'q' may point into one allocation at different offsets
  shift<<<(n + 127) / 128, 128>>>(q, 1.0f, n);
}

// A block made two-dimensional after its declaration.
void two_d_later(float *d_v, int n) {
  dim3 b(128);
  b.y = 2;
  scale<<<(n + 127) / 128, b>>>(d_v, 2.0f, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'scale', 'shift' are launched
  // CHECK-MESSAGES: note: no fix: the grid or the block is not written as one-dimensional
  shift<<<(n + 127) / 128, b>>>(d_v, 1.0f, n);
}
// A member of an element written: still a write of v's element i, so the
// offset pointer of the second launch is refused.
__global__ void bump_x(float2 *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i].x = v[i].x + 1.0f;
}
__global__ void take_x(float2 *w, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = w[i].x;
}
void members(float2 *d_v, float *d_o, int n) {
  bump_x<<<(n + 127) / 128, 128>>>(d_v, n);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: element-wise kernels 'bump_x', 'take_x' are launched
  // CHECK-MESSAGES: note: no fix: 'd_v' and 'd_v + 1' may point into one allocation at different offsets
  take_x<<<(n + 127) / 128, 128>>>(d_v + 1, d_o, n - 1);
}

// --- silent -------------------------------------------------------------------

// A global array other threads write: not element-wise.
__device__ float g_stage[4096];
__global__ void to_stage(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    g_stage[i] = a[i];
}
__global__ void from_stage(float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    o[i] = g_stage[i + 1];
}
// The grid changes between the launches (HeCBench ddbp's pattern): the
// same expression, another value.
void regrid(float *d_v, float *d_w, int n) {
  dim3 grid(1), block(128);
  grid.x = (n + 127) / 128;
  scale<<<grid, block>>>(d_v, 2.0f, n);
  grid.x = 1;
  shift<<<grid, block>>>(d_w, 1.0f, n);
}
// A statement between the launches that changes an argument of the second.
int g_count = 8;
void staged(float *d_a, float *d_o, int n) {
  to_stage<<<(n + 127) / 128, 128>>>(d_a, g_count);
  g_count = n;
  scale<<<(n + 127) / 128, 128>>>(d_o, 2.0f, g_count);
  from_stage<<<(n + 127) / 128, 128>>>(d_o, n);
}

// A neighbour read: not element-wise.
__global__ void smooth(float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}
// Reads threadIdx.y: not one thread per element.
__global__ void row0_only(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.y == 0)
    v[i] += 1.0f;
}
void uses_y(float *d_v, int n) {
  row0_only<<<(n + 127) / 128, 128>>>(d_v, n);
  scale<<<(n + 127) / 128, 128>>>(d_v, 2.0f, n);
}
// Different grids; a statement between the launches that is not a check.
void not_a_chain(float *d_v, float *d_w, int n) {
  scale<<<(n + 127) / 128, 128>>>(d_v, 2.0f, n);
  shift<<<(n + 255) / 256, 256>>>(d_v, 1.0f, n);
  smooth<<<(n + 255) / 256, 256>>>(d_v, d_w, n);
  shift<<<(n + 255) / 256, 256>>>(d_w, 1.0f, n);
  cudaMemset(d_v, 0, sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(d_w, 2.0f, n);
}

// --- the driver -------------------------------------------------------------------

unsigned long long hash(const float *d, int n) {
  float *h = (float *)malloc(sizeof(float) * n);
  CUDA_CHECK(cudaMemcpy(h, d, sizeof(float) * n, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ULL;
  const unsigned char *c = (const unsigned char *)h;
  for (size_t k = 0; k < sizeof(float) * (size_t)n; k++)
    x = (x ^ c[k]) * 1099511628211ULL;
  free(h);
  return x;
}

int main() {
  const int n = 3001;
  float *h = (float *)malloc(sizeof(float) * n);
  float *d_x, *d_y, *d_a, *d_b, *d_out;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_a, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_b, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * n));
  for (int i = 0; i < n; i++)
    h[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  CUDA_CHECK(cudaMemcpy(d_x, h, sizeof(float) * n, cudaMemcpyHostToDevice));
  for (int i = 0; i < n; i++)
    h[i] = (float)((i * 53) % 97) / 40.0f;
  CUDA_CHECK(cudaMemcpy(d_y, h, sizeof(float) * n, cudaMemcpyHostToDevice));
  chain(d_x, d_y, d_a, d_b, d_out, n);
  printf("chain: a %llx, b %llx, out %llx\n", hash(d_a, n), hash(d_b, n),
         hash(d_out, n));
  in_place(d_y, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("in_place: %llx\n", hash(d_y, n));
  grid_stride(d_y, d_b, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("grid_stride: %llx %llx\n", hash(d_y, n), hash(d_b, n));
  printf("done\n");
  return 0;
}
