// unrolling-jam: an outer loop of a few independent iterations (own scalar
// accumulators, one loop nest, own results after it) gets its iterations
// jammed into the innermost loop. Bitwise; offered for measurement by
// default (MeasureFirst), applied here with the apply-all configuration.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-jam' --config-file=%S/../../Driver/Inputs/apply-all.yaml --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Without the configuration the fix waits for a measurement.
// RUN: cp %s %t/measure.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-jam' --fix --allow-unverified %t/measure.cu 2>&1 | FileCheck --check-prefix=MEASURE %s
// MEASURE: [unrolling-jam] fix not applied: offered for GPU verification only
// RUN: diff %s %t/measure.cu
// Idempotent: the jammed loops do not match again.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,unrolling-jam' --config-file=%S/../../Driver/Inputs/apply-all.yaml --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// The original and the rewritten program print the same checksums (bit
// patterns of every output), on the CPU emulation.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: blur {{[0-9a-f]+}}
// RUNS: shared {{[0-9a-f]+}}
// RUNS: table {{[0-9a-f]+}}
// RUNS: offset {{[0-9a-f]+}}
// RUNS: cond {{[0-9a-f]+}}
#include <cstdio>
#include <cuda_runtime.h>

#define RADIUS 2

// A 5x5 Gaussian blur of interleaved RGB bytes, clamped at the borders.
__global__ void blur(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                     int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    for (int c = 0; c < 3; c++) {
      float sum = 0.0f, wsum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = expf(-(dx * dx + dy * dy) / (2.0f * 1.5f * 1.5f));
          sum += w * in[(yy * width + xx) * 3 + c];
          wsum += w;
        }
      }
      out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-15]]:5: warning: the 3 iterations of this loop are independent (own accumulators 'sum', 'wsum', own results) and each runs the whole loop nest again, recomputing what does not depend on 'c': unroll and jam them into the innermost loop [unrolling-jam]
