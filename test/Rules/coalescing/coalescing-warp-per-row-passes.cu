// coalescing-warp-per-row-passes: each thread makes several passes over its
// own row (softmax, normalisation): one warp per row, the reductions combined
// with warp shuffles.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row-passes' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row-passes' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: each thread makes 1 pass over its own row (reducing into 'a', 'b')
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 's')
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 's')
// SECOND: warning: each thread makes 1 pass over its own row and writes it
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 'acc')
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 'm')
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 's')
// SECOND: warning: each thread makes 2 passes over its own row (reducing into 'm')
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// coalescing-warp-per-row leaves these kernels to this rule (one sum pass
// alone stays its own).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row' %s 2>&1 | FileCheck --check-prefix=SINGLE %s
// SINGLE: warning: each thread sums its own row into 'total'
// SINGLE-NOT: warning:
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-warp-per-row-passes' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "reassociating"
// FIX: "exactness": "bitwise"
// The rewritten file compiles (nvcc, NVRTC) and computes the same results on
// the CPU emulation (utils/bench/cuemu): within float rounding for the
// softmax (printed to 5 digits), exactly for the integer row max.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: softmax: 
// RUNS: scale_rows: 
// RUNS: imax_rows: 
// RUNS: two_sums: 
// RUNS: shifted_read: 
// RUNS: stencil_lines: 
// RUNS: layernorm_stats: 
// RUNS: layernorm_mean: 
// RUNS: layernorm_var: 
// RUNS: stats_exit: 
// RUNS: row_moments_m2: 
// RUNS: row_moments_m3: 
// RUNS: restart_sum: 
// RUNS: done
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

// The textbook softmax, one thread per row (HeCBench's softMax has this
// shape): max from the row's first element, sum of exponentials, the
// normalised row.
__global__ void softmax(const int numSlice, const int sliceSize, const float *src, float *dest) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK-FIXES: int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  // CHECK-FIXES-NEXT: const unsigned int cudal1_lane = threadIdx.x % 32u;
  if (i >= numSlice)
    return;
  float max_ = src[i * sliceSize];
  for (int j = 0; j < sliceSize; j++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 3 passes over its own row (reducing into 'max_', 'sum') and writes it: a warp per row would read and write the row with consecutive lanes (coalesced) and combine the lanes' values with warp shuffles [coalescing-warp-per-row-passes]
    // CHECK-FIXES: for (int j = (int)cudal1_lane; j < sliceSize; j += 32) {
    max_ = max(max_, src[i * sliceSize + j]);
  }
  // CHECK-FIXES: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
  // CHECK-FIXES-NEXT: max_ = max(max_, __shfl_xor_sync(0xffffffffu, max_, cudal1_o));
  float sum = 0;
  for (int j = 0; j < sliceSize; j++) {
    sum += expf(src[i * sliceSize + j] - max_);
  }
  // CHECK-FIXES: sum += __shfl_xor_sync(0xffffffffu, sum, cudal1_o);
  for (int j = 0; j < sliceSize; j++) {
    dest[i * sliceSize + j] = expf(src[i * sliceSize + j] - max_) / sum;
  }
}
// CHECK-FIXES: dest[i * sliceSize + j] = expf(src[i * sliceSize + j] - max_) / sum;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: }

// A final if, a bias in the sum (lane 0 keeps it), an in-place pass reading
// the element it writes, a scale computed between passes.
__global__ void scale_rows(float *a, const float *bias, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = bias[r];
    for (int c = 0; c < cols; ++c)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 2 passes over its own row (reducing into 'ss') and writes it
      ss += a[r * cols + c] * a[r * cols + c];
    // CHECK-FIXES: if (cudal1_lane != 0u)
    // CHECK-FIXES-NEXT: ss = 0;
    float inv = 1.0f / sqrtf(ss);
    for (int c = 0; c < cols; ++c)
      a[r * cols + c] *= inv;
  }
}

