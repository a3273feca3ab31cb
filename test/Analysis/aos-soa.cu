// Array of structures (strided field loads) versus structure of arrays.
// All fields of a struct read together share their sectors (no finding).
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error}}:'
#include <cuda_runtime.h>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};

__global__ void advance_aos(Particle *__restrict__ p, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}

// Reads 3 of the 6 fields: half of every fetched sector is wasted.
__global__ void kinetic_aos(const Particle *__restrict__ p,
                            float *__restrict__ e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = 0.5f * (p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz);
}

// Reads only x: 4 of every 24 bytes.
__global__ void positions_x(const Particle *__restrict__ p,
                            float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = p[i].x;
}

struct Particles {
  float *x, *y, *z;
  const float *vx, *vy, *vz;
};

__global__ void advance_soa(float *__restrict__ x, float *__restrict__ y,
                            float *__restrict__ z,
                            const float *__restrict__ vx,
                            const float *__restrict__ vy,
                            const float *__restrict__ vz, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}

void launch(Particle *p, float *x, float *y, float *z, const float *vx,
            const float *vy, const float *vz, int n) {
  advance_aos<<<(n + 255) / 256, 256>>>(p, 0.01f, n);
  kinetic_aos<<<(n + 255) / 256, 256>>>(p, x, n);
  positions_x<<<(n + 255) / 256, 256>>>(p, x, n);
  advance_soa<<<(n + 255) / 256, 256>>>(x, y, z, vx, vy, vz, 0.01f, n);
}

// CHECK-MESSAGES: aos-soa.cu:25:25: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:33:17: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
