// Device code is what nvcc compiles for the device. Clang makes lambdas and
// constexpr functions implicitly __host__ __device__; a lambda in a host
// function (a CPU reference run on std::thread, as in real programs) and a
// constexpr function written without __device__ are host code, and no
// device rule reports there. A lambda inside a kernel is device code.
// The size estimate alone decides about unrolling here (CompareCode off:
// NVRTC unrolls the kernel's loop by itself, by 4 or more).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'CheckOptions:\n  unrolling-constant-trip.CompareCode: false\n' > %t/c.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/c.yaml --rules='-*,unrolling-constant-trip,algebraic-division-constant' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{: warning:}}'
#include <cuda_runtime.h>

void cpu_reference(const float *in, float *out, int n, int threads) {
  auto work = [=](int t) {
    for (int r = t; r < n; r += threads) {
      float w = 0.0f;
      for (int j = 0; j < 64; j++)
        w += in[r * 64 + j] / 4.0f * in[r + j] + in[r * 2 + j] * in[j];
      out[r] = w;
    }
  };
  for (int t = 0; t < threads; ++t)
    work(t);
}

constexpr float quarter_sum(const float *v) {
  float s = 0;
  for (int j = 0; j < 4; j++)
    s += v[j] / 4.0f;
  return s;
}

__global__ void in_kernel(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto scaled = [&](int k) { return in[k] / 4.0f; };
  // CHECK: host-lambda.cu:[[@LINE-1]]:{{[0-9]+}}: warning: {{.*}}[algebraic-division-constant]
  float w = 0.0f;
  for (int j = 0; j < 64; j++)
    w += scaled(i * 64 + j) * scaled(i * 64 + j + 1) + scaled(i + j);
  // CHECK: host-lambda.cu:[[@LINE-2]]:{{[0-9]+}}: warning: {{.*}}[unrolling-constant-trip]
  out[i] = w;
}
