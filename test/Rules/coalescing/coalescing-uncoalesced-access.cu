// coalescing-uncoalesced-access: global accesses indexed with the thread index in the slow (row) dimension.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-uncoalesced-access' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

// One thread per row: the lanes of a warp read rows 'n' floats apart.
__global__ void row_sums(const float *__restrict__ a, float *__restrict__ s,
                         int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: uncoalesced global load: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:14: note: index of 'a' in elements: {{.*}}; the sector count holds when 'n' elements span at least 32 bytes
  // CHECK-MESSAGES: note: block shape 128x1x1 from this launch
  s[row] = acc;
}

// Negative: one thread per column, consecutive threads read consecutive
// floats of a row.
__global__ void col_sums(const float *__restrict__ a, float *__restrict__ s,
                         int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[k * n + col];
  s[col] = acc;
}

// Several fields of a thread's row, unrolled by hand: one finding for the
// array and its stride, the other accesses counted in a note; the store to
// another array is its own finding.
__global__ void row_fields(const float *__restrict__ a, float *__restrict__ s,
                           int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  for (int c = 0; c + 3 < n; c += 4) {
    float x = a[r * n + c];
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: uncoalesced global load: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
    // CHECK-MESSAGES: t.cu:[[@LINE+2]]:{{[0-9]+}}: note: 3 more accesses of 'a' in this kernel with the same cause (each lane in its own sector) (lines [[@LINE+2]], [[@LINE+3]]); one change of the layout or of the thread mapping removes them all
    // CHECK-MESSAGES: t.cu:[[@LINE+3]]:{{[0-9]+}}: warning: uncoalesced global store: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
    float y = a[r * n + c + 1] + a[r * n + c + 2];
    float z = a[r * n + c + 3];
    s[r * n + c] = x + y + z;
  }
}

// A fixed few elements of each row (the first four) and nothing else of
// it: the other elements are not this kernel's, no finding (a boundary
// column, a small record of a run-time length).
__global__ void row_head(const float *__restrict__ a, float *__restrict__ s,
                         int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  s[r * n] = a[r * n + 0] + a[r * n + 1] + a[r * n + 2] + a[r * n + 3];
}

// NOLINT on the group's first access silences that access only: the
// finding moves to the next one, which the note counts from.
__global__ void row_fields_nolint(const float *__restrict__ a,
                                  float *__restrict__ s, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float t = 0.0f;
  for (int c = 0; c + 2 < n; c += 3) {
    float x = a[r * n + c]; // NOLINT(coalescing-uncoalesced-access)
    float y = a[r * n + c + 1];
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: uncoalesced global load: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
    // CHECK-MESSAGES: t.cu:[[@LINE+1]]:{{[0-9]+}}: note: 1 more access of 'a' in this kernel with the same cause (each lane in its own sector) (line [[@LINE+1]]); one change of the layout or of the thread mapping removes them all
    float z = a[r * n + c + 2];
    t += x + y + z;
  }
  s[r] = t;
}

// The stride every launch passes ('ch' = 4, also through a host function)
// is evaluated. With a 2-D block a warp spans rows 'n' elements apart:
// reading three of four channels uses the sectors fetched (no finding);
// one channel alone is reported, with the rows as the condition.
__global__ void rgb(const float *__restrict__ in, float *__restrict__ out,
                    int n, int ch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float r = in[threadIdx.y * n + x * ch + 0];
  float g = in[threadIdx.y * n + x * ch + 1];
  float b = in[threadIdx.y * n + x * ch + 2];
  out[threadIdx.y * n + x] = r + g + b;
}
__global__ void red_only(const float *__restrict__ in,
                         float *__restrict__ out, int n, int ch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  out[threadIdx.y * n + x] = in[threadIdx.y * n + x * ch];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:30: warning: uncoalesced global load: consecutive threads are '4' elements apart and a warp spans several rows: 16 sectors per request instead of 4 (4x the memory traffic) [coalescing-uncoalesced-access]
  // CHECK-MESSAGES: note: {{.*}}the sector count holds when the rows of the block that a warp spans are at least 32 bytes apart ('ch' = 4 at every launch in this file
}
static void image(const float *in, float *out, int n, int ch) {
  rgb<<<n / 8, dim3(8, 4)>>>(in, out, n, ch);
  red_only<<<n / 8, dim3(8, 4)>>>(in, out, n, ch);
}

// A stride that changes between launches in a loop (a multi-pass
// reduction's 'mul') is not evaluated: the model sees its first value only.
__global__ void pass(float *__restrict__ s, int mul) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[i * mul] += s[i * mul + mul / 2];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: uncoalesced global read-modify-write: consecutive threads are 'mul' elements apart{{.*}} [coalescing-uncoalesced-access]
}

