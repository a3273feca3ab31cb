// launch-bounds when the kernel's register count cannot be measured (NVRTC
// cannot compile the kernel on its own: it calls a device function defined
// in another translation unit): the bound is suggested from the block size
// alone, and the finding says so in a note.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-bounds' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: FileCheck --check-prefix=CHECK-FIXES --input-file=%t/t.cu %s
#include <cuda_runtime.h>

extern __device__ float elsewhere(float x); // defined with -rdc in another file

__global__ void remote(float *p) { p[threadIdx.x] = elsewhere(p[threadIdx.x]); }
// CHECK: t.cu:[[@LINE-1]]:17: warning: every launch uses a constant block of at most 640 threads; '__launch_bounds__(640)' keeps the kernel within the 96 registers per thread such a block has (without it the compiler may use up to 255, and the launch fails) [launch-bounds]
// CHECK: note: the kernel's register count is not known: {{.*}}; the bound is suggested from the block size alone
// CHECK: note: launched here
// CHECK-FIXES: __global__ void __launch_bounds__(640) remote(float *p) {

void run(float *p) { remote<<<1, 640>>>(p); }
