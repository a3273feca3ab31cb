// nbody: all-pairs gravitational N-body, STEPS steps: one kernel computes
// the acceleration of every body from all others (one thread per body), a
// second integrates velocities and positions.
//
// Check: positions and velocities against the same steps on the CPU in
// double; tolerance rtol 1e-3 + atol 1e-5.
#include "../common/bench_common.h"

#ifndef NBODIES
#define NBODIES 4096
#endif
#ifndef STEPS
#define STEPS 10
#endif
#define EPS2 0.01f
#define DT 0.01f
#define G 1.0

__global__ void accel_kernel(float *x, float *y, float *z, float *m, float *ax, float *ay,
                             float *az, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    ax[i] = 0.0f;
    ay[i] = 0.0f;
    az[i] = 0.0f;
    for (int j = 0; j < n; j++) {
      float dx = x[j] - x[i];
      float dy = y[j] - y[i];
      float dz = z[j] - z[i];
      float dist2 = dx * dx + dy * dy + dz * dz + EPS2;
      float s = G * m[j] / powf(dist2, 1.5f);
      ax[i] += dx * s;
      ay[i] += dy * s;
      az[i] += dz * s;
    }
  }
}

__global__ void integrate_kernel(float *x, float *y, float *z, float *vx, float *vy, float *vz,
                                 float *ax, float *ay, float *az, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    vx[i] += ax[i] * DT;
    vy[i] += ay[i] * DT;
    vz[i] += az[i] * DT;
    x[i] += vx[i] * DT;
    y[i] += vy[i] * DT;
    z[i] += vz[i] * DT;
  }
}

void nbody_cpu(int n, int steps, double *x, double *y, double *z, double *vx, double *vy,
               double *vz, const float *m) {
  double *ax = (double *)malloc(sizeof(double) * n);
  double *ay = (double *)malloc(sizeof(double) * n);
  double *az = (double *)malloc(sizeof(double) * n);
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++) {
      double sx = 0, sy = 0, sz = 0;
      for (int j = 0; j < n; j++) {
        double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        double d2 = dx * dx + dy * dy + dz * dz + EPS2;
        double s = G * m[j] / (d2 * sqrt(d2));
        sx += dx * s;
        sy += dy * s;
        sz += dz * s;
      }
      ax[i] = sx;
      ay[i] = sy;
      az[i] = sz;
    }
    for (int i = 0; i < n; i++) {
      vx[i] += ax[i] * DT;
      vy[i] += ay[i] * DT;
      vz[i] += az[i] * DT;
      x[i] += vx[i] * DT;
      y[i] += vy[i] * DT;
      z[i] += vz[i] * DT;
    }
  }
  free(ax);
  free(ay);
  free(az);
}

int main() {
  int n = NBODIES;
  float *h[7];
  double *ref[6];
  for (int f = 0; f < 7; f++)
    h[f] = (float *)malloc(sizeof(float) * n);
  for (int f = 0; f < 6; f++)
    ref[f] = (double *)malloc(sizeof(double) * n);
  float *x = h[0], *y = h[1], *z = h[2], *vx = h[3], *vy = h[4], *vz = h[5], *m = h[6];
  bench_srand(6);
  for (int i = 0; i < n; i++) {
    // a uniform ball of radius 1, slowly rotating
    float px, py, pz;
    do {
      px = bench_rand_float(-1, 1);
      py = bench_rand_float(-1, 1);
      pz = bench_rand_float(-1, 1);
    } while (px * px + py * py + pz * pz > 1.0f);
    x[i] = px; y[i] = py; z[i] = pz;
    vx[i] = -0.2f * py; vy[i] = 0.2f * px; vz[i] = 0.0f;
    m[i] = bench_rand_float(0.5f, 1.5f) / n;
  }
  for (int f = 0; f < 6; f++)
    for (int i = 0; i < n; i++)
      ref[f][i] = h[f][i];

  double t0 = wall_time();
  nbody_cpu(n, STEPS, ref[0], ref[1], ref[2], ref[3], ref[4], ref[5], m);
  print_cpu_time(wall_time() - t0);

  float *d[10];
  for (int f = 0; f < 10; f++)
    CUDA_CHECK(cudaMalloc(&d[f], sizeof(float) * n));
  for (int f = 0; f < 7; f++)
    CUDA_CHECK(cudaMemcpy(d[f], h[f], sizeof(float) * n, cudaMemcpyHostToDevice));

  dim3 block(128);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int t = 0; t < STEPS; t++) {
    accel_kernel<<<grid, block>>>(d[0], d[1], d[2], d[6], d[7], d[8], d[9], n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    integrate_kernel<<<grid, block>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[7], d[8], d[9], n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  printf("interactions per second: %.3g\n", (double)n * n * STEPS / (ms * 1e-3));

  for (int f = 0; f < 6; f++)
    CUDA_CHECK(cudaMemcpy(h[f], d[f], sizeof(float) * n, cudaMemcpyDeviceToHost));
  const char *names[6] = {"x", "y", "z", "vx", "vy", "vz"};
  long bad = 0;
  for (int f = 0; f < 6; f++)
    bad += check_close(names[f], h[f], ref[f], n, 1e-3, 1e-5);

  for (int f = 0; f < 10; f++)
    cudaFree(d[f]);
  for (int f = 0; f < 7; f++)
    free(h[f]);
  for (int f = 0; f < 6; f++)
    free(ref[f]);
  return finish(bad);
}