__global__ void pass2(float *__restrict__ s, int mul) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k)
    s[i * mul + k] += 1.0f;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global read-modify-write: consecutive threads are 'mul' elements apart{{.*}} [coalescing-uncoalesced-access]
}

void launch(const float *a, float *s, int n) {
  row_sums<<<n / 128, 128>>>(a, s, n);
  col_sums<<<n / 128, 128>>>(a, s, n);
  row_fields<<<n / 128, 128>>>(a, s, n);
  row_fields_nolint<<<n / 128, 128>>>(a, s, n);
  row_head<<<n / 128, 128>>>(a, s, n);
  image(a, s, n, 4);
  int mul = 1;
  while (mul < n) {
    pass<<<n / 256 / mul + 1, 256>>>(s, mul);
    mul = mul * 256;
  }
  // The same through a struct's field changed in the loop.
  struct { int m; } c = {1};
  for (int r = 0; r < 3; ++r) {
    pass2<<<n / 256, 256>>>(s, c.m);
    c.m *= 256;
  }
}

// Once per thread beside a loop that runs many times: not reported. The
// escape-time loop touches no memory and the transposed store runs once
// per thread after it (a small share of the kernel's time); the row of
// 'pos' is read once before an O(n) loop over every row.
__global__ void escape_time(int *out, int rows, int cols, int maxit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= rows || j >= cols)
    return;
  float z = 0.0f;
  int k = 0;
  while (k < maxit && z < 4.0f) {
    z = z * z + 0.25f;
    ++k;
  }
  out[i * cols + j] = k;
}
__global__ void pairwise(const float *pos, const float *all, float *e, int n,
                         int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float own = pos[i * d];
  float acc = 0.0f;
  for (int j = 0; j < n; ++j)
    acc += own * all[j];
  e[i] = acc;
}
// The escape loop in a member function that the kernel calls for every
// point (mandelbrot's `p->Point(c)`), directly or through a function that
// always calls it: the same, not reported.
struct Escape {
  int maxit;
  __device__ int steps(float c) const {
    float z = 0.0f;
    int k = 0;
    for (int it = 0; it < maxit; ++it) {
      if (z * z >= 4.0f)
        break;
      z = z * z + c;
      ++k;
    }
    return k;
  }
};
__device__ int scaled_steps(const Escape *e, int j) {
  int s = e->steps(0.25f * j);
  return s * 2;
}
__global__ void escape_member(int *out, const Escape *e, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols)
    out[i * cols + j] = e->steps(0.25f * j);
}
__global__ void escape_wrapped(int *out, const Escape *e, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols)
    out[i * cols + j] = scaled_steps(e, j);
}
// Still reported: the function leaves before its loop for some calls, or
// the kernel calls it only on some paths.
__device__ int steps_or_none(float c, int maxit) {
  if (c > 1.0f)
    return 0;
  float z = 0.0f;
  int k = 0;
  for (int it = 0; it < maxit && z < 4.0f; ++it, ++k)
    z = z * z + c;
  return k;
}
__global__ void escape_early(int *out, int rows, int cols, int maxit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols)
    out[i * cols + j] = steps_or_none(0.25f * j, maxit);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'cols' elements apart{{.*}} [coalescing-uncoalesced-access]
}
__global__ void escape_some(int *out, const Escape *e, int rows, int cols,
                            int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols) {
    int k = 0;
    if (mode)
      k = e->steps(0.25f * j);
    out[i * cols + j] = k;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'cols' elements apart{{.*}} [coalescing-uncoalesced-access]
  }
}
// The same transposed store with no loop in the kernel: reported.
__global__ void transpose_store(int *out, const int *in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols)
    out[i * cols + j] = in[j * rows + i];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'cols' elements apart{{.*}} [coalescing-uncoalesced-access]
}