// An integer row max written to a second matrix: exact.
__global__ void imax_rows(const int *m, int *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int best = m[r * cols];
  for (int c = 1; c < cols; c++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 'best') and writes it
    best = max(best, m[r * cols + c]);
  for (int c = 0; c < cols; c++)
    out[r * cols + c] = best - m[r * cols + c];
}

// Two sum passes into one accumulator: the second starts from the first's
// total, which every lane holds, so lane 0 alone keeps it.
__global__ void two_sums(const float *a, const float *b, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int c = 0; c < cols; c++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 3 passes over its own row (reducing into 's') and writes it
    s += a[r * cols + c];
  for (int c = 0; c < cols; c++)
    s += b[r * cols + c];
  // CHECK-FIXES: if (cudal1_lane != 0u)
  // CHECK-FIXES-NEXT: s = 0;
  // CHECK-FIXES-NEXT: for (int c = (int)cudal1_lane; c < cols; c += 32)
  // CHECK-FIXES-NEXT: s += b[r * cols + c];
  for (int c = 0; c < cols; c++)
    out[r * cols + c] = a[r * cols + c] / s;
}

// A write pass followed by a pass starting elsewhere that reads it: the
// warp's stores are ordered first (another lane wrote the element).
__global__ void shifted_read(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  for (int c = 0; c < cols; c++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 't') and writes it
    out[r * cols + c] = 2.0f * a[r * cols + c];
  // CHECK-FIXES: out[r * cols + c] = 2.0f * a[r * cols + c];
  // CHECK-FIXES-NEXT: __syncwarp();
  float t = 0.0f;
  for (int c = 1; c < cols; c++)
    t += out[r * cols + c];
}

// A 3-D stencil with the thread's x on the slowest dimension and its y on
// the middle one (a 32x4 block, heat3d's shape), each thread walking its k
// line: one pass that writes the line. A warp per line; the y index stays
// the same in a warp (the block's x-extent is a multiple of 32).
#define IDX3(i, j, k, n) ((i) * (n) * (n) + (j) * (n) + (k))
__global__ void stencil_lines(int n, const float *A, float *B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
    for (int k = 1; k < n - 1; k++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 1 pass over its own row and writes it: a warp per row would read and write the row with consecutive lanes (coalesced) [coalescing-warp-per-row-passes]
      B[IDX3(i, j, k, n)] = 0.125 * (A[IDX3(i + 1, j, k, n)] + A[IDX3(i - 1, j, k, n)]) +
                            0.25 * (A[IDX3(i, j, k + 1, n)] - 2.0 * A[IDX3(i, j, k, n)]);
  }
}
// CHECK-FIXES:      int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
// CHECK-FIXES-NEXT: const unsigned int cudal1_lane = threadIdx.x % 32u;
// CHECK-FIXES-NEXT: int j = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT: if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
// CHECK-FIXES-NEXT:   for (int k = (1) + (int)cudal1_lane; k < n - 1; k += 32)

