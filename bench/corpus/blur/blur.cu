// blur: image filters on an RGB 8-bit image (interleaved): a 5x5 Gaussian
// blur with clamped borders (weights computed in the kernel), conversion to
// a float grey image, and a general 7x7 convolution with a mask in global
// memory (zero padding). REPS times.
//
// Check: blurred image within 1 grey level (float rounding at .5); grey and
// convolved images (each computed on the CPU from the GPU's previous stage)
// within rtol 1e-5 + atol 1e-3.
#include "../common/bench_common.h"

#ifndef WIDTH
#define WIDTH 2048
#endif
#ifndef HEIGHT
#define HEIGHT 2048
#endif
#ifndef REPS
#define REPS 10
#endif
#define RADIUS 2
#define SIGMA 1.5f
#define MASK 7

__global__ void gaussian_blur_kernel(unsigned char *in, unsigned char *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    for (int c = 0; c < 3; c++) {
      float sum = 0.0f, wsum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = expf(-(dx * dx + dy * dy) / (2.0f * SIGMA * SIGMA));
          sum += w * in[(yy * width + xx) * 3 + c];
          wsum += w;
        }
      }
      out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
    }
  }
}

__global__ void to_gray_kernel(unsigned char *rgb, float *gray, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    int p = y * width + x;
    gray[p] = 0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2];
  }
}

__global__ void convolve_kernel(float *in, float *mask, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float sum = 0;
    for (int ky = 0; ky < MASK; ky++) {
      for (int kx = 0; kx < MASK; kx++) {
        int xx = x + kx - MASK / 2;
        int yy = y + ky - MASK / 2;
        if (xx >= 0 && xx < width && yy >= 0 && yy < height)
          sum += in[yy * width + xx] * mask[ky * MASK + kx];
      }
    }
    out[y * width + x] = sum;
  }
}

int main() {
  int width = WIDTH, height = HEIGHT;
  long pixels = (long)width * height;
  unsigned char *img = (unsigned char *)malloc(pixels * 3);
  unsigned char *blurred = (unsigned char *)malloc(pixels * 3);
  float *gray = (float *)malloc(sizeof(float) * pixels);
  float *conv = (float *)malloc(sizeof(float) * pixels);
  float mask[MASK * MASK];
  // a smooth picture with noise
  bench_srand(32);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < 3; c++) {
        float v = 128 + 60 * sinf(x * 0.01f * (c + 1)) * cosf(y * 0.013f) + bench_rand_float(-40, 40);
        img[((long)y * width + x) * 3 + c] = (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
      }
  // an edge-enhancing mask: centre-surround
  for (int ky = 0; ky < MASK; ky++)
    for (int kx = 0; kx < MASK; kx++) {
      int d2 = (kx - MASK / 2) * (kx - MASK / 2) + (ky - MASK / 2) * (ky - MASK / 2);
      mask[ky * MASK + kx] = d2 == 0 ? 2.0f : -1.0f / (MASK * MASK - 1) + 0.01f * (kx - ky);
    }

  unsigned char *d_img, *d_blurred;
  float *d_gray, *d_mask, *d_conv;
  CUDA_CHECK(cudaMalloc(&d_img, pixels * 3));
  CUDA_CHECK(cudaMalloc(&d_blurred, pixels * 3));
  CUDA_CHECK(cudaMalloc(&d_gray, sizeof(float) * pixels));
  CUDA_CHECK(cudaMalloc(&d_conv, sizeof(float) * pixels));
  CUDA_CHECK(cudaMalloc(&d_mask, sizeof(mask)));
  CUDA_CHECK(cudaMemcpy(d_img, img, pixels * 3, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_mask, mask, sizeof(mask), cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)width) / ((float)block.x)),
            (size_t)ceil(((float)height) / ((float)block.y)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    gaussian_blur_kernel<<<grid, block>>>(d_img, d_blurred, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    to_gray_kernel<<<grid, block>>>(d_blurred, d_gray, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    convolve_kernel<<<grid, block>>>(d_gray, d_mask, d_conv, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(blurred, d_blurred, pixels * 3, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gray, d_gray, sizeof(float) * pixels, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(conv, d_conv, sizeof(float) * pixels, cudaMemcpyDeviceToHost));

  // references: each stage from the GPU's previous stage
  double t0 = wall_time();
  double weights[2 * RADIUS + 1][2 * RADIUS + 1], wsum = 0;
  for (int dy = -RADIUS; dy <= RADIUS; dy++)
    for (int dx = -RADIUS; dx <= RADIUS; dx++) {
      weights[dy + RADIUS][dx + RADIUS] = exp(-(dx * dx + dy * dy) / (2.0 * SIGMA * SIGMA));
      wsum += weights[dy + RADIUS][dx + RADIUS];
    }
  long blur_bad = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < 3; c++) {
        double s = 0;
        for (int dy = -RADIUS; dy <= RADIUS; dy++)
          for (int dx = -RADIUS; dx <= RADIUS; dx++) {
            int xx = x + dx < 0 ? 0 : (x + dx > width - 1 ? width - 1 : x + dx);
            int yy = y + dy < 0 ? 0 : (y + dy > height - 1 ? height - 1 : y + dy);
            s += weights[dy + RADIUS][dx + RADIUS] * img[((long)yy * width + xx) * 3 + c];
          }
        int expect = (int)(s / wsum + 0.5);
        int got = blurred[((long)y * width + x) * 3 + c];
        if (abs(got - expect) > 1) {
          if (blur_bad < 5)
            printf("  blurred (%d, %d, %d): gpu %d, reference %d\n", x, y, c, got, expect);
          blur_bad++;
        }
      }
  printf("check blurred: %ld values, %ld off by more than 1\n", pixels * 3, blur_bad);
  double *gray_ref = (double *)malloc(sizeof(double) * pixels);
  double *conv_ref = (double *)malloc(sizeof(double) * pixels);
  for (long p = 0; p < pixels; p++)
    gray_ref[p] = 0.299 * blurred[3 * p] + 0.587 * blurred[3 * p + 1] + 0.114 * blurred[3 * p + 2];
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      double s = 0;
      for (int ky = 0; ky < MASK; ky++)
        for (int kx = 0; kx < MASK; kx++) {
          int xx = x + kx - MASK / 2, yy = y + ky - MASK / 2;
          if (xx >= 0 && xx < width && yy >= 0 && yy < height)
            s += (double)gray[(long)yy * width + xx] * mask[ky * MASK + kx];
        }
      conv_ref[(long)y * width + x] = s;
    }
  print_cpu_time(wall_time() - t0);

  long bad = blur_bad;
  bad += check_close("gray", gray, gray_ref, pixels, 1e-5, 1e-3);
  bad += check_close("convolved", conv, conv_ref, pixels, 1e-5, 1e-3);

  cudaFree(d_img); cudaFree(d_blurred); cudaFree(d_gray); cudaFree(d_mask); cudaFree(d_conv);
  free(img); free(blurred); free(gray); free(conv); free(gray_ref); free(conv_ref);
  return finish(bad);
}
