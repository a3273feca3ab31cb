// sync-shared-histogram: atomics into a small global histogram get per-block bins in shared memory.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  sync-shared-histogram.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Without the option the fix waits for a GPU measurement: plain --fix leaves the file.
// RUN: cp %s %t/m.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --fix --allow-unverified %t/m.cu > /dev/null 2>&1
// RUN: grep -v '// CHECK' %s > %t/m-orig.cu && grep -v '// CHECK' %t/m.cu > %t/m-now.cu && diff %t/m-orig.cu %t/m-now.cu
// The fixes offered (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif
#define BINS2D 64
#define LO -2.0f
#define HI 2.0f
typedef unsigned int count_t;

// An image histogram: the bin is an unsigned char pixel, a 2-D block.
__global__ void image_hist(const unsigned char *img, unsigned int *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(&hist[img[y * w + x]], 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 256 bins of global 'hist' (index proven in [0, 255]){{.*}} [sync-shared-histogram]
// FIX: "description": "per-block bins in shared memory, one atomicAdd per non-empty bin per block"
// FIX: "exactness": "bitwise"
// FIX: "needsMeasurement": true
// CHECK-FIXES:      __global__ void image_hist(const unsigned char *img, unsigned int *hist, int w, int h) {
// CHECK-FIXES-NEXT:   __shared__ unsigned int cudal1_bins[256]; // cuda-l1 sync-shared-histogram
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 256u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     cudal1_bins[cudal1_b] = 0;
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES:          atomicAdd(&cudal1_bins[img[y * w + x]], 1);
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 256u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     if (cudal1_bins[cudal1_b] != 0)
// CHECK-FIXES-NEXT:       atomicAdd(&hist[cudal1_b], cudal1_bins[cudal1_b]);
// CHECK-FIXES-NEXT: }

// A 2-D histogram of float pairs: bins clamped to [0, BINS2D-1] by ifs,
// the index a product and a sum; an early-return guard; a typedef'd count.
__global__ void pair_hist(const float *u, const float *v, count_t *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int bu = (int)floorf((u[i] - LO) / (HI - LO) * BINS2D);
  int bv = (int)floorf((v[i] - LO) / (HI - LO) * BINS2D);
  if (bu < 0) bu = 0;
  if (bu > BINS2D - 1) bu = BINS2D - 1;
  if (bv < 0) bv = 0;
  if (bv >= BINS2D) bv = BINS2D - 1;
  atomicAdd(hist + (bu * BINS2D + bv), 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: threads atomically add to 4096 bins of global 'hist' (index proven in [0, 4095]){{.*}} [sync-shared-histogram]
// CHECK-FIXES:      __global__ void pair_hist(const float *u, const float *v, count_t *hist, int n) {
// CHECK-FIXES-NEXT:   __shared__ count_t cudal1_bins[4096]; // cuda-l1 sync-shared-histogram
// CHECK-FIXES:        if (!(i >= n)) {
// CHECK-FIXES:        atomicAdd(cudal1_bins + (bu * BINS2D + bv), 1u);
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES:            atomicAdd(&hist[cudal1_b], cudal1_bins[cudal1_b]);

// A grid-stride loop over keys, the bin a masked hash, a float weight:
// reassociating.
__global__ void weighted(const unsigned int *keys, const float *w, float *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[keys[i] & 1023u], w[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 1024 bins of global 'bins'{{.*}} [sync-shared-histogram]
// FIX: "exactness": "reassociating"
// FIX-NEXT: "grid_sum_outputs": [
// FIX-NEXT: "bins"
// CHECK-FIXES:      __shared__ float cudal1_bins[1024]; // cuda-l1 sync-shared-histogram

// Radix-sort digit counts: the top byte of an unsigned key, and min/max
// clamps.
__global__ void digits(const unsigned int *keys, unsigned int *count, const int *vals, int *clamped, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&count[keys[i] >> 24], 1u);
    atomicAdd(&clamped[min(max(vals[i], 0), 99)], 1);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: threads atomically add to 256 bins of global 'count'{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: threads atomically add to 100 bins of global 'clamped'{{.*}} [sync-shared-histogram]

// k-means' accumulation: the cluster is read from data, and the sums and
// counts are small at every launch (cudaMalloc in run_kmeans below): one
// fix privatises both, each atomic testing its index against the copy.
__global__ void accumulate(const float *pts, const int *member, float *sums, int *counts, int n, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int c = member[i];
    atomicAdd(&counts[c], 1);
    for (int f = 0; f < dim; f++)
      atomicAdd(&sums[c * dim + f], pts[i * dim + f]);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: threads atomically add to global 'counts' at indices read from data, and it has only 16 elements at every launch (cudaMalloc at t.cu:{{[0-9]+}}:3){{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: threads atomically add to global 'sums' at indices read from data, and it has only 128 elements at every launch{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: note: no fix: privatised by the fix given for 'counts'
// FIX: "description": "per-block copies of 'counts', 'sums' in shared memory, one atomicAdd per non-zero element per block; the launches keep at most 2048 blocks, each covering the original blocks blockIdx.x + k * gridDim.x"
// CHECK-FIXES:      __global__ void accumulate(const float *pts, const int *member, float *sums, int *counts, int n, int dim) {
// CHECK-FIXES-NEXT:   __shared__ int cudal1_bins[16]; // cuda-l1 sync-shared-histogram
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 16u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     cudal1_bins[cudal1_b] = 0;
// CHECK-FIXES-NEXT:   __shared__ float cudal1_bins_2[128]; // cuda-l1 sync-shared-histogram
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 128u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     cudal1_bins_2[cudal1_b] = 0;
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:     int i = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:     if (i < n) {
// CHECK-FIXES-NEXT:       int c = member[i];
// CHECK-FIXES-NEXT:       ((unsigned long long)(c) < 16ull ? atomicAdd(&cudal1_bins[c], 1) : atomicAdd(&counts[c], 1));
// CHECK-FIXES:            ((unsigned long long)(c * dim + f) < 128ull ? atomicAdd(&cudal1_bins_2[c * dim + f], pts[i * dim + f]) : atomicAdd(&sums[c * dim + f], pts[i * dim + f]));
// CHECK-FIXES:        __syncthreads();
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 16u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     if (cudal1_bins[cudal1_b] != 0)
// CHECK-FIXES-NEXT:       atomicAdd(&counts[cudal1_b], cudal1_bins[cudal1_b]);
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; cudal1_b < 128u; cudal1_b += blockDim.x * blockDim.y * blockDim.z)
// CHECK-FIXES-NEXT:     if (cudal1_bins_2[cudal1_b] != 0)
// CHECK-FIXES-NEXT:       atomicAdd(&sums[cudal1_b], cudal1_bins_2[cudal1_b]);
// CHECK-FIXES-NEXT: }

// --- no fix ---

// The histogram is also read in the kernel.
__global__ void also_read(const unsigned char *img, unsigned int *hist, unsigned int *peak, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[img[i]], 1);
  if (i == 0)
    *peak = hist[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: threads atomically add to 256 bins{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: note: no fix: 'hist' is also used outside these atomics

// The old value is used (a slot allocation, not a count).
__global__ void slots(const unsigned char *key, unsigned int *next, unsigned int *pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    pos[i] = atomicAdd(&next[key[i]], 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:14: warning: threads atomically add to 256 bins{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: note: no fix: an atomic's result (the bin's old value) is used

// A return inside a loop: not every thread reaches the end.
__global__ void early(const unsigned char *img, unsigned int *hist, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (img[i] == 0)
      return;
    atomicAdd(&hist[img[i]], 1);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: threads atomically add to 256 bins{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: note: no fix: the kernel may return early inside a statement

// A data-read index evaluated twice by the fix would advance twice.
__global__ void stepping(const unsigned int *keys, unsigned int *seen, int n) {
  int j = threadIdx.x;
  while (j < n)
    atomicAdd(&seen[keys[j += blockDim.x]], 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to global 'seen' at indices read from data, and it has only 64 elements{{.*}} [sync-shared-histogram]
// CHECK-MESSAGES: note: no fix: an index calls a function or has side effects

// --- silent ---

// A scatter-add: the index is data of unknown range (not a histogram).
__global__ void scatter(const int *idx, const float *val, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[idx[i]], val[i]);
}

// A bin clamped from above only: may be negative.
__global__ void half_clamped(const float *x, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (int)(x[i] * 16);
    if (b > 15) b = 15;
    atomicAdd(&hist[b], 1);
  }
}

// Too many bins (an unsigned short value: 65536).
__global__ void wide(const unsigned short *v, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[v[i]], 1);
}

// Already privatised: the atomics go to shared memory (not a parameter).
__global__ void privatised(const unsigned char *img, unsigned int *hist, int n) {
  __shared__ unsigned int s[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    s[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&s[img[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    atomicAdd(&hist[b], s[b]);
}

// A scatter-add whose index is read from data into a large array (a
// million elements at its launch): not a histogram.
__global__ void scatter_big(const int *idx, const float *val, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[idx[i]], val[i]);
}

// One element per block of a small array: the index is not data.
__global__ void per_block(const float *x, float *partial, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&partial[blockIdx.x], x[i]);
}

// One counter, not a histogram: an error count under a test of two
// computations that a correct program never takes, whose old value picks
// the first thread to record its case. Its twin with two bins is reported.
__global__ void check_divide(int d, const int *fast, int *errors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i / d != fast[i]) {
    int first = atomicAdd(&errors[0], 1);
    if (first == 0)
      errors[1] = i;
  }
}
__global__ void sign_count(const float *x, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[x[i] < 0.0f ? 1 : 0], 1u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 2 bins of global 'hist' (index proven in [0, 1]){{.*}} [sync-shared-histogram]

void run_kmeans(const float *h_pts, int n) {
  float *pts, *sums, *val, *out, *partial;
  int *member, *counts, *idx;
  unsigned int *keys, *seen;
  cudaMalloc(&pts, sizeof(float) * n * 8);
  cudaMalloc(&member, sizeof(int) * n);
  cudaMalloc(&sums, sizeof(float) * 16 * 8);
  cudaMalloc(&counts, sizeof(int) * 16);
  cudaMalloc(&keys, sizeof(unsigned int) * n);
  cudaMalloc(&seen, sizeof(unsigned int) * 64);
  cudaMalloc(&idx, sizeof(int) * n);
  cudaMalloc(&val, sizeof(float) * n);
  cudaMalloc(&out, sizeof(float) * (1 << 20));
  cudaMalloc(&partial, sizeof(float) * 64);
  cudaMemcpy(pts, h_pts, sizeof(float) * n * 8, cudaMemcpyHostToDevice);
  accumulate<<<(n + 255) / 256, 256>>>(pts, member, sums, counts, n, 8);
// CHECK-FIXES: accumulate<<<(((n + 255) / 256) < 2048 ? ((n + 255) / 256) : 2048), 256>>>(pts, member, sums, counts, ((int)(n) < 1ll * ((n + 255) / 256) * (256) ? (int)(n) : 1ll * ((n + 255) / 256) * (256)), 8);
  stepping<<<1, 256>>>(keys, seen, n);
  scatter_big<<<(n + 255) / 256, 256>>>(idx, val, out, n);
  per_block<<<64, 256>>>(pts, partial, 64 * 256);
}