// Layer normalisation that also stores each row's mean and variance (kept
// for a backward pass): the stores between the passes run in lane 0,
// between two __syncwarp(); the later passes read the stored elements.
__global__ void layernorm_stats(const float *x, float *y, float *mean, float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 3 passes over its own row (reducing into 's', 'v') and writes it{{.*}} [coalescing-warp-per-row-passes]
      s += x[r * cols + c];
    mean[r] = s;
    mean[r] = mean[r] / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; c++)
      v += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
    var[r] = v / cols;
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = (x[r * cols + c] - mean[r]) / sqrtf(var[r] + 1e-5f);
  }
}
// CHECK-FIXES:        s += __shfl_xor_sync(0xffffffffu, s, cudal1_o);
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   if (cudal1_lane == 0u) {
// CHECK-FIXES-NEXT:     mean[r] = s;
// CHECK-FIXES-NEXT:     mean[r] = mean[r] / cols;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   float v = 0.0f;
// CHECK-FIXES:        v += __shfl_xor_sync(0xffffffffu, v, cudal1_o);
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   if (cudal1_lane == 0u) {
// CHECK-FIXES-NEXT:     var[r] = v / cols;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   for (int c = (int)cudal1_lane; c < cols; c += 32)

// An early exit between two stores of the row's statistics: it ends the
// lane-0 group (every lane takes it together, on the shuffled sum).
__global__ void stats_exit(const float *x, float *y, float *mean, float *rstd, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 2 passes over its own row (reducing into 's') and writes it{{.*}} [coalescing-warp-per-row-passes]
      s += x[r * cols + c];
    mean[r] = s / cols;
    if (s == 0.0f)
      return;
    rstd[r] = 1.0f / s;
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = x[r * cols + c] / s;
  }
}
// CHECK-FIXES:        if (cudal1_lane == 0u) {
// CHECK-FIXES-NEXT:     mean[r] = s / cols;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   if (s == 0.0f)
// CHECK-FIXES-NEXT:     return;
// CHECK-FIXES-NEXT:   __syncwarp();
// CHECK-FIXES-NEXT:   if (cudal1_lane == 0u) {
// CHECK-FIXES-NEXT:     rstd[r] = 1.0f / s;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncwarp();

// Row moments: three sums in one pass, locals divided between the passes
// (every lane holds the same totals) and stores after the last pass, in
// lane 0.
__global__ void row_moments(const float *x, float *mean, float *m2o, float *m3o, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0;
    for (int c = 0; c < cols; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 2 passes over its own row (reducing into 'sum', 'm2', 'm3'){{.*}} [coalescing-warp-per-row-passes]
      sum += x[r * cols + c];
    mean[r] = sum / cols;
    float m2 = 0, m3 = 0;
    for (int c = 0; c < cols; c++) {
      m2 += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
      m3 += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
    }
    m2 /= cols;
    m3 = m3 / cols;
    m2o[r] = m2;
    m3o[r] = m3 / (m2 * sqrtf(m2));
  }
}
// CHECK-FIXES:      for (int c = (int)cudal1_lane; c < cols; c += 32) {
// CHECK-FIXES-NEXT:   m2 += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
// CHECK-FIXES-NEXT:   m3 += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1) {
// CHECK-FIXES-NEXT:   m2 += __shfl_xor_sync(0xffffffffu, m2, cudal1_o);
// CHECK-FIXES-NEXT:   m3 += __shfl_xor_sync(0xffffffffu, m3, cudal1_o);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: m2 /= cols;
// CHECK-FIXES-NEXT: m3 = m3 / cols;
// CHECK-FIXES-NEXT: __syncwarp();
// CHECK-FIXES-NEXT: if (cudal1_lane == 0u) {
// CHECK-FIXES-NEXT:   m2o[r] = m2;
// CHECK-FIXES-NEXT:   m3o[r] = m3 / (m2 * sqrtf(m2));
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncwarp();

// A sum assigned between the passes before its own pass (it starts from
// the first pass's total, which every lane holds): lane 0 keeps the start,
// the other lanes start at zero; a max pass beside a sum in one loop.
__global__ void restart_sum(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f, t = 0.0f;
  float m = -1e30f;
  for (int c = 0; c < cols; c++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 's', 'm', 't'){{.*}} [coalescing-warp-per-row-passes]
    s += x[r * cols + c];
    m = fmaxf(m, x[r * cols + c]);
  }
  t = s * 0.5f;
  for (int c = 0; c < cols; c++)
    t += x[r * cols + c] * x[r * cols + c];
  y[r] = t - m;
}
// CHECK-FIXES:      for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1) {
// CHECK-FIXES-NEXT:   s += __shfl_xor_sync(0xffffffffu, s, cudal1_o);
// CHECK-FIXES-NEXT:   m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, cudal1_o));
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: t = s * 0.5f;
// CHECK-FIXES-NEXT: if (cudal1_lane != 0u)
// CHECK-FIXES-NEXT:   t = 0;
// CHECK-FIXES-NEXT: for (int c = (int)cudal1_lane; c < cols; c += 32)

