// launch-loop-sync: device-wide synchronisations in host loops that launch
// kernels, moved after the loop when nothing in the loop needs them.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-loop-sync' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-loop-sync' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s\n", cudaGetErrorString(e_));                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__global__ void scale(float *a, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k && i < n) a[i * n + k] /= a[k * n + k];
}
__global__ void update(float *a, int k, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > k && j > k && i < n && j < n) a[i * n + j] -= a[i * n + k] * a[k * n + j];
}

// A factorisation: two launches per step, each followed by a checked
// synchronisation inside the error-check macro (do ... while (0)).
void factor(float *a, int n) {
  dim3 b2(16, 16), g2((n + 15) / 16, (n + 15) / 16);
  for (int k = 0; k < n; k++) {
    scale<<<(n + 255) / 256, 256>>>(a, k, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    update<<<g2, b2>>>(a, k, n);
    CHECK(cudaDeviceSynchronize());
  }
  printf("done\n");
}
// CHECK-MESSAGES: t.cu:[[@LINE-6]]:5: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('scale', 'update'): the host waits for the GPU to drain every iteration{{.*}}(2 synchronisations in this loop) [launch-loop-sync]
// CHECK-FIXES:      void factor(float *a, int n) {
// CHECK-FIXES:          CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT:     update<<<g2, b2>>>(a, k, n);
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   CHECK(cudaDeviceSynchronize());
// CHECK-FIXES-NEXT:   printf("done\n");

// Each thread walks all 8192 points (an O(N^2) step): every launch takes
// far longer than a synchronisation. Not reported; its twin, whose
// points are a parameter (no constant trip count), is. So is a loop that
// launches a short kernel beside the long one.
constexpr int kPoints = 8192;
__device__ float weight(const float *p, int i, int j) {
  float d = p[i] - p[j];
  return d * d < 1.0f ? 1.0f - d * d : 0.0f;
}
__global__ void shift_all(const float *p, float *q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kPoints) return;
  float s = 0.0f, w = 0.0f;
  for (int j = 0; j < kPoints; ++j) {
    float x = weight(p, i, j);
    s += x * p[j];
    w += x;
  }
  q[i] = s / w;
}
__global__ void shift_n(const float *p, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += weight(p, i, j) * p[j];
  q[i] = s;
}
void cluster(float *p, float *q, int n) {
  for (int it = 0; it < 100; ++it) {
    shift_all<<<kPoints / 64, 64>>>(p, q);
    cudaDeviceSynchronize();
    float *t = p; p = q; q = t;
  }
  for (int it = 0; it < 100; ++it) {
    shift_n<<<(n + 63) / 64, 64>>>(p, q, n);
    cudaDeviceSynchronize();
    float *t = p; p = q; q = t;
  }
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('shift_n'){{.*}} [launch-loop-sync]
  for (int it = 0; it < 100; ++it) {
    shift_all<<<kPoints / 64, 64>>>(p, q);
    scale<<<(n + 255) / 256, 256>>>(q, 0, n);
    cudaDeviceSynchronize();
    float *t = p; p = q; q = t;
  }
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('shift_all', 'scale'){{.*}} [launch-loop-sync]
}

// A time-stepping loop with a bare synchronisation and a synchronous copy
// to the host in the loop (it waits for the launches by itself); the
// statement after the loop is a copy too, so nothing is added.
float steps(float *a, float *h, int n, int iters) {
  float s = 0.0f;
  int it = 0;
  while (it < iters) {
    scale<<<(n + 255) / 256, 256>>>(a, 0, n);
    cudaStreamSynchronize(0);
    cudaMemcpy(h, a, sizeof(float), cudaMemcpyDeviceToHost);
    s += h[0];
    ++it;
  }
  cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
  return s;
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:5: warning: 'cudaStreamSynchronize()' in a host loop that launches kernels ('scale'){{.*}}[launch-loop-sync]
// CHECK-FIXES:      scale<<<(n + 255) / 256, 256>>>(a, 0, n);
// CHECK-FIXES-NEXT: cudaMemcpy(h, a, sizeof(float), cudaMemcpyDeviceToHost);
// CHECK-FIXES:      ++it;
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT:   cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);

