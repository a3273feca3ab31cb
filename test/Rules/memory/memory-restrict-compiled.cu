// memory-restrict compiles the kernel with NVRTC as it is and with the
// __restrict__ qualifiers it would add, and drops the finding when the
// machine code (code sections, register counts) is the same: the compiler
// already knew what the qualifiers tell it. HeCBench: 7 of the 45 fixes the
// rule applied changed no instruction.
// REQUIRES: nvrtc
// The kernels are loop-free: RequireLoop is off (memory-restrict-loop.cu).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  memory-restrict.RequireLoop: false\n' > %t/on.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/on.yaml --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPARED --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// With the comparison off, the static conditions alone decide.
// RUN: printf 'CheckOptions:\n  memory-restrict.CompareCode: false\n  memory-restrict.RequireLoop: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=COMPARED,STATIC --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
#include <cuda_runtime.h>

struct Out {
  float *v;
};

// A store through a struct's pointer that the compiler cannot tell from
// 'a': reloads 'a[threadIdx.x]' after it unless 'a' is __restrict__.
__global__ void reload(const float *a, float *__restrict__ s, Out o) {
  o.v[threadIdx.x] = a[threadIdx.x];
  s[threadIdx.x] = a[threadIdx.x] * 2.0f;
}
// COMPARED: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameter 'a' is not __restrict__{{.*}} [memory-restrict]

// The store through the struct comes after every load: nothing to reload,
// and the qualifier changes no instruction (NVRTC's code is the same with
// and without it). Its launch passes parameters, so no
// fix could be proven either; the finding is dropped all the same.
__global__ void store_last(const float *a, float *__restrict__ s, Out o) {
  s[threadIdx.x] = a[threadIdx.x];
  o.v[threadIdx.x] = a[threadIdx.x + 1];
}
// STATIC: t.cu:[[@LINE-4]]:{{[0-9]+}}: warning: pointer parameter 'a' is not __restrict__{{.*}} [memory-restrict]

// Two pointers without the qualifier, a store and loads after it: the loads
// of 'in' cannot move above the store to 'out' unless both are restrict.
// Launched with pointers the tool cannot prove distinct: reported without a
// fix, because the qualifiers do change the code.
__global__ void shift(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) {
    out[i] = in[i] + in[i + 1];
    out[i + n] = in[i] * in[i + 1];
  }
}
// COMPARED: t.cu:[[@LINE-7]]:{{[0-9]+}}: warning: pointer parameters 'in', 'out' are not __restrict__{{.*}} [memory-restrict]
// COMPARED: note: {{.*}}no-aliasing is not proven

void run(float *buf, const float *a, float *s, Out o, int n) {
  reload<<<1, 32>>>(a, s, o);
  store_last<<<1, 32>>>(a, s, o);
  shift<<<(n + 255) / 256, 256>>>(buf, buf + 1, n);
}
