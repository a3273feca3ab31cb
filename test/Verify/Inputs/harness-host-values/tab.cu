// Tables the program copies in from constant host arrays (HeCBench
// tensorT's shapes and strides): the harness fills them with those values.
#include <cuda_runtime.h>

static const int shape[] = {4, 8, 2};
static const int stride[3] = {16, 2, 1};
static const float weights[] = {0.25f, 0.5f, 0.25f};
static int counts[] = {1, 2, 3};
static const unsigned char sbox[4] = {0xC0, 0x50, 0x7F, 0xFF};

__global__ void gather(const int *shape, const int *stride, const float *w,
                       const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int off = 0, r = i;
  for (int d = 2; d >= 0; d--) {
    off += (r % shape[d]) * stride[d];
    r /= shape[d];
  }
  out[i] = w[0] * in[off] + w[1] * in[off] + w[2] * in[off];
}

__global__ void use(const int *c, float *out) {
  int i = threadIdx.x;
  if (i < 3)
    out[i] = float(c[i]);
}

__global__ void use_part(const int *c, float *out) {
  int i = threadIdx.x;
  if (i < 3)
    out[i] = float(c[i]);
}

__global__ void substitute(const unsigned char *box, const int *in, int *out) {
  int i = threadIdx.x;
  if (i < 32)
    out[i] = box[in[i] & 3];
}

__global__ void use_reset(const int *c, float *out) {
  int i = threadIdx.x;
  if (i < 3)
    out[i] = float(c[i]);
}

int main() {
  const int n = 64;
  int *d_shape, *d_stride, *d_counts, *d_part;
  float *d_w, *d_in, *d_out;
  cudaMalloc(&d_shape, sizeof(shape));
  cudaMalloc(&d_stride, 3 * sizeof(int));
  cudaMalloc(&d_w, 3 * sizeof(float));
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&d_counts, 3 * sizeof(int));
  cudaMalloc(&d_part, 4 * sizeof(int));
  cudaMemcpy(d_shape, shape, sizeof(shape), cudaMemcpyHostToDevice);
  cudaMemcpy(d_stride, &stride[0], 3 * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, weights, 3 * sizeof(float), cudaMemcpyHostToDevice);
  gather<<<1, 64>>>(d_shape, d_stride, d_w, d_in, d_out, n);
  // Not the program's fixed values: a modifiable array, and a copy that
  // covers only part of the buffer.
  cudaMemcpy(d_counts, counts, 3 * sizeof(int), cudaMemcpyHostToDevice);
  use<<<1, 32>>>(d_counts, d_out);
  cudaMemcpy(d_part, shape, 3 * sizeof(int), cudaMemcpyHostToDevice);
  use_part<<<1, 32>>>(d_part, d_out);
  // Filled from the constant array, then set again: not its values.
  int *d_reset;
  cudaMalloc(&d_reset, 3 * sizeof(int));
  cudaMemcpy(d_reset, shape, 3 * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_reset, 0, 3 * sizeof(int));
  use_reset<<<1, 32>>>(d_reset, d_out);
  // Unsigned bytes: 0xC0 is 192.
  unsigned char *d_box;
  cudaMalloc(&d_box, sizeof(sbox));
  cudaMemcpy(d_box, sbox, sizeof(sbox), cudaMemcpyHostToDevice);
  substitute<<<1, 32>>>(d_box, d_counts, d_part);
  return 0;
}
