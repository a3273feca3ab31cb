// Launch shapes taken from the GPU the program runs on: the harness
// inference answers the runtime's device-property queries with the values
// of the GPU class the tool targets (docs/harness.md, "Device properties").
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale_grid_stride(float *out, const float *in, int n,
                                  int lanes) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    out[i] = in[i] * (float)lanes;
}

__global__ void fill_one(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

__global__ void sized_by_memory(float *out, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0.0f;
}

int main() {
  const int n = 1 << 20;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));

  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  // Four blocks per SM, grid-stride loop; the warp size as a scalar.
  scale_grid_stride<<<prop.multiProcessorCount * 4, 256>>>(out, in, n,
                                                           prop.warpSize);

  // The attribute API, and the largest block.
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int threads = prop.maxThreadsPerBlock;
  fill_one<<<(n + threads - 1) / threads, threads>>>(out, n);
  fill_one<<<sms * 2, 128>>>(out, n);

  // Memory sizes are not known: the device's memory differs between GPUs.
  size_t quarter = prop.totalGlobalMem / 4 / sizeof(float);
  float *big;
  cudaMalloc(&big, quarter * sizeof(float));
  sized_by_memory<<<(unsigned)((quarter + 255) / 256), 256>>>(big, quarter);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
