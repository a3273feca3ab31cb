// Kernels in a header, included by memory-hoist-invariant-load-header.cu:
// the fixes edit this file. Brace-less loop bodies, a pragma. The pointers
// are not __restrict__ (with it nvcc hoists the loads itself): the launches
// in the .cu pass separate allocations.
#define REAL float

__global__ void hdr_rows(const REAL *s, REAL *out, int n) {
  int r = blockIdx.x;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      out[(r * n + i) * n + k] = s[r] * k;
}

__global__ void hdr_unrolled(const float *s, float *out, int n) {
  if (n > 0)
#pragma unroll 2
    for (int k = 0; k < n; ++k)
      out[blockIdx.x * n + k] = s[blockIdx.x] * k;
  out[threadIdx.x] += 1.0f;
}

__global__ void hdr_gather(const int *__restrict__ idx,
                           const float *__restrict__ f,
                           float *__restrict__ out, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    const int e = idx[i];
    acc += f[e];
  }
  out[threadIdx.x] = acc;
}
