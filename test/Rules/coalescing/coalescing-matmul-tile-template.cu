// coalescing-matmul-tile on a kernel template (real code writes the element
// type as a parameter): the template is checked through each of its
// instantiations, and fixed when all of them give the same rewrite of the
// template's text -- types spelled `T`, tiles sized for the widest element.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  coalescing-matmul-tile.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: %nvcc -arch=sm_90 -c -o %t/t.o %t/t.cu
// Idempotent.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-matmul-tile' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu > /dev/null 2>&1
// RUN: diff %t/once.cu %t/t.cu
#define TILE 16

template <typename T>
__global__ void mm_restrict(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                            int M, int K, int N, T alpha, T beta) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < M && col < N) {
    T s = 0;
    for (int k = 0; k < K; k++)
      s += a[row * K + k] * b[k * N + col];
    c[row * N + col] = alpha * s + beta * c[row * N + col];
  }
}
// CHECK-MESSAGES: t.cu:{{[0-9]+}}:7: warning: matrix product computed one output per thread: each output of 'mm_restrict' {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: kernel template checked in each of its instantiations here: mm_restrict<float>, mm_restrict<double>
// CHECK-FIXES: __global__ void __launch_bounds__(1024) mm_restrict(const T *__restrict__ a,
// CHECK-FIXES: __shared__ __align__(16) T cudal1_As[2][16][64 + 4];
// CHECK-FIXES: __shared__ __align__(16) T cudal1_Bs[2][16][64 + 0];
// CHECK-FIXES: T cudal1_acc[4][4];
// CHECK-FIXES: T cudal1_ra[
// CHECK-FIXES: T s = cudal1_acc[cudal1_r][cudal1_c];

// Launched with explicit template arguments from plain host code: the
// launch sites prove the buffers distinct for every instantiation (the
// launch inside the template run() is not resolved: launch bounds 1024).
template <typename T>
__global__ void mm_plain(T *a, T *b, T *c, int n) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < n && col < n) {
    T s = 0;
    for (int k = 0; k < n; k++)
      s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
  }
}
// CHECK-MESSAGES: t.cu:{{[0-9]+}}:7: warning: matrix product computed one output per thread: each output of 'mm_plain' {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: kernel template checked in each of its instantiations here: mm_plain<float>
// CHECK-FIXES: __global__ void __launch_bounds__(1024) mm_plain(T *a, T *b, T *c, int n) {
// CHECK-FIXES: T cudal1_acc[4][4];

// An instantiation whose element type the rule cannot tile (a struct with
// its own operators) keeps the whole template unchanged, with the reason.
struct Cplx {
  float re, im;
  __device__ Cplx() : re(0), im(0) {}
  __device__ Cplx(int v) : re(v), im(0) {}
};
__device__ Cplx operator*(Cplx x, Cplx y) { Cplx r; r.re = x.re * y.re - x.im * y.im; r.im = x.re * y.im + x.im * y.re; return r; }
__device__ Cplx &operator+=(Cplx &x, Cplx y) { x.re += y.re; x.im += y.im; return x; }
template <typename T>
__global__ void mm_mixed(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, int n) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < n && col < n) {
    T s = 0;
    for (int k = 0; k < n; k++)
      s += a[row * n + k] * b[k * n + col];
    c[row * n + col] = s;
  }
}
// CHECK-MESSAGES: t.cu:{{[0-9]+}}:7: warning: matrix product computed one output per thread: each output of 'mm_mixed' {{.*}} [coalescing-matmul-tile]
// CHECK-MESSAGES: note: kernel template checked in each of its instantiations here: mm_mixed<float>, mm_mixed<Cplx>
// CHECK-MESSAGES: note: no fix: the template's instantiation mm_mixed<Cplx> does not match

template <typename T>
void run(const T *a, const T *b, T *c, int n) {
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
  mm_restrict<<<grid, block>>>(a, b, c, n, n, n, T(1), T(0));
}
template void run<float>(const float *, const float *, float *, int);
template void run<double>(const double *, const double *, double *, int);

int main() {
  float *a, *b, *c;
  cudaMalloc(&a, 256 * 256 * sizeof(float));
  cudaMalloc(&b, 256 * 256 * sizeof(float));
  cudaMalloc(&c, 256 * 256 * sizeof(float));
  dim3 grid(16, 16), block(TILE, TILE);
  mm_plain<float><<<grid, block>>>(a, b, c, 256);
  mm_mixed<float><<<grid, block>>>(a, b, c, 256);
  Cplx *x, *y, *z;
  cudaMalloc(&x, 256 * 256 * sizeof(Cplx));
  cudaMalloc(&y, 256 * 256 * sizeof(Cplx));
  cudaMalloc(&z, 256 * 256 * sizeof(Cplx));
  mm_mixed<Cplx><<<grid, block>>>(x, y, z, 256);
  cudaDeviceSynchronize();
  return 0;
}
