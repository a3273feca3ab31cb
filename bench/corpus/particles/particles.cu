// particles: NPARTICLES charged particles moving in the field of NATTRACTORS
// fixed attractors, STEPS explicit Euler steps, simulated twice: with an
// array of structures (struct Particle) and with a structure of arrays;
// the kinetic energy is summed with atomics every 10 steps.
//
// Check: positions and velocities of both layouts against one CPU reference
// in double (rtol 1e-4 + atol 1e-5), energies with rtol 1e-3 (float
// atomics).
#include "../common/bench_common.h"
#include "particles.h"

__global__ void aos_step_kernel(Particle *p, float *attractors, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ax = 0, ay = 0, az = 0;
    for (int a = 0; a < NATTRACTORS; a++) {
      float dx = attractors[4 * a + 0] - p[i].x;
      float dy = attractors[4 * a + 1] - p[i].y;
      float dz = attractors[4 * a + 2] - p[i].z;
      float r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
      float f = attractors[4 * a + 3] * p[i].charge / (r2 * sqrtf(r2));
      ax += f * dx / p[i].mass;
      ay += f * dy / p[i].mass;
      az += f * dz / p[i].mass;
    }
    p[i].vx += ax * DT;
    p[i].vy += ay * DT;
    p[i].vz += az * DT;
    p[i].x += p[i].vx * DT;
    p[i].y += p[i].vy * DT;
    p[i].z += p[i].vz * DT;
  }
}

__global__ void soa_step_kernel(float *x, float *y, float *z, float *vx, float *vy, float *vz,
                                float *mass, float *charge, float *attractors, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ax = 0, ay = 0, az = 0;
    for (int a = 0; a < NATTRACTORS; a++) {
      float dx = attractors[4 * a + 0] - x[i];
      float dy = attractors[4 * a + 1] - y[i];
      float dz = attractors[4 * a + 2] - z[i];
      float r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
      float f = attractors[4 * a + 3] * charge[i] / (r2 * sqrtf(r2));
      ax += f * dx / mass[i];
      ay += f * dy / mass[i];
      az += f * dz / mass[i];
    }
    vx[i] += ax * DT;
    vy[i] += ay * DT;
    vz[i] += az * DT;
    x[i] += vx[i] * DT;
    y[i] += vy[i] * DT;
    z[i] += vz[i] * DT;
  }
}

__global__ void aos_energy_kernel(Particle *p, float *energy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(energy, 0.5 * p[i].mass *
                          (powf(p[i].vx, 2.0f) + powf(p[i].vy, 2.0f) + powf(p[i].vz, 2.0f)));
}

__global__ void soa_energy_kernel(float *vx, float *vy, float *vz, float *mass, float *energy,
                                  int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(energy, 0.5 * mass[i] * (powf(vx[i], 2.0f) + powf(vy[i], 2.0f) + powf(vz[i], 2.0f)));
}

struct RefState {
  double *x, *y, *z, *vx, *vy, *vz;
};

void simulate_cpu(int n, int steps, const Particle *p0, const float *attr, RefState s,
                  double *energy) {
  for (int i = 0; i < n; i++) {
    s.x[i] = p0[i].x; s.y[i] = p0[i].y; s.z[i] = p0[i].z;
    s.vx[i] = p0[i].vx; s.vy[i] = p0[i].vy; s.vz[i] = p0[i].vz;
  }
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++) {
      double ax = 0, ay = 0, az = 0;
      for (int a = 0; a < NATTRACTORS; a++) {
        double dx = attr[4 * a] - s.x[i], dy = attr[4 * a + 1] - s.y[i], dz = attr[4 * a + 2] - s.z[i];
        double r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
        double f = attr[4 * a + 3] * p0[i].charge / (r2 * sqrt(r2));
        ax += f * dx / p0[i].mass;
        ay += f * dy / p0[i].mass;
        az += f * dz / p0[i].mass;
      }
      s.vx[i] += ax * DT; s.vy[i] += ay * DT; s.vz[i] += az * DT;
      s.x[i] += s.vx[i] * DT; s.y[i] += s.vy[i] * DT; s.z[i] += s.vz[i] * DT;
    }
    if ((t + 1) % 10 == 0) {
      double e = 0;
      for (int i = 0; i < n; i++)
        e += 0.5 * p0[i].mass * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
      energy[t / 10] = e;
    }
  }
}

