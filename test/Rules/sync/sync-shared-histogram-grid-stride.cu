// sync-shared-histogram, grid-stride form: when every privatised atomic is
// inside one top-level `if (... i < n ...)` and every launch is in the file,
// the launches keep at most 2048 blocks and each block runs that statement
// for the original blocks blockIdx + k * gridDim (along y for a 2-D image,
// whose grid keeps its x extent): its bins are zeroed and added to global
// memory once for many of the original blocks (the corpus's 8192 x 4096
// image had 131072 blocks, each adding up to 256 bins). The bound is capped
// at the launch to what the original grid reached. Kernels with a per-block
// effect, an early return or a bound that also indexes keep one pass.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: printf 'CheckOptions:\n  sync-shared-histogram.MeasureFirst: false\n' > %t/config.yaml
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --config-file=%t/config.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-shared-histogram' --format=json %s | FileCheck --check-prefix=FIX %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// Original and rewritten print the same on the CPU emulation, and the
// values are the ones computed apart in Python from the same generator
// (sum of bin * count, then the count of bin 7).
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: image covering: 1636269 50
// RUNS: image short: 396778 11
// RUNS: image long: 1636269 50
// RUNS: pairs: 404909 216 |: 79249 59
// RUNS: flagged: 1636269 50 blocks 50
// RUNS: returning: 1636269 50
// RUNS: flipped: 1636269 50
// RUNS: carried: 118788 1023
// RUNS: barrier: 1633536 71
// RUNS: window: 96128 108778
#include <cstdio>
#include <cuda_runtime.h>

