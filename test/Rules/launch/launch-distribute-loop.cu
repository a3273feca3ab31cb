// launch-distribute-loop: few threads, each running a long loop of independent
// iterations: the iterations are spread over the grid's y dimension.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-distribute-loop' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing and finds nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-distribute-loop' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: 'offset_rows' runs on 64 threads
// SECOND: warning: 'via_rows' runs on 64 threads
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,launch-distribute-loop' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "bitwise"
// The rewritten file compiles (nvcc, and NVRTC for every kernel extracted
// with its context) and is exact: the original and the rewritten program,
// run on the CPU emulation (utils/bench/cuemu), print the same bits.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: covar:
// RUNS: row_scale:
// RUNS: col_fill:
// RUNS: offset_rows:
// RUNS: inner_cols:
// RUNS: done
#include <cstdio>
#include <cuda_runtime.h>

#define NCOL 40

// Covariance (PolyBench): one thread per column j1, a triangular loop over
// j2 writing both halves of the symmetric matrix: s[j1][j2] and s[j2][j1]
// are distinct elements for distinct j2 (row-major, both indices below n).
__global__ void covar(float *symmat, const float *data, int m, int n) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < n) {
    for (int j2 = j1; j2 < n; j2++) {
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'covar' runs on 256 threads, each running the iterations of the loop over 'j2' (up to n) one after another, though they are independent: spread them over the grid's y dimension [launch-distribute-loop]
      // CHECK-FIXES: for (int j2 = j1 + (int)blockIdx.y; j2 < n; j2 += (int)gridDim.y) {
      symmat[j1 * n + j2] = 0.0f;
      for (int i = 0; i < m; i++)
        symmat[j1 * n + j2] += data[i * n + j1] * data[i * n + j2];
      symmat[j1 * n + j2] = symmat[j1 * n + j2] / (m - 1);
      symmat[j2 * n + j1] = symmat[j1 * n + j2];
    }
  }
}

// One thread per row, a loop over the row's columns; early-exit guard.
__global__ void row_scale(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows)
    return;
  float f = 2.0f + i;
  for (int j = 0; j < cols; ++j) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: 'row_scale' runs on 64 threads{{.*}}loop over 'j' (up to cols)
    // CHECK-FIXES: for (int j = (int)blockIdx.y; j < cols; j += (int)gridDim.y) {
    float v = in[i * cols + j];
    out[i * cols + j] = f * v * v;
  }
}

// A column loop with a constant bound from a macro; size_t induction
// variable; a dim3 variable as the grid.
__global__ void col_fill(float *out, const float *w, int rows) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (size_t c = 1; c < NCOL; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'col_fill' runs on 128 threads{{.*}}loop over 'c' (up to NCOL)
      // CHECK-FIXES: for (size_t c = 1 + (size_t)blockIdx.y; c < NCOL; c += (size_t)gridDim.y)
      out[c * rows + i] = w[c] * (float)i;
}

// The bound is an expression over the parameters, and inclusive.
__global__ void inner_cols(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 1; j <= cols - 2; j++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'inner_cols' runs on 32 threads{{.*}}loop over 'j' (up to cols - 2)
      // CHECK-FIXES: for (int j = 1 + (int)blockIdx.y; j <= cols - 2; j += (int)gridDim.y)
      out[i * cols + j] = in[i * cols + j - 1] + in[i * cols + j + 1];
}

// Reads blockIdx.y (written 2-D, launched 1-D): the new blocks would show.
__global__ void offset_rows(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + blockIdx.y * rows;
  if (i < rows)
    for (int j = 0; j < cols; j++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'offset_rows' runs on 64 threads
      // CHECK-MESSAGES: note: no fix: the kernel reads 'blockIdx.y': it would see the new y blocks
      out[i * cols + j] = in[i * cols + j] + 1.0f;
}

// Reads through row pointers loaded from memory: the access analysis cannot
// name that buffer, so the fix is offered unproven (never applied without
// --verify=run).
__global__ void via_rows(float *out, float *const *src_rows, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 1; j < cols; j++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'via_rows' runs on 64 threads
      // CHECK-MESSAGES: note: 'src_rows[i][j - 1]' reads memory whose buffer is not known
      out[i * cols + j] = src_rows[i][j - 1] * 0.5f;
}

// --- silent -----------------------------------------------------------------

// A narrow induction variable: the new step could wrap.
__global__ void narrow_iv(float *out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (short j = 0; j < cols; j++)
      out[i * cols + j] = j;
}

// printf: its output's order and count would change.
__global__ void chatty(float *out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 0; j < cols; j++) {
      out[i * cols + j] = j;
      if (j == 0 && i == 0)
        printf("first\n");
    }
}

// A sum over j into one element: every iteration writes out[i].
__global__ void row_sum(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 0; j < cols; j++)
      out[i] += in[i * cols + j];
}

// Forward substitution: iteration i reads y[k] written by iterations k < i.
__global__ void forward_subst(const float *L, const float *b, float *y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = b[i * nrhs + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * y[k * nrhs + c];
    y[i * nrhs + c] = s / L[i * n + i];
  }
}

