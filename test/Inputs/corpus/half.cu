// Half precision: paired __half2 arithmetic, conversions, accumulation
// traits (half inputs accumulate in float).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include "include/activations.cuh"

template <typename T> struct Accum { using type = T; };
template <> struct Accum<__half> { using type = float; };

template <typename T> __device__ inline float to_float(T v) { return float(v); }
template <> __device__ inline float to_float<__half>(__half v) { return __half2float(v); }

__global__ void haxpy(int n, __half a, const __half2 *__restrict__ x,
                      __half2 *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 a2 = __half2half2(a);
  if (i < n / 2)
    y[i] = __hfma2(a2, x[i], y[i]);
}

__global__ void convert_f32_to_f16(const float *in, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __float2half_rn(in[i]);
}

template <typename T>
__global__ void mean_abs(const T *in, float *out, int n) {
  typename Accum<T>::type acc = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    acc += fabsf(to_float(in[i]));
  atomicAdd(out, float(acc) / n);
}

__global__ void gelu_half(__half *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = __float2half(nn::gelu(__half2float(data[i])));
}

void half_ops(__half *h, float *f, int n) {
  haxpy<<<(n / 2 + 255) / 256, 256>>>(n, __float2half(2.0f),
                                       reinterpret_cast<__half2 *>(h),
                                       reinterpret_cast<__half2 *>(h));
  convert_f32_to_f16<<<(n + 255) / 256, 256>>>(f, h, n);
  mean_abs<__half><<<1, 256>>>(h, f, n);
  mean_abs<float><<<1, 256>>>(f, f, n);
  gelu_half<<<(n + 255) / 256, 256>>>(h, n);
  nn::bias_activation<nn::Activation::Gelu><<<dim3(4, n), 256>>>(f, f, n, 256);
  nn::bias_activation<nn::Activation::Relu><<<dim3(4, n), 256>>>(f, f, n, 256);
}
