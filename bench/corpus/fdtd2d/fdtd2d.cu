// fdtd2d: 2-D finite-difference time-domain (Yee scheme) for the fields
// ex, ey, hz on an NX x NY grid, TMAX time steps of three kernels, with a
// source value injected on the first row every step.
//
// Check: hz, ex and ey against the same steps on the CPU in double;
// tolerance rtol 1e-3 + atol 1e-5 * max|field| (the fields grow to ~NY; a
// value that cancels to near zero carries the rounding of its large terms).
#include "../common/bench_common.h"

#ifndef NX
#define NX 2048
#endif
#ifndef NY
#define NY 2048
#endif
#ifndef TMAX
#define TMAX 50
#endif
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

__global__ void fdtd_ey_kernel(DATA_TYPE *source, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz,
                               int t, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < nx) && (j < ny)) {
    if (i == 0)
      ey[i * ny + j] = source[t];
    else
      ey[i * ny + j] = ey[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__global__ void fdtd_ex_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < nx) && (j < ny) && (j > 0)) {
    ex[i * ny + j] = ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
  }
}

__global__ void fdtd_hz_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < (nx - 1)) && (j < (ny - 1))) {
    hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * ny + (j + 1)] - ex[i * ny + j] +
                                             ey[(i + 1) * ny + j] - ey[i * ny + j]);
  }
}

void init_fields(int nx, int ny, int tmax, DATA_TYPE *source, DATA_TYPE *ex, DATA_TYPE *ey,
                 DATA_TYPE *hz) {
  for (int t = 0; t < tmax; t++)
    source[t] = (DATA_TYPE)t;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      ex[i * ny + j] = ((DATA_TYPE)i * (j + 1) + 1) / nx;
      ey[i * ny + j] = ((DATA_TYPE)(i - 1) * (j + 2) + 2) / nx;
      hz[i * ny + j] = ((DATA_TYPE)(i - 9) * (j + 4) + 3) / nx;
    }
}

void fdtd_cpu(int nx, int ny, int tmax, const DATA_TYPE *source, double *ex, double *ey,
              double *hz) {
  for (int t = 0; t < tmax; t++) {
    for (int j = 0; j < ny; j++)
      ey[j] = source[t];
    for (int i = 1; i < nx; i++)
      for (int j = 0; j < ny; j++)
        ey[i * ny + j] = (float)(ey[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]));
    for (int i = 0; i < nx; i++)
      for (int j = 1; j < ny; j++)
        ex[i * ny + j] = (float)(ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]));
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny - 1; j++)
        hz[i * ny + j] = (float)(hz[i * ny + j] - 0.7 * (ex[i * ny + j + 1] - ex[i * ny + j] +
                                                         ey[(i + 1) * ny + j] - ey[i * ny + j]));
  }
}

void run_fdtd(int nx, int ny, int tmax, DATA_TYPE *source, DATA_TYPE *ex, DATA_TYPE *ey,
              DATA_TYPE *hz) {
  DATA_TYPE *source_gpu, *ex_gpu, *ey_gpu, *hz_gpu;
  size_t field = sizeof(DATA_TYPE) * nx * ny;
  CUDA_CHECK(cudaMalloc((void **)&source_gpu, sizeof(DATA_TYPE) * tmax));
  CUDA_CHECK(cudaMalloc((void **)&ex_gpu, field));
  CUDA_CHECK(cudaMalloc((void **)&ey_gpu, field));
  CUDA_CHECK(cudaMalloc((void **)&hz_gpu, field));
  CUDA_CHECK(cudaMemcpy(source_gpu, source, sizeof(DATA_TYPE) * tmax, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ex_gpu, ex, field, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ey_gpu, ey, field, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(hz_gpu, hz, field, cudaMemcpyHostToDevice));

  dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
  dim3 grid((size_t)ceil(((float)nx) / ((float)block.x)), (size_t)ceil(((float)ny) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int t = 0; t < tmax; t++) {
    fdtd_ey_kernel<<<grid, block>>>(source_gpu, ex_gpu, ey_gpu, hz_gpu, t, nx, ny);
    CUDA_CHECK(cudaDeviceSynchronize());
    fdtd_ex_kernel<<<grid, block>>>(ex_gpu, ey_gpu, hz_gpu, nx, ny);
    CUDA_CHECK(cudaDeviceSynchronize());
    fdtd_hz_kernel<<<grid, block>>>(ex_gpu, ey_gpu, hz_gpu, nx, ny);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(ex, ex_gpu, field, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(ey, ey_gpu, field, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hz, hz_gpu, field, cudaMemcpyDeviceToHost));
  cudaFree(source_gpu);
  cudaFree(ex_gpu);
  cudaFree(ey_gpu);
  cudaFree(hz_gpu);
}

int main() {
  int nx = NX, ny = NY, tmax = TMAX;
  long cells = (long)nx * ny;
  DATA_TYPE *source = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * tmax);
  DATA_TYPE *ex = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * cells);
  DATA_TYPE *ey = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * cells);
  DATA_TYPE *hz = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * cells);
  double *ex_ref = (double *)malloc(sizeof(double) * cells);
  double *ey_ref = (double *)malloc(sizeof(double) * cells);
  double *hz_ref = (double *)malloc(sizeof(double) * cells);
  init_fields(nx, ny, tmax, source, ex, ey, hz);
  for (long x = 0; x < cells; x++) {
    ex_ref[x] = ex[x];
    ey_ref[x] = ey[x];
    hz_ref[x] = hz[x];
  }

  double t0 = wall_time();
  fdtd_cpu(nx, ny, tmax, source, ex_ref, ey_ref, hz_ref);
  print_cpu_time(wall_time() - t0);

  run_fdtd(nx, ny, tmax, source, ex, ey, hz);

  double scale_ex = 0, scale_ey = 0, scale_hz = 0;
  for (long x = 0; x < cells; x++) {
    scale_ex = fmax(scale_ex, fabs(ex_ref[x]));
    scale_ey = fmax(scale_ey, fabs(ey_ref[x]));
    scale_hz = fmax(scale_hz, fabs(hz_ref[x]));
  }
  long bad = check_close("ex", ex, ex_ref, cells, 1e-3, 1e-5 * scale_ex);
  bad += check_close("ey", ey, ey_ref, cells, 1e-3, 1e-5 * scale_ey);
  bad += check_close("hz", hz, hz_ref, cells, 1e-3, 1e-5 * scale_hz);
  free(source);
  free(ex); free(ey); free(hz);
  free(ex_ref); free(ey_ref); free(hz_ref);
  return finish(bad);
}