// --- no fix, or not this rule ------------------------------------------------

// A sum whose value reads another accumulator of the same pass: the
// lanes' partial values are not the thread's running ones.
__global__ void cross_acc(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float a = 0.0f, b = 0.0f;
  for (int c = 0; c < cols; c++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 1 pass over its own row (reducing into 'a', 'b'){{.*}} [coalescing-warp-per-row-passes]
    // CHECK-MESSAGES: note: no fix: the value reduced into 'b' reads 'a', reduced in the same pass
    a += x[r * cols + c];
    b += a * x[r * cols + c];
  }
  y[r] = b;
}


// A store between the passes into the row a pass writes, and one whose
// element another row reads: no fix.
__global__ void store_in_row(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 2 passes over its own row (reducing into 's') and writes it{{.*}} [coalescing-warp-per-row-passes]
      // CHECK-MESSAGES: note: no fix: 'y[r * cols] = s' between the passes is not a store of one element of the row's own to a buffer no pass writes
      s += x[r * cols + c];
    y[r * cols] = s;
    for (int c = 1; c < cols; c++)
      y[r * cols + c] = x[r * cols + c] / s;
  }
}
__global__ void neighbour_stat(const float *x, float *y, float *st, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 2 passes over its own row (reducing into 's') and writes it{{.*}} [coalescing-warp-per-row-passes]
      // CHECK-MESSAGES: note: no fix: 'st[(r + 1) % rows]' reads another element of a buffer that the kernel stores one element of per row
      s += x[r * cols + c];
    st[r] = s;
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = x[r * cols + c] - st[(r + 1) % rows];
  }
}

// The same stencil launched with 16x16 blocks: a warp would span two y
// rows of the block.
__global__ void stencil_lines16(int n, const float *A, float *B) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
    for (int k = 1; k < n - 1; k++)
      // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: each thread makes 1 pass over its own row and writes it{{.*}} [coalescing-warp-per-row-passes]
      // CHECK-MESSAGES: note: no fix: the block's x-extent 16 is not a multiple of 32 (a warp must stay in one row)
      B[IDX3(i, j, k, n)] = A[IDX3(i, j, k, n)] * 0.5f;
  }
}

// Reads a neighbour the iteration does not write: another lane writes it.
__global__ void smooth_rows(float *a, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float acc = 0.0f;
  for (int c = 0; c < cols; c++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 'acc') and writes it
    // CHECK-MESSAGES: note: no fix: 'a[r * cols + c + 1]' reads an element of a buffer the kernel writes that its iteration does not write (another lane may write it)
    acc += a[r * cols + c];
  for (int c = 0; c < cols - 1; c++)
    a[r * cols + c] = a[r * cols + c + 1] - acc;
}

// Reads through a dereference: which element is not known.
__global__ void deref_read(float *y, const float *x, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float m = 0.0f;
  for (int j = 0; j < n; j++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 'm') and writes it
    // CHECK-MESSAGES: note: no fix: a pass reads or writes memory other than through a parameter's subscript
    m = fmaxf(m, x[r * n + j]);
  for (int j = 1; j < n; j++)
    y[r * n + j] = x[r * n + j] + *(y + r * n + j - 1) - m;
}

// An integer sum of floating values: each step truncates.
__global__ void int_of_floats(const float *x, int *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int s = 0;
  for (int j = 0; j < n; j++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 's') and writes it
    // CHECK-MESSAGES: note: no fix: 's' is an integer reduced from floating values
    s += x[r * n + j];
  for (int j = 0; j < n; j++)
    y[r * n + j] = s;
}

