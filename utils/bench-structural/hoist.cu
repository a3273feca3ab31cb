// Benchmark input for memory-hoist-invariant-load: each thread scales one
// column; s[col] is the same in every iteration, but the compiler must reload
// it because out may alias s (plain pointers). The launch site below proves
// they are separate allocations.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

__global__ void scale_cols(const float *A, const float *s, float *out, int M,
                           int N) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < N)
    for (int r = 0; r < M; ++r)
      out[r * N + col] = A[r * N + col] * s[col];
}

#ifndef __CUDACC_RTC__
void app_scale_cols() {
  float *A, *s, *out;
  cudaMalloc(&A, 4096 * 4096 * sizeof(float));
  cudaMalloc(&s, 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * 4096 * sizeof(float));
  scale_cols<<<(4096 + 255) / 256, 256>>>(A, s, out, 4096, 4096);
}
#endif
