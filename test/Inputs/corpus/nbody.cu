// All-pairs N-body forces with float4 tiles in shared memory.
#include <cuda_runtime.h>
#include "include/vec_math.cuh"

namespace sim {
namespace physics {

constexpr float kSoftening = 1e-9f;
constexpr int kTile = 128;

struct Body {
  float4 pos; // xyz = position, w = mass
  float4 vel;
};

__device__ float3 body_body(float4 bi, float4 bj, float3 ai) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = dot(r, r) + kSoftening;
  float inv = rsqrtf(dist2);
  float s = bj.w * inv * inv * inv;
  return ai + s * r;
}

__global__ void nbody_forces(const Body *__restrict__ bodies, float3 *__restrict__ acc,
                             int n) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? bodies[i].pos : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int t = 0; t < n; t += kTile) {
    int j = t + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j].pos : make_float4(0, 0, 0, 0);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile; ++k)
      a = body_body(me, tile[k], a);
    __syncthreads();
  }
  if (i < n)
    acc[i] = a;
}

__global__ void integrate(Body *bodies, const float3 *acc, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Body b = bodies[i];
  b.vel.x += acc[i].x * dt;
  b.vel.y += acc[i].y * dt;
  b.vel.z += acc[i].z * dt;
  b.pos.x += b.vel.x * dt;
  b.pos.y += b.vel.y * dt;
  b.pos.z += b.vel.z * dt;
  bodies[i] = b;
}

} // namespace physics
} // namespace sim

void step(sim::physics::Body *b, float3 *a, int n) {
  sim::physics::nbody_forces<<<(n + 127) / 128, sim::physics::kTile>>>(b, a, n);
  sim::physics::integrate<<<(n + 255) / 256, 256>>>(b, a, 0.01f, n);
}
