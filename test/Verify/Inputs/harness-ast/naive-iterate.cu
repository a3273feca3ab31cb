// A program in the naive style: sizes are macros, the launch is in a host
// wrapper that takes them as parameters, the grid is a dim3 built with ceil
// of float casts, and the input pointer is not const although the kernel only
// reads it. Its own CPU check prints PASS (exit 0) or FAIL (exit 1).
// --fix --verify=run must infer the harness with no flag and verify the
// reciprocal hoist (test/Verify/harness-ast-gpu*.test).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N (1 << 20)
#define BLOCK_SIZE 256
#define STEPS 256
#define CUDA_CHECK(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__);  \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void iterate(float *in, float *out, float s, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  for (int k = 0; k < steps; ++k) {
    x = x / s + 0.5f;
    x = x / s + 0.25f;
  }
  out[i] = x;
}

void iterate_gpu(float *d_in, float *d_out, float s, int n, int steps) {
  dim3 block(BLOCK_SIZE);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), 1);
  iterate<<<grid, block>>>(d_in, d_out, s, n, steps);
  CUDA_CHECK(cudaGetLastError());
}

int main() {
  size_t bytes = N * sizeof(float);
  float *h_in = (float *)malloc(bytes);
  float *h_out = (float *)malloc(bytes);
  for (int i = 0; i < N; i++)
    h_in[i] = (float)(i % 1000) / 1000.0f;
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
  CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
  iterate_gpu(d_in, d_out, 3.0f, N, STEPS);
  CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float x = h_in[i];
    for (int k = 0; k < STEPS; ++k) {
      x = x / 3.0f + 0.5f;
      x = x / 3.0f + 0.25f;
    }
    if (fabsf(h_out[i] - x) > 1e-4f * fabsf(x) + 1e-5f)
      bad++;
  }
  printf("%s (%d of %d differ)\n", bad ? "FAIL" : "PASS", bad, N);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  free(h_in);
  free(h_out);
  return bad ? 1 : 0;
}
