// Reductions: shared-memory tree, warp shuffles, cooperative groups, cub.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>
#include "include/cl_common.cuh"

namespace cg = cooperative_groups;

template <unsigned BLOCK>
__global__ void reduce_sum_shared(const float *__restrict__ in,
                                  float *__restrict__ partial, unsigned n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (BLOCK * 2) + tid;
  float v = 0.0f;
  if (i < n)
    v = in[i];
  if (i + BLOCK < n)
    v += in[i + BLOCK];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}

__global__ void reduce_warp_shuffle(const float *in, float *out, int n) {
  __shared__ float scratch[WARP_SIZE];
  float v = 0.0f;
  for (int i = GLOBAL_TID(); i < n; i += GRID_STRIDE())
    v += in[i];
  v = cl::detail::block_reduce_sum(v, scratch);
  if (threadIdx.x == 0)
    atomicAdd(out, v);
}

__global__ void reduce_cg(const int *in, int *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = 0;
  for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n;
       i += gridDim.x * block.size())
    v += in[i];
  v = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0)
    atomicAdd(out, v);
}

template <int BLOCK_THREADS>
__global__ void block_dot(const float *a, const float *b, float *out, int n) {
  using BlockReduce = cub::BlockReduce<float, BLOCK_THREADS>;
  __shared__ typename BlockReduce::TempStorage temp;
  float v = 0.0f;
  for (int i = blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n;
       i += gridDim.x * BLOCK_THREADS)
    v += a[i] * b[i];
  float total = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, total);
}

float sum(const float *d, float *partial, float *out, int n) {
  reduce_sum_shared<256><<<CEIL_DIV(n, 512), 256>>>(d, partial, n);
  reduce_sum_shared<128><<<CEIL_DIV(n, 256), 128>>>(d, partial, n);
  reduce_warp_shuffle<<<120, 256>>>(d, out, n);
  reduce_cg<<<120, 256>>>(reinterpret_cast<const int *>(d),
                          reinterpret_cast<int *>(out), n);
  block_dot<256><<<120, 256>>>(d, d, out, n);
  float h = 0;
  cudaMemcpy(&h, out, sizeof(float), cudaMemcpyDeviceToHost);
  return h;
}
