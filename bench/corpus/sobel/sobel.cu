// sobel: edge detection on an RGB 8-bit image: grey conversion, Sobel
// gradient magnitude (3x3 operators in local arrays), thresholding into an
// edge map, and counting the edge pixels with atomics. REPS times.
//
// Check: grey (rtol 1e-5 + atol 1e-4) and magnitude (rtol 1e-5 + atol 1e-3),
// each from the GPU's previous stage, against the CPU in double; edge map
// exactly except where the magnitude is within 1e-2 of the threshold; the
// count must match the edge map.
#include "../common/bench_common.h"

#ifndef WIDTH
#define WIDTH 4096
#endif
#ifndef HEIGHT
#define HEIGHT 4096
#endif
#ifndef REPS
#define REPS 5
#endif
#define THRESHOLD 100.0f

__global__ void rgb_to_gray_kernel(unsigned char *rgb, float *gray, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    int idx = y * width + x;
    gray[idx] = 0.299 * rgb[idx * 3] + 0.587 * rgb[idx * 3 + 1] + 0.114 * rgb[idx * 3 + 2];
  }
}

__global__ void sobel_kernel(float *gray, float *mag, unsigned char *edges, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  int gy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  if (x < width && y < height) {
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
      mag[y * width + x] = 0;
      edges[y * width + x] = 0;
      return;
    }
    float sx = 0, sy = 0;
    for (int i = -1; i <= 1; i++) {
      for (int j = -1; j <= 1; j++) {
        sx += gx[i + 1][j + 1] * gray[(y + i) * width + (x + j)];
        sy += gy[i + 1][j + 1] * gray[(y + i) * width + (x + j)];
      }
    }
    mag[y * width + x] = sqrt(powf(sx, 2) + powf(sy, 2));
    if (mag[y * width + x] > THRESHOLD)
      edges[y * width + x] = 255;
    else
      edges[y * width + x] = 0;
  }
}

__global__ void count_edges_kernel(unsigned char *edges, int *count, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height && edges[y * width + x] == 255)
    atomicAdd(count, 1);
}

int main() {
  int width = WIDTH, height = HEIGHT;
  long pixels = (long)width * height;
  unsigned char *rgb = (unsigned char *)malloc(pixels * 3);
  unsigned char *edges = (unsigned char *)malloc(pixels);
  float *gray = (float *)malloc(sizeof(float) * pixels);
  float *mag = (float *)malloc(sizeof(float) * pixels);
  // blocks of flat colour with noise: edges along the block borders
  bench_srand(33);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      unsigned int cell = (unsigned int)((x / 64) * 7919 + (y / 48) * 104729);
      for (int c = 0; c < 3; c++) {
        int v = (int)((cell * (c + 3)) % 200) + 20 + (int)(bench_rand_u32() % 21) - 10;
        rgb[((long)y * width + x) * 3 + c] = (unsigned char)v;
      }
    }

  unsigned char *d_rgb, *d_edges;
  float *d_gray, *d_mag;
  int *d_count, count = 0;
  CUDA_CHECK(cudaMalloc(&d_rgb, pixels * 3));
  CUDA_CHECK(cudaMalloc(&d_edges, pixels));
  CUDA_CHECK(cudaMalloc(&d_gray, sizeof(float) * pixels));
  CUDA_CHECK(cudaMalloc(&d_mag, sizeof(float) * pixels));
  CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_rgb, rgb, pixels * 3, cudaMemcpyHostToDevice));

  dim3 threads(32, 8);
  dim3 blocks((size_t)ceil(((float)width) / ((float)threads.x)),
              (size_t)ceil(((float)height) / ((float)threads.y)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    rgb_to_gray_kernel<<<blocks, threads>>>(d_rgb, d_gray, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    sobel_kernel<<<blocks, threads>>>(d_gray, d_mag, d_edges, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));
    count_edges_kernel<<<blocks, threads>>>(d_edges, d_count, width, height);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(gray, d_gray, sizeof(float) * pixels, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(mag, d_mag, sizeof(float) * pixels, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(edges, d_edges, pixels, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));

  double t0 = wall_time();
  double *gray_ref = (double *)malloc(sizeof(double) * pixels);
  double *mag_ref = (double *)malloc(sizeof(double) * pixels);
  for (long p = 0; p < pixels; p++)
    gray_ref[p] = 0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2];
  long edge_bad = 0, map_count = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      long p = (long)y * width + x;
      double m = 0;
      if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
        const float *g = gray + p;
        double sx = (g[-width + 1] + 2.0 * g[1] + g[width + 1]) - (g[-width - 1] + 2.0 * g[-1] + g[width - 1]);
        double sy = (g[width - 1] + 2.0 * g[width] + g[width + 1]) - (g[-width - 1] + 2.0 * g[-width] + g[-width + 1]);
        m = sqrt(sx * sx + sy * sy);
      }
      mag_ref[p] = m;
      int expect = m > THRESHOLD ? 255 : 0;
      if (edges[p] == 255)
        map_count++;
      if (edges[p] != expect && fabs(m - THRESHOLD) > 1e-2)
        edge_bad++;
    }
  print_cpu_time(wall_time() - t0);

  long bad = check_close("gray", gray, gray_ref, pixels, 1e-5, 1e-4);
  bad += check_close("magnitude", mag, mag_ref, pixels, 1e-5, 1e-3);
  printf("check edges: %ld pixels, %ld wrong; %d counted, %ld in the map\n", pixels, edge_bad,
         count, map_count);
  bad += edge_bad + (count != map_count);

  cudaFree(d_rgb); cudaFree(d_edges); cudaFree(d_gray); cudaFree(d_mag); cudaFree(d_count);
  free(rgb); free(edges); free(gray); free(mag); free(gray_ref); free(mag_ref);
  return finish(bad);
}
