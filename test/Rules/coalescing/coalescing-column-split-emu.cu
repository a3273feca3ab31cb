// coalescing-column-split, run on the CPU emulation (utils/bench/cuemu):
// the original and the rewritten kernels agree, integer sums bit for bit and
// floating-point sums within the tolerance of a reassociating fix, for odd
// sizes (a partial last block of columns, row counts that are not a
// multiple of the segments), 1-D and 2-D blocks, grids larger than the
// matrix, a start other than zero, a triangular walk and an epilogue that
// overwrites the column it summed. Outputs are poisoned before each run.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=APPLIED %s
// APPLIED: applied 7 fixes in 1 file
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: %python %S/Inputs/close.py %t/orig.txt %t/new.txt 1e-4 1e-5 | FileCheck --check-prefix=CLOSE %s
// CLOSE: close: {{[0-9]+}} floating-point values within rtol 0.0001 atol 1e-05 ({{[1-9][0-9]*}} not bitwise equal
// The integer sums are exact: those lines are identical.
// RUN: grep '^int ' %t/orig.txt > %t/orig.int && grep '^int ' %t/new.txt > %t/new.int && diff %t/orig.int %t/new.int
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: colmean 1000 x 300
// RUNS: colmean grid larger
// RUNS: colstats 32x8
// RUNS: gemv_t
// RUNS: int colsum_int
// RUNS: project
// RUNS: fwd_subst
// RUNS: accel
// RUNS: done
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define NROWS 203
#define NCOLS 520

__global__ void colmean(const float *data, float *mean, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    mean[j] = s / n;
  }
}

__global__ void colstats(float *data, float *mean, float *stddev) {
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  if (col < NCOLS) {
    float sum = 0.0f, sq = 0.0f;
    for (int row = 0; row < NROWS; ++row) {
      float v = data[row * NCOLS + col];
      sum += v;
      sq += v * v;
    }
    float mu = sum / NROWS;
    mean[col] = mu;
    stddev[col] = sqrtf(sq / NROWS - mu * mu);
  }
}

__global__ void gemv_t(const float *A, const float *r, const float *b, float *g, size_t m, size_t n, float alpha) {
  size_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  float acc = b[j];
  for (size_t i = 0; i < m; ++i)
    acc += A[i * n + j] * r[i];
  g[j] = alpha * acc;
}

__global__ void colsum_int(const int A[][512], long long *out, int rows) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  long long s = 0;
  for (int i = 0; i < rows; i++) {
    s += A[i][j];
  }
  out[j] = s;
}

__global__ void project(float *A, const float *__restrict__ q, float *R, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((j > k) && (j < n)) {
    float dot = 0.0f;
    for (int i = k; i <= m - 1; i++)
      dot += q[i] * A[i * n + j];
    R[k * n + j] = dot;
    for (int i = 0; i < m; i++)
      A[i * n + j] = A[i * n + j] - q[i] * dot;
  }
}

// A forward substitution, one thread per right-hand side: the sums of row i
// are split in each iteration of the row loop, which ends with a barrier.
__global__ void fwd_subst(const float *L, const float *B, float *Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = B[i * nrhs + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s / L[i * n + i];
  }
}

// An n-body-like sum over loads every thread shares, 2 blocks of 64 (few
// threads, known at the launch): split for the parallelism.
__global__ void accel(const float *x, const float *m, float *ax, float *ay, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sx = 0.0f, sy = 0.0f;
    for (int j = 0; j < n; j++) {
      float d = x[j] - x[i];
      sx += d * m[j];
      sy += d * d;
    }
    ax[i] = sx;
    ay[i] = sy;
  }
}

static unsigned Seed = 12345;
static float rnd() {
  Seed = Seed * 1103515245u + 12345u;
  return (float)((Seed >> 8) & 0xffff) / 65536.0f - 0.25f;
}

template <typename T> T *dev(const T *h, size_t n) {
  T *d;
  cudaMalloc((void **)&d, n * sizeof(T));
  cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <typename T> T *poisoned(size_t n) {
  T *d;
  cudaMalloc((void **)&d, n * sizeof(T));
  cudaMemset(d, 0xff, n * sizeof(T));
  return d;
}
template <typename T> void show(const char *name, const T *d, size_t n) {
  T *h = new T[n];
  cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; i++)
    printf("%s %zu %.9g\n", name, i, (double)h[i]);
  delete[] h;
}
static void showInt(const char *name, const long long *d, size_t n) {
  long long *h = new long long[n];
  cudaMemcpy(h, d, n * sizeof(long long), cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; i++)
    printf("int %s %zu %lld\n", name, i, h[i]);
  delete[] h;
}