// CHECK-FIXES:      if (x < width && y < height) {
// CHECK-FIXES-NEXT:   { // cuda-l1 unrolling-jam
// CHECK-FIXES-NEXT:     float cudal1_sum[3];
// CHECK-FIXES-NEXT:     float cudal1_wsum[3];
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT:     for (int c = 0; c < 3; c++) {
// CHECK-FIXES-NEXT:       cudal1_sum[c] = 0.0f;
// CHECK-FIXES-NEXT:       cudal1_wsum[c] = 0.0f;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     for (int dy = -RADIUS; dy <= RADIUS; dy++) {
// CHECK-FIXES-NEXT:       for (int dx = -RADIUS; dx <= RADIUS; dx++) {
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT:         for (int c = 0; c < 3; c++) {
// CHECK-FIXES-NEXT:           int xx = min(max(x + dx, 0), width - 1);
// CHECK-FIXES:                cudal1_sum[c] += w * in[(yy * width + xx) * 3 + c];
// CHECK-FIXES-NEXT:           cudal1_wsum[c] += w;
// CHECK-FIXES:      #pragma unroll
// CHECK-FIXES-NEXT:     for (int c = 0; c < 3; c++) {
// CHECK-FIXES-NEXT:       out[(y * width + x) * 3 + c] = (unsigned char)(cudal1_sum[c] / cudal1_wsum[c] + 0.5f);
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:   }

// The weights in a __shared__ table the block fills first (as
// algebraic-invariant-table writes it): read in any order, never stored by
// the loop.
__global__ void shared_table(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                             int width, int height) {
  __shared__ float wt[25];
  for (int t = threadIdx.x + blockDim.x * threadIdx.y; t < 25; t += blockDim.x * blockDim.y)
    wt[t] = expf(-(float)((t / 5 - 2) * (t / 5 - 2) + (t % 5 - 2) * (t % 5 - 2)) / 4.5f);
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    for (int c = 0; c < 3; c++) {
      float sum = 0.0f, wsum = 0.0f;
      for (int dy = -RADIUS; dy <= RADIUS; dy++) {
#pragma unroll
        for (int dx = -RADIUS; dx <= RADIUS; dx++) {
          int xx = min(max(x + dx, 0), width - 1);
          int yy = min(max(y + dy, 0), height - 1);
          float w = wt[(dy + 2) * 5 + dx + 2];
          sum += w * in[(yy * width + xx) * 3 + c];
          wsum += w;
        }
      }
      out[(y * width + x) * 3 + c] = (unsigned char)(sum / wsum + 0.5f);
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-16]]:5: warning: the 3 iterations of this loop are independent (own accumulators 'sum', 'wsum', own results)
// CHECK-FIXES:      __shared__ float wt[25];
// CHECK-FIXES:      float cudal1_sum[3];
// CHECK-FIXES:      float w = wt[(dy + 2) * 5 + dx + 2];
// CHECK-FIXES-NEXT: cudal1_sum[c] += w * in[(yy * width + xx) * 3 + c];

// Weights from a local constant table (as algebraic-invariant-table writes
// them), an unroll pragma on the inner loop, a typedef'd accumulator.
typedef float real_t;
__global__ void table(const unsigned char *__restrict__ in, float *__restrict__ out, int width,
                      int height) {
  const float tab[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
    for (int c = 0; c < 3; ++c) {
      real_t acc = 0;
      for (int dy = -1; dy <= 1; dy++)
#pragma unroll
        for (int dx = -1; dx <= 1; dx++)
          acc += tab[dy + 1][dx + 1] * in[((y + dy) * width + x + dx) * 3 + c];
      out[(y * width + x) * 3 + c] = acc / 16;
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-10]]:5: warning: the 3 iterations of this loop are independent (own accumulators 'acc', own results)
// CHECK-FIXES:      real_t cudal1_acc[3];
// CHECK-FIXES:      for (int dy = -1; dy <= 1; dy++)
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT:   for (int dx = -1; dx <= 1; dx++)
// CHECK-FIXES-NEXT:     {
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT:     for (int c = 0; c < 3; ++c) { cudal1_acc[c] += tab[dy + 1][dx + 1] * in[((y + dy) * width + x + dx) * 3 + c]; }
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: #pragma unroll
// CHECK-FIXES-NEXT: for (int c = 0; c < 3; ++c) {
// CHECK-FIXES-NEXT: out[(y * width + x) * 3 + c] = cudal1_acc[c] / 16;

// An outer loop from 1 to 3 inclusive: the arrays are indexed from 0.
__global__ void offset(const float *__restrict__ a, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 1; k <= 3; k++) {
    float s = 0.0f;
    for (int j = 0; j < 8; j++) {
      float v = a[(i + j) % n];
      s += v * k;
    }
    out[i * 3 + k - 1] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-9]]:3: warning: the 3 iterations of this loop are independent (own accumulators 's', own results)
// CHECK-FIXES:      cudal1_s[(k - (1))] = 0.0f;
// CHECK-FIXES:      out[i * 3 + k - 1] = cudal1_s[(k - (1))];

// Not reported: the results go through a pointer the nest reads (not
// proven distinct: no launch here).
__global__ void aliased(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 3; k++) {
    float s = 0.0f;
    for (int j = 0; j < 8; j++) {
      int idx = (i + j) % n;
      s += a[idx * 3 + k];
    }
    out[i * 3 + k] = s;
  }
}

// Not reported: an accumulator initialised from memory; a break; 16
// iterations; nothing in the nest without the index.
__global__ void negatives(const float *__restrict__ a, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 3; k++) {
    float s = a[k];
    for (int j = 0; j < 8; j++) {
      int idx = (i + j) % n;
      s += a[idx];
    }
    out[i * 3 + k] = s;
  }
  for (int k = 0; k < 3; k++) {
    float s = 0.0f;
    for (int j = 0; j < 8; j++) {
      int idx = (i + j) % n;
      if (a[idx] < 0)
        break;
      s += a[idx];
    }
    out[i * 3 + k] = s;
  }
  for (int k = 0; k < 16; k++) {
    float s = 0.0f;
    for (int j = 0; j < 8; j++) {
      int idx = (i + j) % n;
      s += a[idx];
    }
    out[i * 16 + k] = s;
  }
  for (int k = 0; k < 3; k++) {
    float s = 0.0f;
    for (int j = 0; j < 8; j++)
      s += a[k * n + j];
    out[i * 3 + k] = s;
  }
}