// A running sum carried from one iteration to the next.
__global__ void prefix_rows(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float acc = 0.0f;
    for (int j = 0; j < cols; j++) {
      acc += in[i * cols + j];
      out[i * cols + j] = acc;
    }
  }
}

// A store before the loop: every new thread would repeat it.
__global__ void init_then_fill(float *out, float *count, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    count[i] = cols;
    for (int j = 0; j < cols; j++)
      out[i * cols + j] = j;
  }
}

// Leaves the loop early.
__global__ void find_first(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 0; j < cols; j++) {
      if (in[i * cols + j] < 0.0f)
        break;
      out[i * cols + j] = 1.0f;
    }
}

// Many threads: the GPU is already full.
__global__ void wide(float *out, const float *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 0; j < cols; j++)
      out[i * cols + j] = in[i * cols + j] * 3.0f;
}

// A short loop: 4 iterations (below MinTrip), not worth a y dimension.
__global__ void short_loop(float *out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows)
    for (int j = 0; j < 4; j++)
      out[i * 4 + j] = j;
}

static unsigned long long hashBytes(const void *P, size_t N) {
  const unsigned char *B = (const unsigned char *)P;
  unsigned long long H = 1469598103934665603ull;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ B[I]) * 1099511628211ull;
  return H;
}

static void fill(float *D, size_t N, unsigned Seed) {
  float *H = new float[N];
  unsigned long long S = Seed;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    H[I] = float((S >> 40) % 2001) / 1000.0f - 1.0f;
  }
  cudaMemcpy(D, H, N * sizeof(float), cudaMemcpyHostToDevice);
  delete[] H;
}

static void report(const char *What, float *D, size_t N) {
  float *H = new float[N];
  cudaMemcpy(H, D, N * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%s: %016llx\n", What, hashBytes(H, N * sizeof(float)));
  cudaMemset(D, 0, N * sizeof(float));
  delete[] H;
}

int main() {
  const int m = 29, n = 45, rows = 37, cols = 23;
  const int outN = n * n > NCOL * rows ? n * n : NCOL * rows;
  float *data, *in, *w, *out, *count;
  cudaMalloc((void **)&data, m * n * sizeof(float));
  cudaMalloc((void **)&in, rows * cols * sizeof(float));
  cudaMalloc((void **)&w, NCOL * sizeof(float));
  cudaMalloc((void **)&out, outN * sizeof(float));
  cudaMalloc((void **)&count, rows * sizeof(float));
  fill(data, m * n, 1);
  fill(in, rows * cols, 2);
  fill(w, NCOL, 3);
  cudaMemset(out, 0, outN * sizeof(float));
  covar<<<(n + 255) / 256, 256>>>(out, data, m, n);
  // CHECK-FIXES: covar<<<dim3((n + 255) / 256, n > 1 ? (n < 65535 ? n : 65535) : 1), 256>>>(out, data, m, n);
  report("covar", out, n * n);
  row_scale<<<1, 64>>>(out, in, rows, cols);
  // CHECK-FIXES: row_scale<<<dim3(1, cols > 1 ? (cols < 65535 ? cols : 65535) : 1), 64>>>(out, in, rows, cols);
  report("row_scale", out, rows * cols);
  dim3 g((rows + 127) / 128);
  col_fill<<<g, 128>>>(out, w, rows);
  // CHECK-FIXES: col_fill<<<dim3(g.x, 40, g.z), 128>>>(out, w, rows);
  report("col_fill", out, NCOL * rows);
  offset_rows<<<dim3(1, 1), 64>>>(out, in, rows, cols);
  report("offset_rows", out, rows * cols);
  inner_cols<<<(rows + 31) / 32 - 1, 32>>>(out, in, rows, cols);
  // CHECK-FIXES: inner_cols<<<dim3((rows + 31) / 32 - 1, ((cols - 2) + 1) > 1 ? (((cols - 2) + 1) < 65535 ? ((cols - 2) + 1) : 65535) : 1), 32>>>(out, in, rows, cols);
  report("inner_cols", out, rows * cols);
  float **rowp = new float *[rows], **drowp;
  for (int r = 0; r < rows; r++)
    rowp[r] = in + r * cols;
  cudaMalloc((void **)&drowp, rows * sizeof(float *));
  cudaMemcpy(drowp, rowp, rows * sizeof(float *), cudaMemcpyHostToDevice);
  via_rows<<<1, 64>>>(out, drowp, rows, cols);
  narrow_iv<<<1, 64>>>(out, rows, cols);
  chatty<<<1, 64>>>(out, rows, cols);
  row_sum<<<1, 64>>>(out, in, rows, cols);
  forward_subst<<<1, 64>>>(data, in, out, 8, 4);
  prefix_rows<<<1, 64>>>(out, in, rows, cols);
  init_then_fill<<<1, 64>>>(out, count, rows, cols);
  find_first<<<1, 64>>>(out, in, rows, cols);
  wide<<<4096, 256>>>(out, in, rows, cols);
  short_loop<<<1, 64>>>(out, rows);
  printf("done\n");
  return 0;
}
