// conv2d_nchw: a convolution layer on a batch of images in NCHW layout:
// direct KxK convolution with zero padding (one thread per output element,
// loops over input channels and the window), bias, ReLU (separate
// element-wise kernel), 2x2 max pooling.
//
// Check: the conv+ReLU output and the pooled output of CHECK_CHANNELS output
// channels of the first and last image against the CPU in double;
// tolerance rtol 1e-4 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef NB
#define NB 8
#endif
#ifndef C_IN
#define C_IN 64
#endif
#ifndef C_OUT
#define C_OUT 64
#endif
#ifndef H
#define H 128
#endif
#ifndef W
#define W 128
#endif
#define K 3
#define PAD 1
#define CHECK_CHANNELS 3

__global__ void conv2d_kernel(float *in, float *weight, float *bias, float *out, int nb, int c_in,
                              int c_out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int n = blockIdx.z / c_out;
  int co = blockIdx.z % c_out;
  if (x < w && y < h && n < nb) {
    float sum = bias[co];
    for (int ci = 0; ci < c_in; ci++) {
      for (int ky = 0; ky < K; ky++) {
        for (int kx = 0; kx < K; kx++) {
          int iy = y + ky - PAD;
          int ix = x + kx - PAD;
          if (iy >= 0 && iy < h && ix >= 0 && ix < w)
            sum += in[((n * c_in + ci) * h + iy) * w + ix] * weight[((co * c_in + ci) * K + ky) * K + kx];
        }
      }
    }
    out[((n * c_out + co) * h + y) * w + x] = sum;
  }
}

__global__ void relu_kernel(float *x, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total)
    x[i] = fmaxf(x[i], 0.0);
}

__global__ void maxpool_kernel(float *in, float *out, int planes, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z;
  int oh = h / 2, ow = w / 2;
  if (x < ow && y < oh && p < planes) {
    float m = in[(p * h + 2 * y) * w + 2 * x];
    m = fmaxf(m, in[(p * h + 2 * y) * w + 2 * x + 1]);
    m = fmaxf(m, in[(p * h + 2 * y + 1) * w + 2 * x]);
    m = fmaxf(m, in[(p * h + 2 * y + 1) * w + 2 * x + 1]);
    out[(p * oh + y) * ow + x] = m;
  }
}

static int check_channel(int r) { return (r * 29 + 1) % C_OUT; }

// reference of one output plane (image n, channel co): conv + bias + ReLU
void conv_plane_cpu(const float *in, const float *weight, const float *bias, int n, int co,
                    double *plane) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double s = bias[co];
      for (int ci = 0; ci < C_IN; ci++)
        for (int ky = 0; ky < K; ky++)
          for (int kx = 0; kx < K; kx++) {
            int iy = y + ky - PAD, ix = x + kx - PAD;
            if (iy >= 0 && iy < H && ix >= 0 && ix < W)
              s += (double)in[(((long)n * C_IN + ci) * H + iy) * W + ix] *
                   weight[((co * C_IN + ci) * K + ky) * K + kx];
          }
      plane[y * W + x] = s > 0 ? s : 0;
    }
}