// A result stored under a condition (an `if` statement after the nest),
// and an accumulator initialised from another one.
__global__ void cond_tail(const float *__restrict__ a, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int k = 0; k < 2; k++) {
    float base = k * 0.5f;
    float s = base + 1.0f;
    for (int j = 0; j < 4; j++) {
      float v = a[(i + j) % n];
      s += v * (k + 1);
    }
    if (s > 0.0f)
      out[i * 2 + k] = s;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-11]]:3: warning: the 2 iterations of this loop are independent (own accumulators 'base', 's', own results)
// CHECK-FIXES:      cudal1_s[k] = cudal1_base[k] + 1.0f;
// CHECK-FIXES:      if (cudal1_s[k] > 0.0f)
// CHECK-FIXES-NEXT:   out[i * 2 + k] = cudal1_s[k];

// Not reported: the innermost body steps a variable of the nest declared
// outside it (it would step three times); a nest variable with the loop's
// own name; a loop under its own `#pragma unroll`.
__global__ void jam_negatives(const float *__restrict__ a, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int c = 0; c < 3; c++) {
    float s = 0.0f;
    for (int dy = 0; dy < 2; dy++) {
      int idx = i + dy * 8;
      for (int dx = 0; dx < 4; dx++) {
        s += a[(idx % n) * 3 + c];
        idx++;
      }
    }
    out[i * 3 + c] = s;
  }
  for (int c = 0; c < 3; c++) {
    float s = 0.0f;
    for (int j = 0; j < 4; j++) {
      int c2 = j * 2;
      for (int c = 0; c < 2; c++)
        s += a[(i + c + c2) % n];
    }
    out[i * 3 + c] = s;
  }
#pragma unroll
  for (int c = 0; c < 3; c++) {
    float s = 0.0f;
    for (int j = 0; j < 4; j++) {
      int idx = (i + j) % n;
      s += a[idx * 3 + c];
    }
    out[i * 3 + c] = s;
  }
}

static unsigned hashBytes(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  unsigned h = 2166136261u;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

int main() {
  const int W = 40, H = 24, N = W * H;
  unsigned char *hin = new unsigned char[N * 3];
  float *ha = new float[N];
  for (int i = 0; i < N * 3; ++i)
    hin[i] = (unsigned char)((i * 2654435761u) >> 24);
  for (int i = 0; i < N; ++i)
    ha[i] = (float)((i * 37) % 101) / 7.0f - 5.0f;
  unsigned char *in, *ob;
  float *of, *a;
  cudaMalloc((void **)&in, N * 3);
  cudaMalloc((void **)&ob, N * 3);
  cudaMalloc((void **)&of, N * 3 * sizeof(float));
  cudaMalloc((void **)&a, N * sizeof(float));
  cudaMemcpy(in, hin, N * 3, cudaMemcpyHostToDevice);
  cudaMemcpy(a, ha, N * sizeof(float), cudaMemcpyHostToDevice);
  unsigned char *hb = new unsigned char[N * 3];
  float *hf = new float[N * 3];
  dim3 block(16, 8), grid((W + 15) / 16, (H + 7) / 8);
  blur<<<grid, block>>>(in, ob, W, H);
  cudaMemcpy(hb, ob, N * 3, cudaMemcpyDeviceToHost);
  printf("blur %08x\n", hashBytes(hb, N * 3));
  cudaMemset(ob, 0, N * 3);
  shared_table<<<grid, block>>>(in, ob, W, H);
  cudaMemcpy(hb, ob, N * 3, cudaMemcpyDeviceToHost);
  printf("shared %08x\n", hashBytes(hb, N * 3));
  cudaMemset(of, 0, N * 3 * sizeof(float));
  table<<<grid, block>>>(in, of, W, H);
  cudaMemcpy(hf, of, N * 3 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("table %08x\n", hashBytes(hf, N * 3 * sizeof(float)));
  offset<<<(N + 127) / 128, 128>>>(a, of, N);
  cudaMemcpy(hf, of, N * 3 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("offset %08x\n", hashBytes(hf, N * 3 * sizeof(float)));
  cudaMemset(of, 0, N * 3 * sizeof(float));
  cond_tail<<<(N + 127) / 128, 128>>>(a, of, N);
  cudaMemcpy(hf, of, N * 3 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("cond %08x\n", hashBytes(hf, N * 3 * sizeof(float)));
  return 0;
}
