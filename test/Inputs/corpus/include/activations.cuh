// Activation functions: an enum selects one at compile time.
#pragma once
#include <cuda_runtime.h>

namespace nn {

enum class Activation { Identity, Relu, Sigmoid, Gelu };

__device__ inline float sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

__device__ inline float gelu(float x) {
  // tanh approximation
  const float k0 = 0.7978845608f, k1 = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
}

template <Activation A> struct ActivationOp;
template <> struct ActivationOp<Activation::Identity> {
  __device__ float operator()(float x) const { return x; }
};
template <> struct ActivationOp<Activation::Relu> {
  __device__ float operator()(float x) const { return fmaxf(x, 0.0f); }
};
template <> struct ActivationOp<Activation::Sigmoid> {
  __device__ float operator()(float x) const { return sigmoid(x); }
};
template <> struct ActivationOp<Activation::Gelu> {
  __device__ float operator()(float x) const { return gelu(x); }
};

template <Activation A>
__global__ void bias_activation(float *__restrict__ y, const float *__restrict__ bias,
                                int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y;
  if (r < rows && c < cols)
    y[r * cols + c] = ActivationOp<A>()(y[r * cols + c] + bias[c]);
}

} // namespace nn