// Through a host wrapper that launches (followed into its body), in the
// inner loop of two: the synchronisation moves after the inner loop, and
// the next round of composition moves it after the outer one.
static void step(float *a, int k, int n) { scale<<<(n + 255) / 256, 256>>>(a, k, n); }
void nested(float *a, int n) {
  for (int r = 0; r < 4; r++) {
    for (int k = 0; k < n; k++) {
      step(a, k, n);
      cudaDeviceSynchronize();
    }
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:7: warning: 'cudaDeviceSynchronize()' in a host loop that launches kernels ('scale'){{.*}}[launch-loop-sync]
// CHECK-FIXES:      for (int k = 0; k < n; k++) {
// CHECK-FIXES-NEXT:   step(a, k, n);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: }

// --- negative: each keeps its synchronisation -------------------------------
// Silent (the synchronisation is most likely needed) unless said otherwise.

// A launch on a stream of its own.
void streamed(float *a, int n, cudaStream_t s) {
  for (int k = 0; k < n; k++) {
    scale<<<1, 256, 0, s>>>(a, k, n);
    cudaDeviceSynchronize();
  }
}
// CHECK-FIXES: scale<<<1, 256, 0, s>>>(a, k, n);
// CHECK-FIXES-NEXT: cudaDeviceSynchronize();

// An asynchronous copy.
void async_copy(float *a, float *h, int n) {
  for (int k = 0; k < n; k++) {
    scale<<<1, 256>>>(a, k, n);
    cudaMemcpyAsync(h, a, 4, cudaMemcpyDeviceToHost);
    cudaDeviceSynchronize();
  }
}
// CHECK-FIXES: cudaMemcpyAsync(h, a, 4, cudaMemcpyDeviceToHost);
// CHECK-FIXES-NEXT: cudaDeviceSynchronize();

// Timing each iteration on the host.
void timed(float *a, int n) {
  for (int k = 0; k < n; k++) {
    auto t0 = std::chrono::steady_clock::now();
    scale<<<1, 256>>>(a, k, n);
    cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    printf("%lld\n", (long long)(t1 - t0).count());
  }
}
// CHECK-FIXES: scale<<<1, 256>>>(a, k, n);
// CHECK-FIXES-NEXT: cudaDeviceSynchronize();
// CHECK-FIXES-NEXT: auto t1

// The host reads through a pointer it passes to the kernel (memory the
// GPU and the host may share).
// CHECK-FIXES: if (a[0] > 1.0f) break;
void shared_ptr(float *a, int n) {
  for (int k = 0; k < n; k++) {
    scale<<<1, 256>>>(a, k, n);
    cudaDeviceSynchronize();
    if (a[0] > 1.0f) break;
  }
}

// A return inside the loop: reported, without a fix.
int early(float *a, int n, int *flag) {
  for (int k = 0; k < n; k++) {
    scale<<<1, 256>>>(a, k, n);
    cudaDeviceSynchronize();
    if (flag[k]) return k;
  }
  return -1;
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: 'cudaDeviceSynchronize()' in a host loop
// CHECK-MESSAGES: note: no fix: a return in the loop

// The result is kept: reported, without a fix.
int kept(float *a, int n) {
  cudaError_t err = cudaSuccess;
  for (int k = 0; k < n; k++) {
    scale<<<1, 256>>>(a, k, n);
    err = cudaDeviceSynchronize();
  }
  return (int)err;
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:11: warning: 'cudaDeviceSynchronize()' in a host loop
// CHECK-MESSAGES: note: no fix: a synchronisation is not a statement of its own (its result is used)

// No finding: no launch in the loop, or the synchronisation is not in a loop.
void no_launch(float *a, float *h, int n) {
  for (int k = 0; k < n; k++) {
    cudaMemcpy(a, h, 4, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
  }
  scale<<<1, 256>>>(a, 0, n);
  cudaDeviceSynchronize();
}
