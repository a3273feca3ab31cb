// launch-idle-blocks: launches in a loop whose kernel's guard keeps a part
// that moves with the loop variable while the grid stays the same launch
// only the blocks that hold a thread inside the guard; the CPU emulation
// (utils/bench/cuemu) of the rewritten program prints what the original
// prints, bitwise.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-idle-blocks' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the rewritten launches (and the kept originals) are not
// reported again; the refused one is.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-idle-blocks' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: 'shifted' is launched over the same grid
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-idle-blocks' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "bitwise"
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: lu n=77:
// RUNS: elimination n=77:
// RUNS: lower n=77:
// RUNS: done
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s\n", cudaGetErrorString(e));               \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static unsigned long long hash(const float *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n * sizeof(float); i++)
    h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

// Right-looking LU: lower and upper bounds in both dimensions (a copy of
// the kernel renumbers the blocks).
__global__ void lu_scale(float *A, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k && i < n)
    A[i * n + k] = A[i * n + k] / A[k * n + k];
}

__global__ void lu_update(float *A, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i > k) && (j > k) && (i < n) && (j < n)) {
    A[i * n + j] = A[i * n + j] - A[i * n + k] * A[k * n + j];
  }
}
// CHECK-FIXES:      #define CUDAL1_IDLE_lu_update
// CHECK-FIXES-NEXT: // cuda-l1 launch-idle-blocks: 'lu_update' from the given first blocks
// CHECK-FIXES-NEXT: __global__ void cudal1_idle_lu_update(float *A, int k, int n, unsigned cudal1_ox, unsigned cudal1_oy, unsigned cudal1_oz) {
// CHECK-FIXES-NEXT:   int j = (blockIdx.x + cudal1_ox) * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   int i = (blockIdx.y + cudal1_oy) * blockDim.y + threadIdx.y;

void lu(int n, float *h) {
  float *A;
  CHECK(cudaMalloc(&A, sizeof(float) * n * n));
  CHECK(cudaMemcpy(A, h, sizeof(float) * n * n, cudaMemcpyHostToDevice));
  dim3 block1(32), grid1((n + 31) / 32);
  dim3 block2(16, 8), grid2((n + 15) / 16, (n + 7) / 8);
  for (int k = 0; k < n; k++) {
    lu_scale<<<grid1, block1>>>(A, k, n);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'lu_scale' is launched over the same grid in every iteration, but its guard keeps a part that moves with the loop: blocks whose threads all fail the guard start and do nothing; launch only the blocks that can pass it [launch-idle-blocks]
    CHECK(cudaGetLastError());
    lu_update<<<grid2, block2>>>(A, k, n);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'lu_update' is launched over the same grid
  }
  CHECK(cudaMemcpy(h, A, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A);
}
// CHECK-FIXES:      dim3 cudal1_g_2 = dim3(grid2), cudal1_b_2 = dim3(block2);
// CHECK-FIXES:          if ((long long)(int)(((int)(k))) + 1 > cudal1_lo)
// CHECK-FIXES-NEXT:       cudal1_lo = (long long)(int)(((int)(k))) + 1;
// CHECK-FIXES:        if (!cudal1_fits_2)
// CHECK-FIXES-NEXT:     lu_update<<<grid2, block2>>>(A, k, n);
// CHECK-FIXES-NEXT:   else if (cudal1_g_2.x && cudal1_g_2.y && cudal1_g_2.z)
// CHECK-FIXES-NEXT:     cudal1_idle_lu_update<<<cudal1_g_2, cudal1_b_2>>>(A, k, n, cudal1_o_2[0], cudal1_o_2[1], cudal1_o_2[2]);

// Gaussian elimination with the offset in the index (upper bounds only:
// the kernel as it is on a smaller grid), blockDim first, early returns,
// a size_t argument for an int parameter.
__global__ void fan2(float *a, const float *m, int size, int t) {
  int gy = blockDim.x * blockIdx.x + threadIdx.x;
  int gx = blockDim.y * blockIdx.y + threadIdx.y;
  if (gx >= size - 1 - t || gy >= size - t)
    return;
  a[size * (gx + 1 + t) + (gy + t)] -= m[size * (gx + 1 + t) + t] * a[size * t + (gy + t)];
}

__global__ void fan1(const float *a, float *m, int size, int t) {
  int g = blockDim.x * blockIdx.x + threadIdx.x;
  if (g < size - 1 - t)
    m[size * (g + t + 1) + t] = a[size * (g + t + 1) + t] / a[size * t + t];
}

void elimination(size_t size, float *h) {
  float *a, *m;
  CHECK(cudaMalloc(&a, sizeof(float) * size * size));
  CHECK(cudaMalloc(&m, sizeof(float) * size * size));
  CHECK(cudaMemcpy(a, h, sizeof(float) * size * size, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(m, 0, sizeof(float) * size * size));
  dim3 b1(64), g1((size + 63) / 64);
  dim3 b2(8, 16), g2((size + 7) / 8, (size + 15) / 16);
  for (int t = 0; t < (int)size - 1; t++) {
    fan1<<<g1, b1>>>(a, m, size, t);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'fan1' is launched over the same grid
    fan2<<<g2, b2>>>(a, m, size, t);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'fan2' is launched over the same grid
  }
  CHECK(cudaMemcpy(h, a, sizeof(float) * size * size, cudaMemcpyDeviceToHost));
  cudaFree(a);
  cudaFree(m);
}
// CHECK-FIXES:      if ((long long)(int)(((int)(size)) - 1 - ((int)(t))) < cudal1_hi)
// CHECK-FIXES:        fan2<<<cudal1_g{{(_2)?}}, cudal1_b{{(_2)?}}>>>(a, m, size, t);

// A lower triangle (j <= i, not a bound on one index: kept as it is), the
// bound written on the left.
__global__ void lower_update(float *L, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (k < i && i < n && j < n && k < j && j <= i)
    L[i * n + j] = L[i * n + j] - L[i * n + k] * L[j * n + k];
}

void lower(int n, float *h) {
  float *L;
  CHECK(cudaMalloc(&L, sizeof(float) * n * n));
  CHECK(cudaMemcpy(L, h, sizeof(float) * n * n, cudaMemcpyHostToDevice));
  dim3 block(32, 4), grid((n + 31) / 32, (n + 3) / 4);
  for (int k = 0; k < n; k += 3) {
    lower_update<<<grid, block>>>(L, k, n);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'lower_update' is launched over the same grid
  }
  CHECK(cudaMemcpy(h, L, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(L);
}

// --- refused ----------------------------------------------------------------

namespace ns {
__global__ void shifted(float *x, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k && i < n)
    x[i] += 1.0f;
}
} // namespace ns
using namespace ns;

void in_namespace(float *x, int n) {
  for (int k = 0; k < n; k++) {
    shifted<<<(n + 255) / 256, 256>>>(x, k, n);
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:5: warning: 'shifted' is launched over the same grid
    // CHECK-MESSAGES: note: no fix: 'shifted' is in a namespace or a class
  }
}

// --- silent -----------------------------------------------------------------

// A device function reads blockIdx (a copy could not renumber it).
__device__ int global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }
__global__ void through_helper(float *x, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k && i < n)
    x[global_id()] += 1.0f;
}

// The guard has a side effect in every thread.
__global__ void counting_guard(float *x, int *count, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (atomicAdd(count, 1) >= 0 && i >= k && i < n)
    x[i] += 1.0f;
}

// A narrowing cast: not the global index.
__global__ void narrow(float *x, int k, int n) {
  int i = (short)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= k && i < n)
    x[i] += 1.0f;
}

