// copy-bw: device-to-device copy bandwidth, the reference for the achieved
// bandwidth of utils/bench-corpus.py. Copies a buffer of BYTES (default
// 1 GiB) with cudaMemcpy (device to device) and with a simple grid-stride
// float4 copy kernel, ITERS times each after a warm-up, timed with CUDA events;
// bandwidth counts the bytes read plus the bytes written (2 x size per copy).
// Prints a human line and, last, one JSON line:
//   {"bytes": ..., "iters": ..., "memcpy_gbps": ..., "kernel_gbps": ..., "device": "..."}
//   copy-bw [bytes] [iters]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "copy-bw: %s: %s\n", #call, cudaGetErrorString(err_));          \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

__global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)1 << 30;
  int iters = argc > 2 ? atoi(argv[2]) : 20;
  bytes = bytes / 16 * 16;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  CHECK(cudaMemset(b, 0, bytes));
  cudaEvent_t s, e;
  CHECK(cudaEventCreate(&s));
  CHECK(cudaEventCreate(&e));

  CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(s));
  for (int i = 0; i < iters; i++)
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(e));
  CHECK(cudaEventSynchronize(e));
  float ms_memcpy;
  CHECK(cudaEventElapsedTime(&ms_memcpy, s, e));

  size_t n = bytes / 16;
  int blocks = prop.multiProcessorCount * 8;
  copy_kernel<<<blocks, 256>>>((const float4 *)a, (float4 *)b, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(s));
  for (int i = 0; i < iters; i++)
    copy_kernel<<<blocks, 256>>>((const float4 *)a, (float4 *)b, n);
  CHECK(cudaEventRecord(e));
  CHECK(cudaEventSynchronize(e));
  float ms_kernel;
  CHECK(cudaEventElapsedTime(&ms_kernel, s, e));

  double gb = 2.0 * bytes * iters / 1e9;
  double memcpy_gbps = gb / (ms_memcpy * 1e-3), kernel_gbps = gb / (ms_kernel * 1e-3);
  printf("%s: device-to-device copy of %.0f MiB: cudaMemcpy %.1f GB/s, copy kernel %.1f GB/s "
         "(read + write)\n", prop.name, bytes / 1048576.0, memcpy_gbps, kernel_gbps);
  printf("{\"bytes\": %zu, \"iters\": %d, \"memcpy_gbps\": %.2f, \"kernel_gbps\": %.2f, "
         "\"device\": \"%s\"}\n", bytes, iters, memcpy_gbps, kernel_gbps, prop.name);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
