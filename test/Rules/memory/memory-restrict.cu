// memory-restrict: kernel pointer parameters get __restrict__ when every launch passes separate allocations.
// The kernels here are loop-free or loop only to show an aliasing case:
// RequireLoop is off so that every condition of the proof shows
// (memory-restrict-loop.cu tests the loop condition).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  memory-restrict.RequireLoop: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// Proven: every launch passes separate cudaMalloc allocations.
__global__ void saxpy(int n, float a, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void saxpy(int n, float a, float *__restrict__ x, float *__restrict__ y) {

// Not proven: the same buffer is passed twice at a launch.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b', 'c' are not __restrict__{{.*}} [memory-restrict]
// CHECK-MESSAGES: note: no fix: no-aliasing is not proven: {{.*}}'x'
// CHECK-FIXES: __global__ void add(const float *a, const float *b, float *c, int n) {

// Already restrict: no finding.
__global__ void scale(float *__restrict__ p, const float *__restrict__ q) {
  p[threadIdx.x] *= q[0];
}
// CHECK-FIXES: __global__ void scale(float *__restrict__ p, const float *__restrict__ q) {

// Each written pointer has __restrict__, or only one pointer lacks it: no
// pair can alias already and the inputs are known read-only (the read-only
// path), so the qualifier would change no instruction: no finding.
__global__ void convert(const float *__restrict__ in, unsigned char *out,
                        float *__restrict__ scratch, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    scratch[i] = in[i] * 2.0f;
    out[i] = (unsigned char)in[i];
  }
}
__global__ void gather(float *__restrict__ out, const float *in,
                       const float *w, int n) {
  for (int k = 0; k < n; ++k)
    out[threadIdx.x] += in[k] * w[k];
}
// One pointer without it, the others with it: every pair already has a
// restrict member, and the qualifier changes no instruction even around an
// atomic or a reload after a store (nvcc 13, sm_90: identical cubins). No
// finding.
__global__ void norm(const float *__restrict__ x, float *l2) {
  atomicAdd(l2, x[threadIdx.x] * x[threadIdx.x]);
}
// ... unless the kernel also writes memory it does not reach through its
// parameters: 'b' might point into 'g', so b[i + 1] is loaded again after
// the store to g (a global variable).
__device__ float g[1024];
__global__ void to_global(const float *__restrict__ a, float *b, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    b[i] = a[i];
    g[i & 1023] = b[i + 1] + b[i + 2];
    b[i + 3] = b[i + 1] * 2.0f;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:{{[0-9]+}}: warning: pointer parameter 'b' is not __restrict__{{.*}} [memory-restrict]
// ... nor where an atomic goes through another pointer (nvcc then keeps
// the loads of the one without it coherent: LDG.E, not LDG.E.CONSTANT),
// or a local pointer is copied from memory (a struct's field).
__global__ void atomic_other(const float *m, float *__restrict__ o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&o[i & 15], m[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameter 'm' is not __restrict__{{.*}} [memory-restrict]
struct Bufs {
  float *x;
};
__global__ void field_copy(Bufs s, const float *m, float *__restrict__ o) {
  float *x = s.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = m[0];
  x[i] = a;
  o[i] = a + m[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-7]]:{{[0-9]+}}: warning: pointer parameter 'm' is not __restrict__{{.*}} [memory-restrict]
// A kernel that only stores: no load to reorder or keep. No finding.
__global__ void init(int *step, unsigned *count) {
  *step = -1;
  *count = 0;
}
__global__ void fill(float *a, float *b, float x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = x;
  b[i] = x;
}
// Reported: a write through a pointer that is not a parameter, two
// pointers without it where one is written (the sum is stored and reloaded
// on every iteration).
struct Out {
  float *v;
};
__global__ void through_struct(const float *a, float *__restrict__ s, Out o) {
  o.v[threadIdx.x] = a[threadIdx.x];
  s[threadIdx.x] = a[threadIdx.x] * 2.0f;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameter 'a' is not __restrict__{{.*}} [memory-restrict]
__global__ void accumulate(const float *__restrict__ w, float *a,
                           const float *b, int n) {
  for (int k = 0; k < n; ++k)
    a[threadIdx.x] += b[k] * w[k];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'a', 'b' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void accumulate(const float *__restrict__ w, float *__restrict__ a,
// CHECK-FIXES-NEXT: const float *__restrict__ b, int n) {

// Seen in third-party code (a phase-field solver): parameters declared as
// arrays of rows. C++ has no `phi[__restrict__]`; they become the pointers
// they decay to.
#define NY 8
#define NZ 4
__global__ void force(double phi[][NY][NZ], double fx[][NY][NZ], int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    fx[i][1][2] = phi[i][2][1] - phi[i][0][3];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'phi', 'fx' are not __restrict__{{.*}} [memory-restrict]
// CHECK-FIXES: __global__ void force(double (*__restrict__ phi)[NY][NZ], double (*__restrict__ fx)[NY][NZ], int n) {

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
  float *u = nullptr, *v = nullptr, *w = nullptr;
  unsigned char *c = nullptr;
  cudaMalloc(&u, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&c, n);
  convert<<<n / 256, 256>>>(u, c, v, n);
  norm<<<1, 256>>>(u, w);
  to_global<<<1, 256>>>(u, w, n);
  int *st = nullptr;
  unsigned *cnt = nullptr;
  cudaMalloc(&st, sizeof(int));
  cudaMalloc(&cnt, sizeof(unsigned));
  init<<<1, 1>>>(st, cnt);
  atomic_other<<<1, 256>>>(u, v);
  field_copy<<<1, 256>>>(Bufs{w}, u, v);
  fill<<<1, 256>>>(u, v, 1.0f);
  gather<<<1, 256>>>(u, v, w, n);
  accumulate<<<1, 256>>>(u, v, w, n);
  through_struct<<<1, 256>>>(u, v, Out{w});
  double(*p3)[NY][NZ] = nullptr, (*q3)[NY][NZ] = nullptr;
  cudaMalloc(&p3, 64 * sizeof(*p3));
  cudaMalloc(&q3, 64 * sizeof(*q3));
  force<<<1, 64>>>(p3, q3, 64);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  return 0;
}
