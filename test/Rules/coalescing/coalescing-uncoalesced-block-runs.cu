// coalescing-uncoalesced-access on a symmetric pair table read both ways
// by a 16x16 block: `w[j + i * n]` with i from threadIdx.x puts each lane
// of a warp in its own row, but j from threadIdx.y walks consecutive
// elements, so the block's eight warps together read 16 rows of 16
// doubles (128 bytes each). Once per thread, the sectors one warp fetches
// serve its siblings from L1: at most 1.25x over the bytes used, not
// reported. Reported: the same read in a loop, a store of the same shape,
// and a block whose runs are 32 bytes (8 floats: up to 2x).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access' %s -- 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>

__global__ void pair_energy(const double *__restrict__ w, const double *v,
                            double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    double a = w[i + j * n];
    double b = w[j + i * n];
    out[i + j * n] = (a + b) * v[i];
  }
}

// CHECK: [[@LINE+9]]:12: warning: uncoalesced global load{{.*}}'n' elements apart
__global__ void pair_energy_steps(const double *__restrict__ w, double *out,
                                  int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n)
    return;
  double acc = 0.0;
  for (int s = 0; s < steps; ++s)
    acc += w[j + i * n] * double(s);
  out[i + j * n] = acc;
}

// CHECK: [[@LINE+6]]:5: warning: uncoalesced global store{{.*}}'n' elements apart
__global__ void pair_transpose(const double *__restrict__ w, double *t,
                               int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    t[j + i * n] = w[i + j * n];
}

// CHECK: [[@LINE+5]]:22: warning: uncoalesced global load{{.*}}'n' elements apart
__global__ void pair_narrow(const float *__restrict__ w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    out[i + j * n] = w[j + i * n] * 0.5f;
}

void run(const double *w, const double *v, double *out, const float *wf,
         float *outf, int n) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  pair_energy<<<grid, block>>>(w, v, out, n);
  pair_energy_steps<<<grid, block>>>(w, out, n, 8);
  pair_transpose<<<grid, block>>>(w, out, n);
  pair_narrow<<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(wf, outf, n);
}
