// memory-ldg: read-only loads that could use the read-only data path (__ldg): a finding without a fix when no-aliasing is not proven.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-ldg' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: printf 'CheckOptions:\n  memory-ldg.RequireLoop: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-ldg' %t/t.cu 2>&1 | FileCheck --check-prefix=OFF %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-ldg' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// The kernels below walk four elements per thread: the thread's loop stores
// through one pointer while it loads through another (memory-restrict-loop.cu
// has the shapes; a grid-stride loop, whose iterations are other threads'
// work, does not count). Loop-free, the read-only path alone changes no kernel's time:
// no finding (reported with RequireLoop off).
__global__ void add_once(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
// OFF: t.cu:[[@LINE-2]]:12: warning: 1 load through read-only 'a' could use the read-only data path (__ldg) [memory-ldg]

// No-aliasing is proven: memory-restrict is the better fix; no finding here.
__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    y[i] = a * x[i] + y[i];
}

// Not proven: the same buffer is passed twice at a launch.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    c[i] = a[i] + b[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:12: warning: 1 load through read-only 'a' could use the read-only data path (__ldg): the loop at line [[@LINE-3]] stores through 'c' and loads through 'a' [memory-ldg]
// CHECK-MESSAGES: note: no fix: __ldg is only correct if no other pointer writes this data during the kernel, which is not proven
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:19: warning: 1 load through read-only 'b' could use the read-only data path (__ldg): the loop at line [[@LINE-5]] stores through 'c' and loads through 'b' [memory-ldg]
// CHECK-FIXES: c[i] = a[i] + b[i];
__global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
  p[threadIdx.x] *= q[0];
}

// Negative: the only pointer written through has __restrict__, so the
// compiler knows 'a' and 'b' are read-only here and takes the read-only
// path by itself (no aliasing is proven from the launches: same argument).
__global__ void add_restrict_out(const float *a, const float *b,
                                 float *__restrict__ c, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    c[i] = a[i] + b[i];
}

// Negative: an in-place update. A launch passes the same buffer for 'u'
// (read) and for 'sum' (written), directly or through a host function, so
// the data 'u' reads is written during the kernel: the read-only path is
// wrong for it. 'du' is read-only at every launch: still reported.
__global__ void add_in_place(const float *u, const float *du, int n,
                             float *sum) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    sum[i] = u[i] + du[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:21: warning: 1 load through read-only 'du' could use the read-only data path (__ldg): the loop at line [[@LINE-3]] stores through 'sum' and loads through 'du' [memory-ldg]
// CHECK-MESSAGES: note: no fix: __ldg is only correct if no other pointer writes this data during the kernel, which is not proven

// Negative: the same, launched directly with the same buffer twice, after
// a launch whose arguments the tool cannot tell apart (every launch is
// looked at, not only the first that proves nothing).
__global__ void axpy_in_place(const float *u, int n, float *out) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    out[i] = 2.0f * u[i] + out[i];
}
static float *pick(float *a, float *b, int c) { return c ? a : b; }
// Negative: the same element of an array of buffers passed twice.
__global__ void scale_in_place(const float *u, int n, float *out) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    out[i] = 0.5f * u[i];
}

static void add_to(const float *u, const float *du, int n, float *sum) {
  add_in_place<<<(n + 255) / 256, 256>>>(u, du, n, sum);
}

int main() {
  int n = 1 << 20;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  dim3 block(128);
  add<<<n / 128, block>>>(x, x, z, n);
  scale<<<1, 32>>>(z, x);
  add_restrict_out<<<n / 128, block>>>(x, x, z, n);
  add_to(y, x, n, y);
  axpy_in_place<<<n / 128, block>>>(pick(x, z, n), n, z);
  axpy_in_place<<<n / 128, block>>>(y, n, y);
  float *bufs[2] = {x, y};
  scale_in_place<<<n / 128, block>>>(bufs[1], n, bufs[1]);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
