// Small vector math used by the physics and geometry kernels.
#pragma once
#include <cuda_runtime.h>

__host__ __device__ inline float3 operator+(float3 a, float3 b) {
  return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}
__host__ __device__ inline float3 operator-(float3 a, float3 b) {
  return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ inline float3 operator*(float s, float3 a) {
  return make_float3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ inline float dot(float3 a, float3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <typename T>
__host__ __device__ inline T clamp_value(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

namespace geo {
struct Vec2 {
  float x, y;
  __host__ __device__ Vec2 rotated(float s, float c) const {
    return {c * x - s * y, s * x + c * y};
  }
  __host__ __device__ float norm2() const { return x * x + y * y; }
};
} // namespace geo
