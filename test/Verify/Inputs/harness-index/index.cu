// Kernels that index buffers with values they load from other buffers.
#include <cuda_runtime.h>

#define NPTS 4096
#define NCLUST 32
#define NDIM 16
#define NROWS 1024
#define NCOLS 2048
#define NNZ 8192
#define NBINS 64

// Cluster sums: the membership value times the dimension plus a feature
// loop variable indexes the sums (atomics), the value alone the counts.
__global__ void accumulate(const float *pts, int *member, float *sums,
                           int *counts, int npts, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < npts) {
    int c = member[i];
    atomicAdd(&counts[c], 1);
    for (int f = 0; f < dim; f++)
      atomicAdd(&sums[c * dim + f], pts[i * dim + f]);
  }
}

// Stream compaction: an inclusive scan minus one is the store index.
__global__ void scatter(const int *x, const int *pos, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 6)
    out[pos[i] - 1] = i;
}

// CSR: row starts bound a loop whose variable indexes the values and the
// column indices; the column indices index x (read) and grad (atomics).
__global__ void spmv_grad(const int *rowptr, const int *col, const float *val,
                          const float *x, float *y, float *grad, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    for (int j = rowptr[r]; j < rowptr[r + 1]; ++j)
      s += val[j] * x[col[j]];
    y[r] = s;
    for (int j = rowptr[r]; j < rowptr[r + 1]; ++j)
      atomicAdd(&grad[col[j]], s * val[j]);
  }
}

// Histograms: a bin read directly, a bin shifted (the default values fit),
// a bin clamped by an assignment (not followed: said so).
__global__ void histo(const int *data, unsigned *hist, unsigned *coarse,
                      unsigned *clamped, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&hist[data[i]], 1u);
    atomicAdd(&coarse[data[i] >> 4], 1u);
  }
}
__global__ void histo_clamped(const int *data, unsigned *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = data[i];
    if (b >= NBINS)
      b = NBINS - 1;
    atomicAdd(&hist[b], 1u);
  }
}

// A gather through a device function, and a reversed permutation.
__device__ float fetch(const float *src, const int *idx, int k) {
  return src[idx[k]];
}
__global__ void gather(const float *src, const int *perm, float *dst,
                       const int *rev, float *dst2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    dst[i] = fetch(src, perm, i);
    dst2[n - 1 - rev[i]] = src[i];
  }
}

// Segments: offsets bound a block-strided loop (sorted values).
__global__ void segments(const int *offs, float *out, int nseg) {
  int s = blockIdx.x;
  if (s < nseg)
    for (int k = offs[s] + threadIdx.x; k < offs[s + 1]; k += blockDim.x)
      out[k] = 1.0f;
}

int main() {
  float *pts, *sums, *val, *x, *y, *grad, *src, *dst, *dst2, *segout;
  int *member, *counts, *xs, *pos, *out, *rowptr, *col, *data, *perm, *rev,
      *offs;
  unsigned *hist, *coarse, *clamped;
  cudaMalloc(&pts, sizeof(float) * NPTS * NDIM);
  cudaMalloc(&member, sizeof(int) * NPTS);
  cudaMalloc(&sums, sizeof(float) * NCLUST * NDIM);
  cudaMalloc(&counts, sizeof(int) * NCLUST);
  accumulate<<<NPTS / 256, 256>>>(pts, member, sums, counts, NPTS, NDIM);

  cudaMalloc(&xs, sizeof(int) * NPTS);
  cudaMalloc(&pos, sizeof(int) * NPTS);
  cudaMalloc(&out, sizeof(int) * NPTS);
  scatter<<<NPTS / 256, 256>>>(xs, pos, out, NPTS);

  cudaMalloc(&rowptr, sizeof(int) * (NROWS + 1));
  cudaMalloc(&col, sizeof(int) * NNZ);
  cudaMalloc(&val, sizeof(float) * NNZ);
  cudaMalloc(&x, sizeof(float) * NCOLS);
  cudaMalloc(&y, sizeof(float) * NROWS);
  cudaMalloc(&grad, sizeof(float) * NCOLS);
  spmv_grad<<<NROWS / 128, 128>>>(rowptr, col, val, x, y, grad, NROWS);

  cudaMalloc(&data, sizeof(int) * NPTS);
  cudaMalloc(&hist, sizeof(unsigned) * NBINS);
  cudaMalloc(&coarse, sizeof(unsigned) * 16);
  cudaMalloc(&clamped, sizeof(unsigned) * NBINS);
  histo<<<NPTS / 256, 256>>>(data, hist, coarse, clamped, NPTS);
  histo_clamped<<<NPTS / 256, 256>>>(data, clamped, NPTS);

  cudaMalloc(&src, sizeof(float) * NPTS);
  cudaMalloc(&perm, sizeof(int) * NPTS);
  cudaMalloc(&dst, sizeof(float) * NPTS);
  cudaMalloc(&rev, sizeof(int) * NPTS);
  cudaMalloc(&dst2, sizeof(float) * NPTS);
  gather<<<NPTS / 256, 256>>>(src, perm, dst, rev, dst2, NPTS);

  cudaMalloc(&offs, sizeof(int) * 65);
  cudaMalloc(&segout, sizeof(float) * 10000);
  segments<<<64, 128>>>(offs, segout, 64);
  return 0;
}
