// unrolling-param-bound compiles the kernel with NVRTC as it is and with
// its fix (the pragma, or the loop specialised for the launches' value),
// and drops the finding when the machine code (code sections, register
// counts) is the same: the fix would gain nothing.
// REQUIRES: nvrtc
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-param-bound' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPARED --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// With the comparison off, the static conditions alone decide.
// RUN: printf 'CheckOptions:\n  unrolling-param-bound.CompareCode: false\n' > %t/off.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/off.yaml --rules='-*,unrolling-param-bound' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=COMPARED,STATIC --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
#include <cuda_runtime.h>

// Heavy calls in the body: nvcc keeps the loop rolled, the pragma unrolls
// it 4 times.
__global__ void heavy(const float *x, float *y, int n) {
  float acc = 0.0f;
  for (int j = 0; j < n; ++j)
    acc += powf(x[j], 1.5f) * sinf(x[j + threadIdx.x]);
  y[threadIdx.x] = acc;
}
// COMPARED: t.cu:[[@LINE-4]]:3: warning: small loop bounded by parameter 'n' is not unrolled

// System-wide atomics (HeCBench's atomicSystemWide): nvcc's code is the
// same with the pragma.
__global__ void atomics(int *a, const int loops) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  for (int i = 0; i < loops; i++) {
    atomicAdd_system(&a[0], 10);
    atomicExch_system(&a[1], tid);
    atomicMax_system(&a[2], tid);
    atomicMin_system(&a[3], tid);
    atomicInc_system((unsigned int *)&a[4], 17);
    atomicDec_system((unsigned int *)&a[5], 137);
    atomicCAS_system(&a[6], tid - 1, tid);
    atomicAnd_system(&a[7], 2 * tid + 7);
  }
}
// STATIC: t.cu:[[@LINE-11]]:3: warning: small loop bounded by parameter 'loops' is not unrolled

// An int counter from -1 against an unsigned bound: -1 converts to a huge
// unsigned, the loop never runs, and nvcc drops it; the copy specialised
// for r = 3 changes no instruction.
__global__ void dead(const float *x, float *y, unsigned r) {
  float s = 0.0f;
  for (int k = 0; k < 2; k++) {
    for (int d = -1; d < r; ++d)
      s += x[d + 1 + k];
  }
  y[threadIdx.x] = s;
}
// STATIC: t.cu:[[@LINE-5]]:5: warning: small loop bounded by parameter 'r' is compiled for any trip count, although every launch passes r = 3

void run(const float *x, float *y, int *a, int n) {
  heavy<<<1, 32>>>(x, y, n);
  atomics<<<1, 32>>>(a, n);
  dead<<<1, 32>>>(x, y, 3);
}