void silent_too(float *x, int *count, int n) {
  for (int k = 0; k < n; k++) {
    through_helper<<<(n + 255) / 256, 256>>>(x, k, n);
    counting_guard<<<(n + 255) / 256, 256>>>(x, count, k, n);
    narrow<<<(n + 255) / 256, 256>>>(x, k, n);
  }
}

// The guard's bound does not move with the loop.
__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}

// A grid-stride loop reads gridDim.
__global__ void strided(float *x, int k, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x + k; i < n; i += blockDim.x * gridDim.x)
    x[i] += 1.0f;
}

// A store before the guard: every block does something.
__global__ void counted(float *x, int *hits, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  hits[blockIdx.x] = 1;
  if (i > k && i < n)
    x[i] += 1.0f;
}

void silent(float *x, int *hits, int n) {
  for (int k = 0; k < n; k++) {
    scale<<<(n + 255) / 256, 256>>>(x, 0.5f, n);
    strided<<<4, 256>>>(x, k, n);
    counted<<<(n + 255) / 256, 256>>>(x, hits, k, n);
  }
}

int main() {
#ifdef BIG
  const int n = 1029;
#else
  const int n = 77;
#endif
  float *h = (float *)malloc(sizeof(float) * n * n);
  auto fill = [&]() {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        h[i * n + j] = (i == j) ? n + (float)(i % 7) : (float)((i * 31 + j * 17) % 23) / 23 - 0.5f;
  };
  fill();
  lu(n, h);
  printf("lu n=%d: %016llx\n", n, hash(h, n * n));
  fill();
  elimination(n, h);
  printf("elimination n=%d: %016llx\n", n, hash(h, n * n));
  fill();
  lower(n, h);
  printf("lower n=%d: %016llx\n", n, hash(h, n * n));
  printf("done\n");
  return 0;
}