// A 2-D image histogram: along y.
__global__ void image_hist(const unsigned char *img, unsigned int *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(&hist[img[y * w + x]], 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 256 bins of global 'hist'
// FIX: "description": "per-block bins in shared memory, one atomicAdd per non-empty bin per block; the launches keep at most 2048 blocks, each covering the original blocks blockIdx.y + k * gridDim.y"
// CHECK-FIXES:      int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   for (unsigned int cudal1_b = blockIdx.y; (long long)cudal1_b * blockDim.y < (long long)(h); cudal1_b += gridDim.y) {
// CHECK-FIXES-NEXT:     int y = cudal1_b * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:     if (x < w && y < h)
// CHECK-FIXES-NEXT:       atomicAdd(&cudal1_bins[img[y * w + x]], 1);
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   __syncthreads();

// 1-D, two histograms in a block of statements, the bin from locals (the
// second a window of its 256-element allocation).
__global__ void pair_hist(const unsigned char *a, unsigned int *lo, unsigned int *hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = a[i];
    atomicAdd(&lo[v & 63], 1);
    if (v >= 200)
      atomicAdd(&hi[v - 200], 1u);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: threads atomically add to 64 bins of global 'lo'
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: threads atomically add to global 'hi' at indices read from data, and it has only 256 elements at every launch
// CHECK-MESSAGES: note: no fix: privatised by the fix given for 'lo'
// CHECK-FIXES:      for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:   int i = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (i < n) {
// CHECK-FIXES-NEXT:     int v = a[i];
// CHECK-FIXES-NEXT:     atomicAdd(&cudal1_bins[v & 63], 1);
// CHECK-FIXES-NEXT:     if (v >= 200)
// CHECK-FIXES-NEXT:       ((unsigned long long)(v - 200) < 256ull ? atomicAdd(&cudal1_bins_2[v - 200], 1u) : atomicAdd(&hi[v - 200], 1u));
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// One pass: a per-block flag (an effect outside the block: fewer blocks
// would set fewer flags).
__global__ void ng_flagged(const unsigned char *img, unsigned int *hist, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    seen[blockIdx.x] = 1;
  if (i < n)
    atomicAdd(&hist[img[i]], 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 256 bins of global 'hist'
// CHECK-FIXES:      seen[blockIdx.x] = 1;
// CHECK-FIXES-NEXT:   if (i < n)
// CHECK-FIXES-NEXT:     atomicAdd(&cudal1_bins[img[i]], 1);

// One pass: an early return.
__global__ void ng_returning(const unsigned char *img, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(&hist[img[i]], 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: threads atomically add to 256 bins of global 'hist'
// CHECK-FIXES:      if (!(i >= n)) {
// CHECK-FIXES-NEXT:   atomicAdd(&cudal1_bins[img[i]], 1);

// One pass: the bounds also index (the rows flipped, w the row length).
__global__ void ng_flipped(const unsigned char *img, unsigned int *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(&hist[img[(h - 1 - y) * w + x]], 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: threads atomically add to 256 bins of global 'hist'
// CHECK-FIXES:      int y = blockIdx.y * blockDim.y + threadIdx.y;
// CHECK-FIXES-NEXT:   if (x < w && y < h)
// CHECK-FIXES-NEXT:     atomicAdd(&cudal1_bins[img[(h - 1 - y) * w + x]], 1);

// One pass: a variable declared before the statement and changed in it
// (a digit sum) would carry its value from one element into the next.
__global__ void ng_carried(const unsigned char *img, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  if (i < n) {
    int x = img[i];
    while (x > 0) {
      s += x % 10;
      x /= 10;
    }
    atomicAdd(&hist[s & 63], 1);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: threads atomically add to 64 bins of global 'hist'
// CHECK-FIXES:      int s = 0;
// CHECK-FIXES-NEXT:   if (i < n) {

// One pass: a barrier in the statement (a second pass's tile writes would
// race with the first pass's reads).
__global__ void ng_barrier(const unsigned char *img, unsigned int *hist, int n) {
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = img[i];
    __syncthreads();
    atomicAdd(&hist[(tile[threadIdx.x] - tile[threadIdx.x ^ 1u]) & 255], 1);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: threads atomically add to 256 bins of global 'hist'
// CHECK-FIXES:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (i < n) {
// CHECK-FIXES-NEXT:     tile[threadIdx.x] = img[i];

// Grid-stride with a window's atomic written over two lines (replaced
// whole: the statement's other lines are indented around it).
__global__ void window2(const unsigned char *img, const int *lab, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&sums[lab[i]],
              (float)img[i]);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: threads atomically add to global 'sums' at indices read from data, and it has only 16 elements at every launch
// CHECK-FIXES:      for (unsigned int cudal1_b = blockIdx.x; (long long)cudal1_b * blockDim.x < (long long)(n); cudal1_b += gridDim.x) {
// CHECK-FIXES-NEXT:   int i = cudal1_b * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   if (i < n) {
// CHECK-FIXES-NEXT:     ((unsigned long long)(lab[i]) < 16ull ? atomicAdd(&cudal1_bins[lab[i]], (float)img[i]) : atomicAdd(&sums[lab[i]], (float)img[i]));
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

static void show(const char *what, const unsigned int *d, int bins) {
  unsigned int h[256];
  cudaMemcpy(h, d, bins * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  long s = 0;
  for (int b = 0; b < bins; ++b)
    s += (long)b * h[b];
  printf("%s: %ld %u", what, s, h[7]);
}

int main() {
  int w = 64, h = 200, n = w * h; // not constants: the grids are not known
  unsigned char *himg = new unsigned char[n];
  unsigned long long S = 9;
  for (int i = 0; i < n; ++i) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    himg[i] = (unsigned char)((S >> 40) % 256);
  }
  unsigned char *img;
  unsigned int *hist, *hist2;
  int *seen;
  cudaMalloc((void **)&img, n);
  cudaMalloc((void **)&hist, 256 * sizeof(unsigned int));
  cudaMalloc((void **)&hist2, 256 * sizeof(unsigned int));
  cudaMalloc((void **)&seen, 64 * sizeof(int));
  cudaMemcpy(img, himg, n, cudaMemcpyHostToDevice);

  dim3 threads(32, 8);
  dim3 covering((w + 31) / 32, (h + 7) / 8), shortg(2, 6), longg(2, (h + 7) / 8 + 9);
  const char *names[] = {"image covering", "image short", "image long"};
  dim3 grids[] = {covering, shortg, longg};
  for (int g = 0; g < 3; ++g) {
    cudaMemset(hist, 0, 256 * sizeof(unsigned int));
    dim3 gg = grids[g];
    image_hist<<<gg, threads>>>(img, hist, w, h);
    show(names[g], hist, 256);
    printf("\n");
  }

  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  cudaMemset(hist2, 0, 256 * sizeof(unsigned int));
  pair_hist<<<(n + 127) / 128, 128>>>(img, hist, hist2, n);
  show("pairs", hist, 64);
  printf(" |");
  show("", hist2, 56);
  printf("\n");

  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  cudaMemset(seen, 0, 64 * sizeof(int));
  ng_flagged<<<(n + 255) / 256, 256>>>(img, hist, seen, n);
  show("flagged", hist, 256);
  int hs[64], nseen = 0;
  cudaMemcpy(hs, seen, sizeof(hs), cudaMemcpyDeviceToHost);
  for (int b = 0; b < 64; ++b)
    nseen += hs[b];
  printf(" blocks %d\n", nseen);

  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  ng_returning<<<(n + 255) / 256, 256>>>(img, hist, n);
  show("returning", hist, 256);
  printf("\n");

  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  ng_flipped<<<covering, threads>>>(img, hist, w, h);
  show("flipped", hist, 256);
  printf("\n");
  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  ng_carried<<<(n + 255) / 256, 256>>>(img, hist, n);
  show("carried", hist, 64);
  printf("\n");

  cudaMemset(hist, 0, 256 * sizeof(unsigned int));
  ng_barrier<<<(n + 255) / 256, 256>>>(img, hist, n);
  show("barrier", hist, 256);
  printf("\n");

  int *hlab = new int[n], *lab;
  for (int i = 0; i < n; ++i)
    hlab[i] = himg[i] & 15;
  float *sums, hsum[16];
  cudaMalloc((void **)&lab, n * sizeof(int));
  cudaMalloc((void **)&sums, 16 * sizeof(float));
  cudaMemcpy(lab, hlab, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(sums, 0, 16 * sizeof(float));
  window2<<<(n + 127) / 128, 128>>>(img, lab, sums, n);
  cudaMemcpy(hsum, sums, sizeof(hsum), cudaMemcpyDeviceToHost);
  printf("window: %.0f %.0f\n", hsum[0], hsum[15]);
  return 0;
}