// Still reported: the only loop is bounded by a parameter every launch
// passes as 3, or runs on another path (the access's branch returns
// first).
__global__ void to_gray(const float *in, float *out, const float *wts,
                        int width, int height, int channels) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  float v = in[x * height + y];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:13: warning: uncoalesced global load: consecutive threads are 'height' elements apart{{.*}} [coalescing-uncoalesced-access]
  float g = 1.0f;
  for (int c = 0; c < channels; ++c)
    g *= wts[c];
  out[x * height + y] = v * g;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: uncoalesced global store: consecutive threads are 'height' elements apart{{.*}} [coalescing-uncoalesced-access]
}
__global__ void branchy(const float *in, float *out, int n, int mode,
                        int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode == 0) {
    out[i * n] = in[i * n];
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
    // (not the load: this kernel reads nothing of 'in' but the first
    // element of each row)
    return;
  }
  float z = 0.0f;
  for (int k = 0; k < iters; ++k)
    z += 1.0f;
  out[i] = z;
}
// Still reported: the store on one side of a branch, the loop on the
// other.
__global__ void sides(const float *in, float *out, int n, int mode,
                      int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mode == 0) {
    out[i * n] = 1.0f;
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: uncoalesced global store: consecutive threads are 'n' elements apart{{.*}} [coalescing-uncoalesced-access]
  } else {
    float z = 0.0f;
    for (int k = 0; k < iters; ++k)
      z += in[k];
    out[i] = z;
  }
}
// Still reported: threads that store and then leave never run the loop
// after the return.
__global__ void store_then_leave(const float *in, float *out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i * m] = in[i];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: uncoalesced global store: consecutive threads are 'm' elements apart{{.*}} [coalescing-uncoalesced-access]
  if (threadIdx.x >= 1)
    return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k)
    s += in[k];
  out[n * m + blockIdx.x] = s;
}
void gray(const float *a, float *b, const float *w, int n) {
  to_gray<<<dim3(n / 32, n / 8), dim3(32, 8)>>>(a, b, w, n, n, 3);
}

// One finding per array: the four sides of a layer rotation are four
// strides (n+1, -n+1, -n-1, n-1) of one thread-per-layer mapping.
__global__ void rotate_layers(float *m, int n) {
  int L = blockIdx.x * blockDim.x + threadIdx.x;
  if (L >= n / 2)
    return;
  for (int i = L; i < n - 1 - L; ++i) {
    float t = m[L * n + i];
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:15: warning: uncoalesced global load{{.*}} [coalescing-uncoalesced-access]
    // CHECK-MESSAGES: note: 5 more accesses of 'm' in this kernel with the same cause (each lane in its own sector) (lines [[@LINE+1]], [[@LINE+2]], [[@LINE+3]], [[@LINE+4]]); one change of the layout or of the thread mapping removes them all
    m[L * n + i] = m[(n - 1 - i + L) * n + L];
    m[(n - 1 - i + L) * n + L] = m[(n - 1 - L) * n + (n - 1 - i + L)];
    m[(n - 1 - L) * n + (n - 1 - i + L)] = m[i * n + (n - 1 - L)];
    m[i * n + (n - 1 - L)] = t;
  }
}

// Finding only: the file is not changed.
// CHECK-FIXES: acc += a[row * n + k];

// Twelve floats per grid node (a 48-byte record, each lane in its own
// sector): the fields read after `if (node's dry flag) return;` count as
// used bytes, as those under `if (flag)` do. Seven of twelve fields: 1.7x
// the ideal traffic, below MinFactor (not reported). The same early
// return on another array's flag leaves one field counted (reported).
#define FIELDS 12
#define AT(m, f) nodes[(m) * FIELDS + (f)]
__global__ void wave_step(float *nodes, const float *r, int nlat) {
  int j = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int i = blockDim.y * blockIdx.y + threadIdx.y + 1;
  int m = (i - 1) * nlat + j - 1;
  if (AT(m, 0) == 0)
    return;
  AT(m, 1) = AT(m, 1) - AT(m, 2) * (AT(m, 3) + AT(m, 4) * r[j]);
  if (AT(m, 1) > AT(m, 5))
    AT(m, 5) = AT(m, 1);
  if (AT(m, 10) < 0)
    AT(m, 10) = 1.0f;
}
__global__ void wave_step_masked(float *nodes, const float *dry, int nlat) {
  int j = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int i = blockDim.y * blockIdx.y + threadIdx.y + 1;
  int m = (i - 1) * nlat + j - 1;
  float h = AT(m, 1);
  if (dry[m] != 0)
    return;
  AT(m, 1) = h - AT(m, 2) * (AT(m, 3) + AT(m, 4));
  // CHECK-MESSAGES: t.cu:[[@LINE-4]]:13: warning: uncoalesced global load: consecutive threads are '12' elements apart{{.*}} [coalescing-uncoalesced-access]
}
void run_wave(float *nodes, float *r, int nlat, int nlon) {
  wave_step<<<dim3(nlat / 16, nlon / 16), dim3(16, 16)>>>(nodes, r, nlat);
  wave_step_masked<<<dim3(nlat / 16, nlon / 16), dim3(16, 16)>>>(nodes, r, nlat);
}
