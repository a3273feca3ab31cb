// How many IEEE floating divisions by one loop-invariant divisor can a
// memory-bound grid-stride loop hide? (algebraic-reciprocal-hoist's float
// branch.) Each kernel streams one element in and one out (float: 8 bytes per
// element, double: 16) or only reads (a sum: 4 or 8 bytes), and divides K
// different dividends by the same run-time divisor s. Printed: time over the
// plain stream (K = 0) in the same run, and the time with the reciprocal
// computed once before the loop (x * (1/s), the rule's fix).
//
//   nvcc -O3 -arch=sm_90 fdiv-sweep.cu -o fdiv-sweep && ./fdiv-sweep
#include "divmod-common.cuh"

// out[i] = sum_k (in[i] + k) / s
template <int K, class T, bool Hoist>
__global__ void stream(int n, T s, const T *in, T *out) {
  T inv = (T)1 / s;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    T v = in[i], acc = K == 0 ? v : (T)0;
#pragma unroll
    for (int k = 0; k < K; k++) acc += Hoist ? (v + (T)k) * inv : (v + (T)k) / s;
    out[i] = acc;
  }
}

// A per-thread sum of in[i] / s (4 or 8 bytes per iteration), one store.
template <int K, class T, bool Hoist>
__global__ void sum(int n, T s, const T *in, T *out) {
  T inv = (T)1 / s, acc = 0;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t; i < n; i += blockDim.x * gridDim.x) {
    T v = in[i];
    if (K == 0) acc += v;
#pragma unroll
    for (int k = 0; k < K; k++) acc += Hoist ? (v + (T)k) * inv : (v + (T)k) / s;
  }
  out[t] = acc;
}

template <class T> const char *name() { return sizeof(T) == 4 ? "float" : "double"; }

template <class T, int K> void one(int n, T *in, T *o, float base, int grid, bool isSum) {
  T s = (T)3.7;
  float a, b;
  if (isSum) {
    a = timeit([&] { sum<K, T, false><<<grid, 256>>>(n, s, in, o); });
    b = timeit([&] { sum<K, T, true><<<grid, 256>>>(n, s, in, o); });
  } else {
    a = timeit([&] { stream<K, T, false><<<grid, 256>>>(n, s, in, o); });
    b = timeit([&] { stream<K, T, true><<<grid, 256>>>(n, s, in, o); });
  }
  int bytes = (isSum ? 1 : 2) * (int)sizeof(T);
  printf("%-6s %-6s K=%d  bytes/iter %2d  div/byte %.3f  %.4f ms  x base %.2f   reciprocal %.4f ms  x base %.2f  speedup %.2fx\n",
         name<T>(), isSum ? "sum" : "stream", K, bytes, (double)K / bytes, a, a / base, b, b / base, a / b);
}

template <class T> void run(int n, int grid) {
  T *in, *o;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&o, n * sizeof(T)));
  CK(cudaMemset(in, 0, n * sizeof(T)));
  for (int isSum = 0; isSum < 2; isSum++) {
    float base = isSum ? timeit([&] { sum<0, T, false><<<grid, 256>>>(n, (T)3.7, in, o); })
                       : timeit([&] { stream<0, T, false><<<grid, 256>>>(n, (T)3.7, in, o); });
    printf("%-6s %-6s K=0  %.4f ms  %.0f GB/s\n", name<T>(), isSum ? "sum" : "stream", base,
           (isSum ? 1.0 : 2.0) * n * sizeof(T) / base / 1e6);
    one<T, 1>(n, in, o, base, grid, isSum);
    one<T, 2>(n, in, o, base, grid, isSum);
    one<T, 3>(n, in, o, base, grid, isSum);
    one<T, 4>(n, in, o, base, grid, isSum);
    one<T, 6>(n, in, o, base, grid, isSum);
    one<T, 8>(n, in, o, base, grid, isSum);
  }
  CK(cudaFree(in)); CK(cudaFree(o));
}

int main() {
  int grid = 132 * 16;
  run<float>(1 << 26, grid);
  run<double>(1 << 25, grid);
  return 0;
}
