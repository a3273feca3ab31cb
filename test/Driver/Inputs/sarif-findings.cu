// Findings with and without fixes, notes, a launch site, and non-ASCII text
// before a finding on its line (SARIF columns count UTF-16 code units).
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++) {
    /* é😀 */ out[i] = in[i] * 0.2;
    out[i] += in[i] * 0.1;
  }
}

void run(const float *in, float *out, int n) {
  scale<<<(n + 255) / 256, 256>>>(in, out, n);
}