// A narrow loop variable: the step of 32 could wrap.
__global__ void narrow_iv(const float *x, float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float m = 0.0f;
  for (unsigned char j = 0; j < n; j++)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: each thread makes 2 passes over its own row (reducing into 'm') and writes it
    // CHECK-MESSAGES: note: no fix: the loop variable 'j' is narrower than int
    m = fmaxf(m, x[r * n + j]);
  for (int j = 0; j < n; j++)
    y[r * n + j] = x[r * n + j] - m;
}

// The thread index in a second local: not the one-row shape (silent).
__global__ void gid_alias(const float *x, float *y, int rows, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int row = gid;
  if (row >= rows)
    return;
  float m = -1e30f;
  for (int j = 0; j < n; j++)
    m = fmaxf(m, x[gid * n + j]);
  for (int j = 0; j < n; j++)
    y[gid * n + j] = x[gid * n + j] - m;
}

// Reads a row, writes a column (a transpose, HeCBench kmeans's
// feature_transpose): the stores are coalesced already; not this rule.
__global__ void to_columns(float *swap, const float *feature, int nfeatures, int npoints) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < npoints) {
    for (int i = 0; i < nfeatures; i++)
      swap[i * npoints + tid] = feature[tid * nfeatures + i];
  }
}

// One sum pass alone: coalescing-warp-per-row's.
__global__ void row_total(const float *a, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float total = 0.0f;
    for (int c = 0; c < cols; c++)
      total += a[r * cols + c];
    y[r] = total;
  }
}

// Coalesced already: a column per thread.
__global__ void col_softmax_max(const float *a, float *mx, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  float m = a[c];
  for (int r = 0; r < rows; r++)
    m = fmaxf(m, a[r * cols + c]);
  float s = 0.0f;
  for (int r = 0; r < rows; r++)
    s += a[r * cols + c] - m;
}

static void fillf(float *D, int N, unsigned Seed) {
  float *H = new float[N];
  unsigned long long S = Seed;
  for (int I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    H[I] = float((S >> 40) % 2001) / 1000.0f - 1.0f;
  }
  cudaMemcpy(D, H, N * sizeof(float), cudaMemcpyHostToDevice);
  delete[] H;
}

static void printf5(const char *What, const float *D, int N) {
  float *H = new float[N];
  cudaMemcpy(H, D, N * sizeof(float), cudaMemcpyDeviceToHost);
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += H[I] * (1 + I % 7);
  printf("%s: %.5g %.5g %.5g\n", What, H[0], H[N - 1], S);
  delete[] H;
}

