// Stencils: a 1-D 3-point stencil with double literals, a column-major 2-D
// stencil (thread index on rows), and a good row-major 2-D stencil.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>
#define IDX(r, c, w) ((r) * (w) + (c))

__global__ void stencil1d(const float *__restrict__ in, float *__restrict__ out,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = 0.25 * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

__global__ void jacobi_colmajor(const float *__restrict__ in,
                                float *__restrict__ out, int w, int h) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r > 0 && r < h - 1 && c > 0 && c < w - 1)
    out[IDX(r, c, w)] = 0.25f * (in[IDX(r - 1, c, w)] + in[IDX(r + 1, c, w)] +
                                 in[IDX(r, c - 1, w)] + in[IDX(r, c + 1, w)]);
}

__global__ void jacobi_rowmajor(const float *__restrict__ in,
                                float *__restrict__ out, int w, int h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r > 0 && r < h - 1 && c > 0 && c < w - 1)
    out[IDX(r, c, w)] = 0.25f * (in[IDX(r - 1, c, w)] + in[IDX(r + 1, c, w)] +
                                 in[IDX(r, c - 1, w)] + in[IDX(r, c + 1, w)]);
}

void launch(const float *in, float *out, int w, int h) {
  stencil1d<<<(w + 255) / 256, 256>>>(in, out, w);
  jacobi_colmajor<<<dim3(h / 32, w / 8), dim3(32, 8)>>>(in, out, w, h);
  jacobi_rowmajor<<<dim3(w / 32, h / 8), dim3(32, 8)>>>(in, out, w, h);
}

// CHECK-MESSAGES: stencil.cu:11:14: warning: double literal '0.25' promotes float arithmetic to double (FP64 runs at 1/2 to 1/64 of the FP32 rate); use '0.{{.*}} [algebraic-float-literal]
// CHECK-MESSAGES: stencil.cu:11:14: note: the surrounding expression is then computed in float rather than double: results may differ by a few ulp
// CHECK-MESSAGES: stencil.cu:19:5: warning: uncoalesced global store: consecutive threads are 'w' elements apart, so each lane of a warp touches its own 3{{.*}} [coalescing-uncoalesced-access]
// CHECK-MESSAGES: stencil.cu:19:34: warning: uncoalesced global load: consecutive threads are 'w' elements apart, so each lane of a warp touches its own 32{{.*}} [coalescing-uncoalesced-access]
