// coalescing-column-split when no launch tells the kernel's size (a column
// count read from a file or the command line): the finding assumes few
// threads and says so, and is reported only with its fix, which
// --verify=run measures. Without a fix a finding would rest on that
// assumption alone (the columns may well fill the GPU): none.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-column-split' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
#include <cuda_runtime.h>

// The split applies: reported, with the assumption.
__global__ void colsum(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++)
      s += data[i * m + j];
    out[j] = s;
  }
}
// CHECK: t.cu:[[@LINE-4]]:7: warning: one thread per column walks every row ('data[i * m + j]' over 'i') with as many threads as columns{{.*}} [coalescing-column-split]
// CHECK: note: the launch's grid is not known here: this assumes the kernel runs fewer than 131072 threads

// No fix (the loop also stores): no finding.
__global__ void colsum_store(float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++) {
      s += data[i * m + j];
      data[i * m + j] = s;
    }
    out[j] = s;
  }
}

// The same kernel at a launch known to run 2048 threads: reported, with
// the reason it has no fix.
__global__ void colsum_store_known(float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    for (int i = 0; i < n; i++) {
      s += data[i * m + j];
      data[i * m + j] = s;
    }
    out[j] = s;
  }
}
// CHECK: t.cu:[[@LINE-6]]:7: warning: one thread per column walks every row ('data[i * m + j]' over 'i') with only 2048 threads{{.*}} [coalescing-column-split]
// CHECK: note: no fix: the loop does more than accumulate

// The loop in a macro's body: the message names the load as Clang prints
// it (its source text is the macro's).
#define COLUMN_SUM(s, a, rows, cols, j) for (int i = 0; i < rows; i++) s += a[i * cols + j];
__global__ void colsum_macro(const float *data, float *out, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float s = 0;
    COLUMN_SUM(s, data, n, m, j)
    out[j] = s;
  }
}
// CHECK: t.cu:[[@LINE-4]]:5: warning: one thread per column walks every row ('data[i * m + j]' over 'i') with only 2048 threads{{.*}} [coalescing-column-split]

void run(float *data, float *out, int m, int n) {
  colsum<<<(m + 255) / 256, 256>>>(data, out, m, n);
  colsum_store<<<(m + 255) / 256, 256>>>(data, out, m, n);
  colsum_store_known<<<2048 / 256, 256>>>(data, out, 2048, 4096);
  colsum_macro<<<2048 / 256, 256>>>(data, out, 2048, 4096);
}
