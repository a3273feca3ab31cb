// Launch configurations that waste threads or SMs.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

__global__ void axpy(float a, const float *__restrict__ x,
                     float *__restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

void launch(const float *x, float *y, int n) {
  axpy<<<1024, 100>>>(2.0f, x, y, n);
  axpy<<<16, 256>>>(2.0f, x, y, n);
  axpy<<<4096, 32>>>(2.0f, x, y, n);
  dim3 block(16, 6);
  axpy<<<4096, block>>>(2.0f, x, y, n);
  axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
  axpy<<<264, dim3(32, 4)>>>(2.0f, x, y, n);
}

// CHECK-MESSAGES: launch.cu:13:3: warning: block of 100 threads is not a multiple of the warp size: its last warp runs 4 of 32 lanes,{{.*}} [launch-partial-warp]
// CHECK-MESSAGES: launch.cu:14:3: warning: grid of 16 blocks keeps only 16 of the GPU's 132 SMs busy; the rest idle for the whole ker{{.*}} [launch-small-grid]
// CHECK-MESSAGES: launch.cu:15:3: warning: blocks of 32 threads: with at most 32 resident blocks per SM, an SM holds only 1024 of its{{.*}} [launch-small-block]
