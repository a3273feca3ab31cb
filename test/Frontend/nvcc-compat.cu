// nvcc's host side has `int min(int, int)`, umin, llmin, ullmin and the max
// ones (crt/math_functions.hpp, outside __CUDA_ARCH__); clang's device-side
// parse, which also checks host code, has only the device versions. The tool
// supplies host versions, so host code that nvcc accepts parses: the kernel
// and its launch are found, the block is evaluated through max(), and
// a fix applied here re-parses (the rewritten file is checked the same way).
// (Seen in a third-party program: `const dim3 grid(min(BLOCK_WIDTH,
// static_cast<int>(roundUpDiv(maxNum, BLOCK_SIZE))));`.)
// Likewise nvcc's scoped-atomic built-ins of CUDA 12.8 (`__nv_atomic_load_n(
// ptr, __NV_ATOMIC_RELAXED)`, seen in four third-party programs' atomicMin on
// floats), which no header declares.
// RUN: %cuda-l1-rewrite --list-kernels %s | FileCheck %s
// CHECK: 2 kernels, 1 launch site
// CHECK: kernel scale
// CHECK: grid: grid (not constant)
// CHECK: block: block = 256
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=FIXED %s
// FIXED: applied 1 fix in 1 file
// RUN: grep -q 'float \*__restrict__ out' %t/t.cu
// The rewritten file still compiles with nvcc.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// A program defining min(int, int) itself is refused by nvcc as well (a
// redefinition); the tool says so for the file and goes on.
// RUN: printf 'int min(int a, int b) { return a < b ? a : b; }\n__global__ void k(int *p) { p[0] = 1; }\n' > %t/own.cu
// RUN: %expect_exit 2 %cuda-l1-rewrite --list-kernels %t/own.cu 2>&1 | FileCheck --check-prefix=OWN %s
// OWN: own.cu:1:5: error: redefinition of 'min'
#include <cuda_runtime.h>

#define BLOCK_WIDTH 64
#define BLOCK_SIZE 256

__global__ void scale(float *out, const float *in, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  for (int e = i + 4; i < n && i < e; i++)
    out[i] = 2.0f * in[i];
}

__device__ __forceinline__ float atomicMinFloat(float *addr, float value) {
  unsigned *ptr = (unsigned *)addr;
#if CUDA_VERSION >= 12080
  unsigned ret = __nv_atomic_load_n(ptr, __NV_ATOMIC_RELAXED);
#else
  unsigned ret = *ptr;
#endif
  while (value < __uint_as_float(ret)) {
    unsigned old = ret;
    ret = atomicCAS(ptr, old, __float_as_uint(value));
    if (ret == old)
      break;
  }
  return __uint_as_float(ret);
}

__global__ void smallest(const float *v, float *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMinFloat(m, v[i]);
    __nv_atomic_fetch_add((unsigned *)m + 1, 1u, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  }
}

static size_t roundUpDiv(size_t a, size_t b) { return (a + b - 1) / b; }

void launch(float *out, const float *in, size_t n) {
  unsigned int lo = umin(3u, 4u) + umax(1u, 2u);
  long long big = llmin(1ll << 40, 5ll) + llmax(-1ll, 0ll);
  unsigned long long ub = ullmin(7ull, 9ull) + ullmax(1ull, 2ull);
  // nvcc's other host overloads: size_t stays size_t, float stays float.
  size_t capped = min(n, (size_t)1 << 30);
  float half = max(0.5f, 0.25f);
  static_assert(sizeof(min(n, n)) == sizeof(size_t), "min(size_t, size_t)");
  if (capped == 0 || half != 0.5f)
    return;
  const dim3 grid(min(BLOCK_WIDTH, static_cast<int>(roundUpDiv(n, BLOCK_SIZE))));
  const dim3 block(max(BLOCK_SIZE, 32));
  if (lo + big + ub > 0)
    scale<<<grid, block>>>(out, in, (int)n);
}

int main() {
  float *out, *in;
  size_t n = 1 << 24;
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&in, n * sizeof(float));
  launch(out, in, n);
  return 0;
}
