// How many integer divisions by run-time loop invariants can a memory-bound
// grid-stride loop hide? Each kernel decomposes its index into K dimensions
// (K divisions and K remainders by run-time sizes) and streams one element in
// and one out (float: 8 bytes per element, double: 16). Printed: time over the
// plain copy (K = 0) in the same run, and the time with dividers computed once
// before the loop (multiply-high by a magic number).
//
//   nvcc -O3 -arch=sm_90 divmod-sweep.cu -o divmod-sweep && ./divmod-sweep
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "divmod-common.cuh"

struct Dims { int d[6]; };

template <int K, class T, class I = int>
__global__ void slow(I n, Dims D, const T *in, T *out) {
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (I)blockDim.x * gridDim.x) {
    I x = i, off = 0;
#pragma unroll
    for (int k = 0; k < K; k++) { off += (x % (I)D.d[k]) * (k + 1); x = x / (I)D.d[k]; }
    out[i] = in[i] + (T)off;
  }
}
template <int K, class T> __global__ void fast(int n, Dims D, const T *in, T *out) {
  unsigned m[6], s[6];
#pragma unroll
  for (int k = 0; k < K; k++) { Div v(D.d[k]); m[k] = v.m; s[k] = v.s; }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int x = i, off = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      int q = (int)((__umulhi((unsigned)x, m[k]) + (unsigned)x) >> s[k]);
      off += (x - q * D.d[k]) * (k + 1); x = q;
    }
    out[i] = in[i] + (T)off;
  }
}

template <class T, int K> void one(int n, Dims D, T *in, T *o1, T *o2, float base, int grid) {
  float a = timeit([&] { slow<K, T><<<grid, 256>>>(n, D, in, o1); });
  float b = timeit([&] { fast<K, T><<<grid, 256>>>(n, D, in, o2); });
  std::vector<T> r1(n), r2(n);
  CK(cudaMemcpy(r1.data(), o1, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r2.data(), o2, n * sizeof(T), cudaMemcpyDeviceToHost));
  printf("%-6s K=%d  div/byte %.3f  %.4f ms  x copy %.2f   hoisted %.4f ms  speedup %.2fx  %s\n",
         sizeof(T) == 4 ? "float" : "double", K, (double)K / (2 * sizeof(T)), a, a / base, b, a / b,
         r1 == r2 ? "identical" : "DIFFERENT");
}

// 64-bit indices (size_t): the division is a called routine.
template <int K> void wide(long long n, Dims D, float *in, float *o1, float base, int grid) {
  float a = timeit([&] { slow<K, float, unsigned long long><<<grid, 256>>>(n, D, in, o1); });
  printf("float  K=%d  64-bit index  div/byte %.3f  %.4f ms  x copy %.2f\n", K, K / 8.0, a, a / base);
}

template <class T> void run(int n, int grid) {
  T *in, *o1, *o2;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&o1, n * sizeof(T))); CK(cudaMalloc(&o2, n * sizeof(T)));
  CK(cudaMemset(in, 0, n * sizeof(T)));
  Dims D = {{37, 1000, 9, 123, 5, 77}};
  float base = timeit([&] { slow<0, T><<<grid, 256>>>(n, D, in, o1); });
  printf("%-6s K=0  copy %.4f ms  %.0f GB/s\n", sizeof(T) == 4 ? "float" : "double", base,
         2.0 * n * sizeof(T) / base / 1e6);
  one<T, 1>(n, D, in, o1, o2, base, grid);
  one<T, 2>(n, D, in, o1, o2, base, grid);
  one<T, 3>(n, D, in, o1, o2, base, grid);
  one<T, 4>(n, D, in, o1, o2, base, grid);
  one<T, 5>(n, D, in, o1, o2, base, grid);
  one<T, 6>(n, D, in, o1, o2, base, grid);
  if (sizeof(T) == 4) {
    wide<0>(n, D, (float *)in, (float *)o1, base, grid);
    wide<1>(n, D, (float *)in, (float *)o1, base, grid);
    wide<2>(n, D, (float *)in, (float *)o1, base, grid);
    wide<3>(n, D, (float *)in, (float *)o1, base, grid);
  }
  CK(cudaFree(in)); CK(cudaFree(o1)); CK(cudaFree(o2));
}

int main() {
  int grid = 132 * 16;
  run<float>(1 << 26, grid);
  run<double>(1 << 25, grid);
  return 0;
}