int main() {
  const int rows = 77, cols = 45;
  float *src, *dest, *a, *bias;
  int *m, *out;
  cudaMalloc((void **)&src, rows * cols * sizeof(float));
  cudaMalloc((void **)&dest, rows * cols * sizeof(float));
  cudaMalloc((void **)&a, rows * cols * sizeof(float));
  cudaMalloc((void **)&bias, rows * sizeof(float));
  cudaMalloc((void **)&m, rows * cols * sizeof(int));
  cudaMalloc((void **)&out, rows * cols * sizeof(int));
  fillf(src, rows * cols, 1);
  fillf(a, rows * cols, 2);
  fillf(bias, rows, 3);
  int *hm = new int[rows * cols];
  for (int I = 0; I < rows * cols; ++I)
    hm[I] = (I * 7919) % 1013 - 500;
  cudaMemcpy(m, hm, rows * cols * sizeof(int), cudaMemcpyHostToDevice);
  softmax<<<(rows + 63) / 64, 64>>>(rows, cols, src, dest);
  // CHECK-FIXES: softmax<<<((rows + 63) / 64) * 32, 64>>>(rows, cols, src, dest);
  printf5("softmax", dest, rows * cols);
  dim3 g((rows + 31) / 32);
  scale_rows<<<g, 32>>>(a, bias, rows, cols);
  // CHECK-FIXES: scale_rows<<<dim3((g).x * 32, (g).y, (g).z), 32>>>(a, bias, rows, cols);
  printf5("scale_rows", a, rows * cols);
  imax_rows<<<(rows + 127) / 128, 128>>>(m, out, rows, cols);
  cudaMemcpy(hm, out, rows * cols * sizeof(int), cudaMemcpyDeviceToHost);
  long long T = 0;
  for (int I = 0; I < rows * cols; ++I)
    T += (long long)hm[I] * (I % 13 + 1);
  printf("imax_rows: %lld\n", T);
  two_sums<<<(rows + 63) / 64, 64>>>(src, dest, a, rows, cols);
  printf5("two_sums", a, rows * cols);
  shifted_read<<<(rows + 63) / 64, 64>>>(src, dest, rows, cols);
  printf5("shifted_read", dest, rows * cols);
  {
    const int n = 20;
    float *A3, *B3;
    cudaMalloc((void **)&A3, n * n * n * sizeof(float));
    cudaMalloc((void **)&B3, n * n * n * sizeof(float));
    fillf(A3, n * n * n, 4);
    fillf(B3, n * n * n, 5);
    dim3 block(32, 4);
    dim3 grid((n + 31) / 32, (n + 3) / 4);
    stencil_lines<<<grid, block>>>(n, A3, B3);
    // CHECK-FIXES: stencil_lines<<<dim3((grid).x * 32, (grid).y, (grid).z), block>>>(n, A3, B3);
    printf5("stencil_lines", B3, n * n * n);
    stencil_lines16<<<dim3(2, 2), dim3(16, 16)>>>(n, A3, B3);
  }
  {
    float *mu, *va;
    cudaMalloc((void **)&mu, rows * sizeof(float));
    cudaMalloc((void **)&va, rows * sizeof(float));
    layernorm_stats<<<(rows + 63) / 64, 64>>>(src, dest, mu, va, rows, cols);
    printf5("layernorm_stats", dest, rows * cols);
    printf5("layernorm_mean", mu, rows);
    printf5("layernorm_var", va, rows);
    float *rs;
    cudaMalloc((void **)&rs, rows * sizeof(float));
    stats_exit<<<(rows + 63) / 64, 64>>>(src, dest, mu, rs, rows, cols);
    printf5("stats_exit", dest, rows * cols);
    float *m3;
    cudaMalloc((void **)&m3, rows * sizeof(float));
    row_moments<<<(rows + 63) / 64, 64>>>(src, mu, va, m3, rows, cols);
    printf5("row_moments_m2", va, rows);
    printf5("row_moments_m3", m3, rows);
    restart_sum<<<(rows + 63) / 64, 64>>>(src, va, rows, cols);
    printf5("restart_sum", va, rows);
    cross_acc<<<(rows + 63) / 64, 64>>>(src, va, rows, cols);
    store_in_row<<<(rows + 63) / 64, 64>>>(src, dest, rows, cols);
    neighbour_stat<<<(rows + 63) / 64, 64>>>(src, dest, mu, rows, cols);
  }
  smooth_rows<<<(rows + 63) / 64, 64>>>(a, rows, cols);
  deref_read<<<(rows + 63) / 64, 64>>>(dest, src, rows, cols);
  int_of_floats<<<(rows + 63) / 64, 64>>>(src, out, rows, cols);
  narrow_iv<<<(rows + 63) / 64, 64>>>(src, dest, rows, cols);
  gid_alias<<<(rows + 63) / 64, 64>>>(src, dest, rows, cols);
  to_columns<<<(rows + 63) / 64, 64>>>(dest, src, cols, rows);
  row_total<<<(rows + 63) / 64, 64>>>(a, dest, rows, cols);
  col_softmax_max<<<(cols + 63) / 64, 64>>>(a, dest, rows, cols);
  printf("done\n");
  return 0;
}
