// histogram: a 256-bin histogram of an 8-bit image (one global atomicAdd per
// pixel), histogram equalisation (the lookup table built on the host from
// the GPU histogram, applied by a kernel), and a 2-D histogram of NSAMPLES
// float pairs into BINS2D x BINS2D bins.
//
// Check: both histograms and the equalised image, exactly, against the CPU
// (bins are computed in float the same way on both sides).
#include "../common/bench_common.h"

#ifndef WIDTH
#define WIDTH 8192
#endif
#ifndef HEIGHT
#define HEIGHT 4096
#endif
#ifndef NSAMPLES
#define NSAMPLES (8 * 1024 * 1024)
#endif
#define BINS 256
#define BINS2D 64
#define LO -2.0f
#define HI 2.0f

__global__ void histogram_kernel(unsigned char *img, unsigned int *hist, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    atomicAdd(&hist[img[y * width + x]], 1);
}

__global__ void equalize_kernel(unsigned char *img, unsigned char *out, unsigned char *lut,
                                int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[y * width + x] = lut[img[y * width + x]];
}

__global__ void histogram2d_kernel(float *u, float *v, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int bu = (int)floorf((u[i] - LO) / (HI - LO) * BINS2D);
    int bv = (int)floorf((v[i] - LO) / (HI - LO) * BINS2D);
    if (bu < 0) bu = 0;
    if (bu > BINS2D - 1) bu = BINS2D - 1;
    if (bv < 0) bv = 0;
    if (bv > BINS2D - 1) bv = BINS2D - 1;
    atomicAdd(&hist[bu * BINS2D + bv], 1);
  }
}

void build_lut(const unsigned int *hist, long pixels, unsigned char *lut) {
  unsigned long cdf = 0, cdf_min = 0;
  for (int b = 0; b < BINS; b++)
    if (hist[b]) {
      cdf_min = hist[b];
      break;
    }
  for (int b = 0; b < BINS; b++) {
    cdf += hist[b];
    long v = pixels > (long)cdf_min ? (long)((cdf - cdf_min) * 255 / (pixels - cdf_min)) : 0;
    lut[b] = (unsigned char)(v < 0 ? 0 : v);
  }
}

int main() {
  int width = WIDTH, height = HEIGHT, n = NSAMPLES;
  long pixels = (long)width * height;
  unsigned char *img = (unsigned char *)malloc(pixels);
  unsigned char *eq = (unsigned char *)malloc(pixels);
  float *u = (float *)malloc(sizeof(float) * n);
  float *v = (float *)malloc(sizeof(float) * n);
  unsigned int hist[BINS], hist_ref[BINS];
  unsigned int *hist2d = (unsigned int *)malloc(sizeof(unsigned int) * BINS2D * BINS2D);
  unsigned int *hist2d_ref = (unsigned int *)calloc(BINS2D * BINS2D, sizeof(unsigned int));
  unsigned char lut[BINS], lut_ref[BINS];

  bench_srand(4);
  for (long p = 0; p < pixels; p++) {
    unsigned int r = bench_rand_u32();
    img[p] = (unsigned char)(((r & 0xFF) + ((r >> 8) & 0xFF)) / 2);
  }
  for (int i = 0; i < n; i++) {
    u[i] = bench_rand_float(-1, 1) + bench_rand_float(-1, 1);
    v[i] = 0.5f * u[i] + bench_rand_float(-1, 1);
  }

  double t0 = wall_time();
  memset(hist_ref, 0, sizeof hist_ref);
  for (long p = 0; p < pixels; p++)
    hist_ref[img[p]]++;
  build_lut(hist_ref, pixels, lut_ref);
  for (int i = 0; i < n; i++) {
    int bu = (int)floorf((u[i] - LO) / (HI - LO) * BINS2D);
    int bv = (int)floorf((v[i] - LO) / (HI - LO) * BINS2D);
    bu = bu < 0 ? 0 : (bu > BINS2D - 1 ? BINS2D - 1 : bu);
    bv = bv < 0 ? 0 : (bv > BINS2D - 1 ? BINS2D - 1 : bv);
    hist2d_ref[bu * BINS2D + bv]++;
  }
  print_cpu_time(wall_time() - t0);

  unsigned char *d_img, *d_eq, *d_lut;
  unsigned int *d_hist, *d_hist2d;
  float *d_u, *d_v;
  CUDA_CHECK(cudaMalloc(&d_img, pixels));
  CUDA_CHECK(cudaMalloc(&d_eq, pixels));
  CUDA_CHECK(cudaMalloc(&d_lut, BINS));
  CUDA_CHECK(cudaMalloc(&d_hist, sizeof(unsigned int) * BINS));
  CUDA_CHECK(cudaMalloc(&d_hist2d, sizeof(unsigned int) * BINS2D * BINS2D));
  CUDA_CHECK(cudaMalloc(&d_u, sizeof(float) * n));
  CUDA_CHECK(cudaMalloc(&d_v, sizeof(float) * n));
  CUDA_CHECK(cudaMemcpy(d_img, img, pixels, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_u, u, sizeof(float) * n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_v, v, sizeof(float) * n, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)width) / ((float)block.x)),
            (size_t)ceil(((float)height) / ((float)block.y)));
  dim3 block1(256);
  dim3 grid1((size_t)ceil(((float)n) / ((float)block1.x)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));

  CUDA_CHECK(cudaMemset(d_hist, 0, sizeof(unsigned int) * BINS));
  histogram_kernel<<<grid, block>>>(d_img, d_hist, width, height);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaMemcpy(hist, d_hist, sizeof(unsigned int) * BINS, cudaMemcpyDeviceToHost));
  build_lut(hist, pixels, lut);
  CUDA_CHECK(cudaMemcpy(d_lut, lut, BINS, cudaMemcpyHostToDevice));
  equalize_kernel<<<grid, block>>>(d_img, d_eq, d_lut, width, height);
  CUDA_CHECK_KERNEL();

  CUDA_CHECK(cudaMemset(d_hist2d, 0, sizeof(unsigned int) * BINS2D * BINS2D));
  histogram2d_kernel<<<grid1, block1>>>(d_u, d_v, d_hist2d, n);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());

  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(eq, d_eq, pixels, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hist2d, d_hist2d, sizeof(unsigned int) * BINS2D * BINS2D,
                        cudaMemcpyDeviceToHost));

  long bad = check_equal("histogram", hist, hist_ref, BINS);
  bad += check_equal("lut", lut, lut_ref, BINS);
  long eq_bad = 0;
  for (long p = 0; p < pixels; p++)
    if (eq[p] != lut_ref[img[p]])
      eq_bad++;
  printf("check equalised image: %ld pixels, %ld different\n", pixels, eq_bad);
  bad += eq_bad;
  bad += check_equal("histogram2d", hist2d, hist2d_ref, BINS2D * BINS2D);

  cudaFree(d_img); cudaFree(d_eq); cudaFree(d_lut);
  cudaFree(d_hist); cudaFree(d_hist2d); cudaFree(d_u); cudaFree(d_v);
  free(img); free(eq); free(u); free(v); free(hist2d); free(hist2d_ref);
  return finish(bad);
}
