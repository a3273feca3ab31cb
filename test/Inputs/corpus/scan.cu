// Block-level inclusive scan (Kogge-Stone) in dynamic shared memory, and the
// pass that adds each block's offset.
#include <cuda_runtime.h>

extern __shared__ float scan_smem[];

__global__ void block_scan_inclusive(const float *in, float *out, float *block_sums,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scan_smem[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset <<= 1) {
    float v = threadIdx.x >= offset ? scan_smem[threadIdx.x - offset] : 0.0f;
    __syncthreads();
    scan_smem[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = scan_smem[threadIdx.x];
  if (threadIdx.x == blockDim.x - 1)
    block_sums[blockIdx.x] = scan_smem[threadIdx.x];
}

__global__ void add_block_offsets(float *out, const float *scanned_sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && i < n)
    out[i] += scanned_sums[blockIdx.x - 1];
}

void scan(const float *in, float *out, float *sums, int n) {
  const int block = 512;
  int grid = (n + block - 1) / block;
  block_scan_inclusive<<<grid, block, block * sizeof(float)>>>(in, out, sums, n);
  add_block_offsets<<<grid, block>>>(out, sums, n);
}