int main() {
  long in_size = (long)NB * C_IN * H * W, out_size = (long)NB * C_OUT * H * W;
  long pool_size = (long)NB * C_OUT * (H / 2) * (W / 2);
  long w_size = (long)C_OUT * C_IN * K * K;
  float *in = (float *)malloc(sizeof(float) * in_size);
  float *weight = (float *)malloc(sizeof(float) * w_size);
  float *bias = (float *)malloc(sizeof(float) * C_OUT);
  float *out = (float *)malloc(sizeof(float) * out_size);
  float *pooled = (float *)malloc(sizeof(float) * pool_size);
  bench_srand(29);
  for (long i = 0; i < in_size; i++)
    in[i] = bench_rand_float(-1, 1);
  float ws = 1.0f / sqrtf((float)(C_IN * K * K));
  for (long i = 0; i < w_size; i++)
    weight[i] = bench_rand_float(-ws, ws);
  for (int i = 0; i < C_OUT; i++)
    bias[i] = bench_rand_float(-0.1f, 0.1f);

  int images[2] = {0, NB - 1};
  double *ref = (double *)malloc(sizeof(double) * 2 * CHECK_CHANNELS * H * W);
  double t0 = wall_time();
  for (int a = 0; a < 2; a++)
    for (int r = 0; r < CHECK_CHANNELS; r++)
      conv_plane_cpu(in, weight, bias, images[a], check_channel(r), ref + (long)(a * CHECK_CHANNELS + r) * H * W);
  print_cpu_time(wall_time() - t0);

  float *d_in, *d_weight, *d_bias, *d_out, *d_pooled;
  CUDA_CHECK(cudaMalloc(&d_in, sizeof(float) * in_size));
  CUDA_CHECK(cudaMalloc(&d_weight, sizeof(float) * w_size));
  CUDA_CHECK(cudaMalloc(&d_bias, sizeof(float) * C_OUT));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * out_size));
  CUDA_CHECK(cudaMalloc(&d_pooled, sizeof(float) * pool_size));
  CUDA_CHECK(cudaMemcpy(d_in, in, sizeof(float) * in_size, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_weight, weight, sizeof(float) * w_size, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_bias, bias, sizeof(float) * C_OUT, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)W) / ((float)block.x)), (size_t)ceil(((float)H) / ((float)block.y)),
            NB * C_OUT);
  dim3 block1(256);
  dim3 grid1((size_t)ceil(((float)out_size) / ((float)block1.x)));
  dim3 grid_pool((size_t)ceil(((float)(W / 2)) / ((float)block.x)),
                 (size_t)ceil(((float)(H / 2)) / ((float)block.y)), NB * C_OUT);

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  conv2d_kernel<<<grid, block>>>(d_in, d_weight, d_bias, d_out, NB, C_IN, C_OUT, H, W);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  relu_kernel<<<grid1, block1>>>(d_out, (int)out_size);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  maxpool_kernel<<<grid_pool, block>>>(d_out, d_pooled, NB * C_OUT, H, W);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(out, d_out, sizeof(float) * out_size, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(pooled, d_pooled, sizeof(float) * pool_size, cudaMemcpyDeviceToHost));

  long bad = 0;
  float *got = (float *)malloc(sizeof(float) * H * W);
  float *got_pool = (float *)malloc(sizeof(float) * (H / 2) * (W / 2));
  double *ref_pool = (double *)malloc(sizeof(double) * (H / 2) * (W / 2));
  for (int a = 0; a < 2; a++)
    for (int r = 0; r < CHECK_CHANNELS; r++) {
      long plane = (long)images[a] * C_OUT + check_channel(r);
      const double *rp = ref + (long)(a * CHECK_CHANNELS + r) * H * W;
      memcpy(got, out + plane * H * W, sizeof(float) * H * W);
      bad += check_close("conv+relu plane", got, rp, (long)H * W, 1e-4, 1e-4);
      for (int y = 0; y < H / 2; y++)
        for (int x = 0; x < W / 2; x++) {
          double m = rp[(2 * y) * W + 2 * x];
          m = fmax(m, rp[(2 * y) * W + 2 * x + 1]);
          m = fmax(m, rp[(2 * y + 1) * W + 2 * x]);
          m = fmax(m, rp[(2 * y + 1) * W + 2 * x + 1]);
          ref_pool[y * (W / 2) + x] = m;
          got_pool[y * (W / 2) + x] = pooled[(plane * (H / 2) + y) * (W / 2) + x];
        }
      bad += check_close("pooled plane", got_pool, ref_pool, (long)(H / 2) * (W / 2), 1e-4, 1e-4);
    }

  cudaFree(d_in); cudaFree(d_weight); cudaFree(d_bias); cudaFree(d_out); cudaFree(d_pooled);
  free(in); free(weight); free(bias); free(out); free(pooled); free(ref);
  free(got); free(got_pool); free(ref_pool);
  return finish(bad);
}
