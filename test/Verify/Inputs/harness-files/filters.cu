// Kernels and their host wrappers; every size comes from the callers in
// main.cu and host.cpp.
#include "params.h"
#include <cmath>
#include <cuda_runtime.h>

__global__ void blur_rows_k(real_t *dst, const real_t *src, int w, int h,
                            real_t wt) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h)
    dst[y * w + x] = wt * (src[y * w + x - 1] + src[y * w + x + 1]);
}

__global__ void blur_rows_d(double *dst, const double *src, int w, int h,
                            double wt) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < w - 1 && y < h)
    dst[y * w + x] = wt * (src[y * w + x - 1] + src[y * w + x + 1]);
}

__global__ void smooth_k(real_t *sig, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < len)
    sig[i] = 0.5f * (sig[i] + sig[i - 1]);
}

__global__ void histogram_k(unsigned *hist, const unsigned *v, int count,
                            int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    atomicAdd(&hist[v[i] % bins], 1u);
}

__global__ void normalise_k(real_t *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] / n;
}

void blur_rows(real_t *d_dst, const real_t *d_src, int width, int height,
               real_t weight) {
  dim3 block(BLOCK_DIM, BLOCK_DIM);
  dim3 grid((size_t)ceil(((float)width) / ((float)block.x)),
            (height + block.y - 1) / block.y);
  blur_rows_k<<<grid, block>>>(d_dst, d_src, width, height, weight);
}

// An overload: main.cu calls only the float one.
void blur_rows(double *d_dst, const double *d_src, int width, int height,
               double weight) {
  dim3 block(BLOCK_DIM, BLOCK_DIM);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  blur_rows_d<<<grid, block>>>(d_dst, d_src, width, height, weight);
}

// Top-level const and __restrict__ differ from the declaration in params.h:
// the same function.
void smooth_signal(real_t *__restrict__ d_sig, const int len, int passes) {
  for (int p = 0; p < passes; ++p)
    smooth_k<<<(len + 255) / 256, 256>>>(d_sig, len);
}

void histogram_gpu(const unsigned *h_values, int count, int bins) {
  unsigned *d_v, *d_hist;
  cudaMalloc(&d_v, count * sizeof(unsigned));
  cudaMalloc(&d_hist, bins * sizeof(unsigned));
  cudaMemcpy(d_v, h_values, count * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(d_hist, 0, bins * sizeof(unsigned));
  histogram_k<<<(count + 127) / 128, 128>>>(d_hist, d_v, count, bins);
  cudaFree(d_v);
  cudaFree(d_hist);
}

void normalise(real_t *d_v, int n) {
  normalise_k<<<(n + 255) / 256, 256>>>(d_v, n);
}