int main() {
  int n = NPARTICLES;
  int nsamples = STEPS / 10;
  Particle *p = (Particle *)malloc(sizeof(Particle) * n);
  float attractors[4 * NATTRACTORS] = {0.5f, 0.5f, 0.0f, 1.0f,  -0.5f, 0.3f, 0.2f, 2.0f,
                                       0.0f, -0.6f, 0.4f, 1.5f, 0.2f, 0.1f, -0.7f, -1.0f};
  bench_srand(21);
  for (int i = 0; i < n; i++) {
    p[i].x = bench_rand_float(-1, 1);
    p[i].y = bench_rand_float(-1, 1);
    p[i].z = bench_rand_float(-1, 1);
    p[i].vx = bench_rand_float(-0.1f, 0.1f);
    p[i].vy = bench_rand_float(-0.1f, 0.1f);
    p[i].vz = bench_rand_float(-0.1f, 0.1f);
    p[i].mass = bench_rand_float(0.5f, 2.0f);
    p[i].charge = bench_rand_float(-1, 1);
  }
  // the same particles, structure of arrays
  float *soa[8];
  for (int f = 0; f < 8; f++) {
    soa[f] = (float *)malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++)
      soa[f][i] = ((float *)&p[i])[f];
  }

  RefState ref;
  double **fields[6] = {&ref.x, &ref.y, &ref.z, &ref.vx, &ref.vy, &ref.vz};
  for (int f = 0; f < 6; f++)
    *fields[f] = (double *)malloc(sizeof(double) * n);
  double energy_ref[STEPS / 10 + 1];
  double t0 = wall_time();
  simulate_cpu(n, STEPS, p, attractors, ref, energy_ref);
  print_cpu_time(wall_time() - t0);

  Particle *d_p;
  float *d_soa[8], *d_attr, *d_energy;
  CUDA_CHECK(cudaMalloc(&d_p, sizeof(Particle) * n));
  CUDA_CHECK(cudaMemcpy(d_p, p, sizeof(Particle) * n, cudaMemcpyHostToDevice));
  for (int f = 0; f < 8; f++) {
    CUDA_CHECK(cudaMalloc(&d_soa[f], sizeof(float) * n));
    CUDA_CHECK(cudaMemcpy(d_soa[f], soa[f], sizeof(float) * n, cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMalloc(&d_attr, sizeof(attractors)));
  CUDA_CHECK(cudaMemcpy(d_attr, attractors, sizeof(attractors), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&d_energy, sizeof(float) * 2 * (nsamples + 1)));
  CUDA_CHECK(cudaMemset(d_energy, 0, sizeof(float) * 2 * (nsamples + 1)));

  dim3 block(256);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int t = 0; t < STEPS; t++) {
    aos_step_kernel<<<grid, block>>>(d_p, d_attr, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    soa_step_kernel<<<grid, block>>>(d_soa[0], d_soa[1], d_soa[2], d_soa[3], d_soa[4], d_soa[5],
                                     d_soa[6], d_soa[7], d_attr, n);
    CUDA_CHECK(cudaDeviceSynchronize());
    if ((t + 1) % 10 == 0) {
      aos_energy_kernel<<<grid, block>>>(d_p, d_energy + 2 * (t / 10), n);
      soa_energy_kernel<<<grid, block>>>(d_soa[3], d_soa[4], d_soa[5], d_soa[6],
                                         d_energy + 2 * (t / 10) + 1, n);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  float energy[2 * (STEPS / 10 + 1)];
  CUDA_CHECK(cudaMemcpy(p, d_p, sizeof(Particle) * n, cudaMemcpyDeviceToHost));
  for (int f = 0; f < 6; f++)
    CUDA_CHECK(cudaMemcpy(soa[f], d_soa[f], sizeof(float) * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(energy, d_energy, sizeof(float) * 2 * (nsamples + 1), cudaMemcpyDeviceToHost));

  const char *names[6] = {"x", "y", "z", "vx", "vy", "vz"};
  float *aos_field = (float *)malloc(sizeof(float) * n);
  long bad = 0;
  char what[32];
  for (int f = 0; f < 6; f++) {
    for (int i = 0; i < n; i++)
      aos_field[i] = ((float *)&p[i])[f];
    snprintf(what, sizeof what, "aos %s", names[f]);
    bad += check_close(what, aos_field, *fields[f], n, 1e-4, 1e-5);
    snprintf(what, sizeof what, "soa %s", names[f]);
    bad += check_close(what, soa[f], *fields[f], n, 1e-4, 1e-5);
  }
  for (int s = 0; s < nsamples; s++) {
    printf("step %d: kinetic energy %g (aos) %g (soa) %g (cpu)\n", 10 * (s + 1), energy[2 * s],
           energy[2 * s + 1], energy_ref[s]);
    bad += check_close("aos energy", &energy[2 * s], &energy_ref[s], 1, 1e-3, 0.0);
    bad += check_close("soa energy", &energy[2 * s + 1], &energy_ref[s], 1, 1e-3, 0.0);
  }

  cudaFree(d_p);
  for (int f = 0; f < 8; f++) {
    cudaFree(d_soa[f]);
    free(soa[f]);
  }
  for (int f = 0; f < 6; f++)
    free(*fields[f]);
  cudaFree(d_attr);
  cudaFree(d_energy);
  free(p);
  free(aos_field);
  return finish(bad);
}
