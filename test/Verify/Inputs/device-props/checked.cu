// The query inside error checks: a do { ... } while (0) macro that declares
// the status, a helper given the status, and an if on the status.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t err = x;                                                      \
    if (err != cudaSuccess) {                                                 \
      printf("%s\n", cudaGetErrorString(err));                                \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static void check(cudaError_t e) {
  if (e != cudaSuccess)
    exit(1);
}

__global__ void per_sm(float *out) { out[blockIdx.x] = 1.0f; }

int main() {
  float *out;
  cudaMalloc(&out, 4096 * sizeof(float));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  per_sm<<<prop.multiProcessorCount, 1>>>(out);
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  per_sm<<<sms * 2, 1>>>(out);
  int blocks = 0;
  if (cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor,
                             0) != cudaSuccess)
    return 1;
  per_sm<<<blocks, 1>>>(out);
  // Only on one path: not known.
  int maybe = 1;
  if (out == nullptr)
    cudaDeviceGetAttribute(&maybe, cudaDevAttrWarpSize, 0);
  per_sm<<<maybe * 3, 1>>>(out);
  return 0;
}
