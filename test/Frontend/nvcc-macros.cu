// nvcc defines __NVCC__ and __CUDACC_VER_MAJOR__/_MINOR__/_BUILD__; clang
// defines neither (only __CUDACC__). Third-party code tests them: a header
// that includes <cuda.h> under `#ifdef __NVCC__` and <hip/hip_runtime.h>
// otherwise, a complex-number class whose operators are `__host__ __device__`
// only under `#if defined(__NVCC__) || defined(__HIPCC__)`, a warp reduction
// that takes __shfl_down_sync under `#if __CUDACC_VER_MAJOR__ >= 9` and the
// old __shfl_down otherwise, a CUB/thrust iterator chosen by
// `__CUDACC_VER_MAJOR__ >= 13`. The tool defines them as nvcc does (the
// toolkit's version), so it reads the branch nvcc compiles: without them this
// file did not parse (the hipcc include, the host-only operator called from a
// kernel). thrust and CUB still see clang as their compiler.
// RUN: %cuda-l1-rewrite --list-kernels %s | FileCheck %s
// CHECK: 2 kernels, 1 launch site
// CHECK: kernel conj_scale
// CHECK: kernel warp_sum
// The fix applies and the rewritten file compiles with nvcc.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=FIXED %s
// FIXED: applied 1 fix in 1 file
// RUN: grep -q 'Cplx \*__restrict__ out' %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}

#ifndef __NVCC__
#include <hip/hip_runtime.h>
#else
#include <cuda.h>
#endif
#include <thrust/device_vector.h>
#include <cub/cub.cuh>

#if !defined(__CUDACC_VER_MAJOR__) || !defined(__CUDACC_VER_MINOR__) || !defined(__CUDACC_VER_BUILD__)
#error "nvcc's version macros are missing"
#endif
static_assert(__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 == CUDA_VERSION,
              "__CUDACC_VER_* is the toolkit's version");

#if defined(__NVCC__) || defined(__HIPCC__)
#define ESS __host__ __device__
#else
#define ESS
#endif

struct Cplx {
  float x, y;
  ESS Cplx(float a, float b) : x(a), y(b) {}
  ESS friend Cplx conj(const Cplx &c) { return Cplx(c.x, -c.y); }
  ESS friend Cplx operator*(const Cplx &a, const Cplx &b) {
    return Cplx(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
  }
};

__global__ void conj_scale(Cplx *out, const Cplx *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int e = i + 4 * n; i < e && i < n; i += n / 4 + 1)
    out[i] = conj(in[i]) * in[i];
}

__device__ float warp_reduce(float v) {
#if __CUDACC_VER_MAJOR__ >= 9
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
#else
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down(v, o);
#endif
  return v;
}

__global__ void warp_sum(const float *in, float *out) {
  float v = warp_reduce(in[threadIdx.x]);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

int main() {
  int n = 1 << 20;
  Cplx *out, *in;
  cudaMalloc(&out, n * sizeof(Cplx));
  cudaMalloc(&in, n * sizeof(Cplx));
  conj_scale<<<(n + 255) / 256, 256>>>(out, in, n);
  cudaDeviceSynchronize();
  cudaFree(out);
  cudaFree(in);
  return 0;
}