void run_colmean(const float *data, float *mean, int m, int n) {
  colmean<<<(m + 255) / 256, 256>>>(data, mean, m, n);
}
void run_colmean_big(const float *data, float *mean, int m, int n) {
  colmean<<<(m + 255) / 256 + 2, 256>>>(data, mean, m, n);
}
void run_colstats(float *data, float *mean, float *sd) {
  dim3 block(32, 8);
  dim3 grid((NCOLS + 31) / 32);
  colstats<<<grid, block>>>(data, mean, sd);
}
void run_gemv_t(const float *A, const float *r, const float *b, float *g, size_t m, size_t n) {
  gemv_t<<<dim3((n + 127) / 128), dim3(128)>>>(A, r, b, g, m, n, 0.5f);
}
void run_colsum_int(const int (*A)[512], long long *out, int rows) {
  colsum_int<<<4, 128>>>(A, out, rows);
}
void run_project(float *A, const float *q, float *R, int k, int m, int n) {
  project<<<(n + 63) / 64, 64>>>(A, q, R, k, m, n);
}

void run_fwd_subst(const float *L, const float *B, float *Y, int n, int nrhs) {
  fwd_subst<<<(nrhs + 127) / 128, 128>>>(L, B, Y, n, nrhs);
}

void run_accel(const float *x, const float *m, float *ax, float *ay) {
  accel<<<2, 64>>>(x, m, ax, ay, 120);
}

int main() {
  const int M = 1000, N = 300;
  float *h = new float[M * N];
  for (int i = 0; i < M * N; i++)
    h[i] = rnd();
  float *data = dev(h, M * N);
  {
    printf("colmean 1000 x 300\n");
    float *mean = poisoned<float>(M);
    run_colmean(data, mean, M, N);
    show("colmean", mean, M);
    printf("colmean grid larger\n");
    float *mean2 = poisoned<float>(M);
    run_colmean_big(data, mean2, M, N);
    show("colmean_big", mean2, M);
  }
  {
    printf("colstats 32x8\n");
    float *mean = poisoned<float>(NCOLS), *sd = poisoned<float>(NCOLS);
    run_colstats(data, mean, sd);
    show("colstats_mean", mean, NCOLS);
    show("colstats_sd", sd, NCOLS);
  }
  {
    printf("gemv_t\n");
    const size_t m = 301, n = 333;
    float *r = new float[m], *b = new float[n];
    for (size_t i = 0; i < m; i++)
      r[i] = rnd();
    for (size_t i = 0; i < n; i++)
      b[i] = rnd();
    float *g = poisoned<float>(n);
    run_gemv_t(data, dev(r, m), dev(b, n), g, m, n);
    show("gemv_t", g, n);
  }
  {
    printf("int colsum_int\n");
    const int rows = 97;
    int *hi = new int[rows * 512];
    for (int i = 0; i < rows * 512; i++)
      hi[i] = (int)(rnd() * 100000.0f);
    long long *out = poisoned<long long>(512);
    run_colsum_int((const int(*)[512])dev(hi, rows * 512), out, rows);
    showInt("colsum_int", out, 512);
  }
  {
    printf("project\n");
    const int m = 150, n = 200, k = 5;
    float *A = dev(h, m * n);
    float *q = new float[m];
    for (int i = 0; i < m; i++)
      q[i] = rnd();
    float *R = poisoned<float>(n * n);
    cudaMemset(R, 0, n * n * sizeof(float));
    run_project(A, dev(q, m), R, k, m, n);
    show("project_R", R + k * n, n);
    show("project_A", A, m * n);
  }
  {
    printf("fwd_subst\n");
    const int n = 90, nrhs = 77;
    float *hl = new float[n * n];
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++)
        hl[i * n + k] = k < i ? rnd() / n : (k == i ? 1.0f + rnd() : 0.0f);
    float *Y = poisoned<float>(n * nrhs);
    run_fwd_subst(dev(hl, n * n), data, Y, n, nrhs);
    show("fwd_subst", Y, n * nrhs);
  }
  {
    printf("accel\n");
    float *ax = poisoned<float>(128), *ay = poisoned<float>(128);
    run_accel(data, data + 200, ax, ay);
    show("accel_x", ax, 120);
    show("accel_y", ay, 120);
  }
  printf("done\n");
  return 0;
}
