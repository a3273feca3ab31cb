// memory-ldg (finding only: the data may be written through another
// pointer) is dropped for a kernel whose parameters memory-restrict reports:
// that finding names the same cause and the same read-only path, with the
// same reason for having no fix. Alone, memory-ldg still reports; for a
// kernel that memory-restrict does not report, both runs report it.
// RUN: %cuda-l1-rewrite --rules='-*,memory-ldg,memory-restrict' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH --implicit-check-not='{{warning}}:'
// RUN: %cuda-l1-rewrite --rules='-*,memory-ldg' %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALONE --implicit-check-not='{{warning}}:'
#include <cuda_runtime.h>

// No launch in this file: no-aliasing is not proven.
__global__ void axpy(const float *x, float *y, float a, int n) {
  // BOTH: subsumed-ldg.cu:[[@LINE-1]]:35: warning: pointer parameters 'x', 'y' are not __restrict__{{.*}} [memory-restrict]
  // BOTH: note: no fix: no-aliasing is not proven: no launch of the kernel in this file
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4, e = i + 4; i < n && i < e; i++)
    y[i] = a * x[i] + y[i];
  // ALONE: subsumed-ldg.cu:[[@LINE-1]]:16: warning: {{.*}}'x' could use the read-only data path (__ldg){{.*}} [memory-ldg]
}

// One pointer parameter: memory-restrict has nothing to say, but the kernel
// writes a global array that 'in' may point into.
__device__ float g_out[1024];
__global__ void to_global(const float *in, int n) {
  for (int i = threadIdx.x * 4; i < n && i < threadIdx.x * 4 + 4 && i < 1024; i++)
    g_out[i] = in[i] * in[i + 1];
  // BOTH: subsumed-ldg.cu:[[@LINE-1]]:16: warning: {{.*}}'in' could use the read-only data path (__ldg){{.*}} [memory-ldg]
  // ALONE: subsumed-ldg.cu:[[@LINE-2]]:16: warning: {{.*}}'in' could use the read-only data path (__ldg){{.*}} [memory-ldg]
}
