// Array of structures (strided field loads) versus structure of arrays.
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
  advance_soa<<<(n + 255) / 256, 256>>>(x, y, z, vx, vy, vz, 0.01f, n);
}

// CHECK-MESSAGES: aos-soa.cu:13:10: warning: strided global read-modify-write: consecutive threads are 6 elements apart; a warp request{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:13:20: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:14:10: warning: strided global read-modify-write: consecutive threads are 6 elements apart; a warp request{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:14:20: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:15:10: warning: strided global read-modify-write: consecutive threads are 6 elements apart; a warp request{{.*}} [coalescing-strided-access]
// CHECK-MESSAGES: aos-soa.cu:15:20: warning: strided global load: consecutive threads are 6 elements apart; a warp request touches 24 3{{.*}} [coalescing-strided-access]
