// Linkage and scope variants: extern "C" kernels, a kernel with internal
// linkage, math constants, a struct with a host-only member, host code that
// must never be copied.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <string>
#include <vector>
#include "include/vec_math.cuh"

static const float kTwoPi = 2.0f * CUDART_PI_F;
int g_host_counter = 0; // host variable: never used by device code

struct Polar {
  float r, theta;
  __device__ float2 cartesian() const {
    float s, c;
    __sincosf(theta, &s, &c);
    return make_float2(r * c, r * s);
  }
  std::string to_string() const { return std::to_string(r) + "," + std::to_string(theta); }
};

extern "C" __global__ void polar_to_cartesian(const Polar *in, float2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i].cartesian();
}

extern "C" {
__global__ void wrap_angles(float *theta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    theta[i] = fmodf(theta[i], kTwoPi);
}
}

namespace {
__global__ void rotate_points(geo::Vec2 *pts, int n, float angle) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s, c;
  sincosf(angle, &s, &c);
  if (i < n)
    pts[i] = pts[i].rotated(s, c);
}
} // namespace

void host_side(std::vector<Polar> &v, float2 *out, geo::Vec2 *pts) {
  ++g_host_counter;
  polar_to_cartesian<<<1, 256>>>(nullptr, out, int(v.size()));
  wrap_angles<<<1, 256>>>(nullptr, 0);
  rotate_points<<<1, 256>>>(pts, 256, 0.5f);
}
