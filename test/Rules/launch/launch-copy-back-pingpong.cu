// launch-copy-back-pingpong: time-step loops that launch a step kernel
// (reads A, writes B) and then a kernel copying B back into A over the same
// elements: the steps alternate between A and a copy of A, and the copy
// runs once at the end; both arrays end bitwise as the loop leaves them.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-copy-back-pingpong' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the loops kept as fallbacks are not reported again; the
// refused ones are.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-copy-back-pingpong' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND-COUNT-7: warning: every step of this loop copies
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// The fixes are host code, exact (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,launch-copy-back-pingpong' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "bitwise"
// The rewritten file compiles (nvcc, NVRTC for the kernels), the tool finds
// nothing to say about its own helper, and on the CPU emulation
// (utils/bench/cuemu) both arrays of every loop end bitwise as the
// original leaves them, for 0 to 6 steps (the loop as written below 3, an
// odd and an even number of steps above).
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %cuda-l1-rewrite --format=json %t/t.cu | FileCheck --check-prefix=HELPER %s
// HELPER: "findings"
// HELPER-NOT: "kernel": "cudal1_pingpong_copy_kernel"
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: textbook n=37 steps=5:
// RUNS: early_return n=1000 steps=5: t=6
// RUNS: memcpy_back n=37 steps=5:
// RUNS: coefficients n=1000 steps=6:
// RUNS: done
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e),     \
              __LINE__);                                                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

static unsigned long long hash(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; i++)
    h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

// The textbook 2-D Jacobi step and its copy back (other local names, a
// double constant), B starting with other values than A (its border too).
__global__ void jacobi_step(int n, DATA_TYPE *A, DATA_TYPE *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1))) {
    B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] +
                          A[(1 + i) * n + j] + A[(i - 1) * n + j]);
  }
}

__global__ void jacobi_copy(int n, DATA_TYPE *A, DATA_TYPE *B) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if ((row >= 1) && (row < (n - 1)) && (col >= 1) && (col < (n - 1))) {
    A[row * n + col] = B[row * n + col];
  }
}

void textbook(int n, int tsteps, const DATA_TYPE *a0, const DATA_TYPE *b0, DATA_TYPE *a,
              DATA_TYPE *b) {
  DATA_TYPE *A_gpu, *B_gpu;
  CHECK(cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * n * n));
  CHECK(cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * n * n));
  CHECK(cudaMemcpy(A_gpu, a0, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B_gpu, b0, sizeof(DATA_TYPE) * n * n, cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  for (int t = 0; t < tsteps; t++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'B_gpu' back into 'A_gpu' with a kernel ('jacobi_copy' after 'jacobi_step'): stepping alternately between 'A_gpu' and a copy of it leaves one copy, at the end [launch-copy-back-pingpong]
    jacobi_step<<<grid, block>>>(n, A_gpu, B_gpu);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    jacobi_copy<<<grid, block>>>(n, A_gpu, B_gpu);
    CHECK(cudaDeviceSynchronize());
  }
  CHECK(cudaMemcpy(a, A_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, B_gpu, sizeof(DATA_TYPE) * n * n, cudaMemcpyDeviceToHost));
  cudaFree(A_gpu);
  cudaFree(B_gpu);
}
// CHECK-FIXES:      #ifndef CUDAL1_PINGPONG_COPY
// CHECK-FIXES:      static void cudal1_pingpong_copy(void *d, const void *s, unsigned long long n) {
// CHECK-FIXES:      void textbook(int n, int tsteps,
// CHECK-FIXES:        dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
// CHECK-FIXES-NEXT:   {
// CHECK-FIXES-NEXT:     // cuda-l1 launch-copy-back-pingpong: the steps ('jacobi_step') alternate between 'A_gpu' and a copy of it; 'jacobi_copy' copies back once, at the end
// CHECK-FIXES-NEXT:     decltype(A_gpu) cudal1_pp = nullptr;
// CHECK-FIXES-NEXT:     bool cudal1_pingpong = (tsteps) - (0) >= 3;
// CHECK-FIXES-NEXT:     if (cudal1_pingpong && cudaMalloc((void **)&cudal1_pp, (size_t)(sizeof(DATA_TYPE) * n * n)) != cudaSuccess) {
// CHECK-FIXES-NEXT:       (void)cudaGetLastError();
// CHECK-FIXES-NEXT:       cudal1_pingpong = false;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     if (cudal1_pingpong) {
// CHECK-FIXES-NEXT:       cudal1_pingpong_copy(cudal1_pp, A_gpu, (size_t)(sizeof(DATA_TYPE) * n * n));
// CHECK-FIXES-NEXT:       decltype(A_gpu) cudal1_src = A_gpu, cudal1_dst = cudal1_pp;
// CHECK-FIXES-NEXT:       bool cudal1_ran = false;
// CHECK-FIXES-NEXT:       for (int t = 0; t < tsteps; t++) {
// CHECK-FIXES-NEXT:         jacobi_step<<<grid, block>>>(n, cudal1_src, cudal1_dst);
// CHECK-FIXES-NEXT:         CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT:         CHECK(cudaDeviceSynchronize());
// CHECK-FIXES-NEXT:         CHECK(cudaDeviceSynchronize());
// CHECK-FIXES-NEXT:         {
// CHECK-FIXES-NEXT:           decltype(A_gpu) cudal1_t = cudal1_src;
// CHECK-FIXES-NEXT:           cudal1_src = cudal1_dst;
// CHECK-FIXES-NEXT:           cudal1_dst = cudal1_t;
// CHECK-FIXES-NEXT:         }
// CHECK-FIXES-NEXT:         cudal1_ran = true;
// CHECK-FIXES-NEXT:       }
// CHECK-FIXES-NEXT:       if (cudal1_ran) {
// CHECK-FIXES-NEXT:         jacobi_copy<<<grid, block>>>(n, B_gpu, cudal1_src);
// CHECK-FIXES-NEXT:         if (cudal1_src != A_gpu)
// CHECK-FIXES-NEXT:           jacobi_copy<<<grid, block>>>(n, A_gpu, cudal1_src);
// CHECK-FIXES-NEXT:       }
// CHECK-FIXES-NEXT:       cudaFree(cudal1_pp);
// CHECK-FIXES-NEXT:     } else {
// CHECK-FIXES-NEXT:       for (int t = 0; t < tsteps; t++) {
// CHECK-FIXES-NEXT:         jacobi_step<<<grid, block>>>(n, A_gpu, B_gpu);

// One dimension, early returns instead of a guard, the loop variable
// declared before the loop and passed to the step, `<=`, the template
// cudaMalloc with a size variable.
__global__ void diffuse(const float *u, float *v, int n, float rate) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1)
    return;
  if (i >= n - 1)
    return;
  v[i] = u[i] + rate * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
}

__global__ void copy_back(float *dst, const float *src, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < 1)
    return;
  if (k >= n - 1)
    return;
  dst[k] = src[k];
}

int early_return(int n, int steps, const float *u0, float *u_out, float *v_out) {
  size_t bytes = n * sizeof(float);
  float *u = nullptr, *v = nullptr;
  CHECK(cudaMalloc(&u, bytes));
  CHECK(cudaMalloc(&v, bytes));
  CHECK(cudaMemcpy(u, u0, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(v, u0, bytes, cudaMemcpyHostToDevice));
  int t;
  for (t = 1; t <= steps; ++t) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'v' back into 'u' with a kernel ('copy_back' after 'diffuse')
    diffuse<<<(n + 127) / 128, 128>>>(u, v, n, 0.05f + 0.01f * t);
    copy_back<<<(n + 127) / 128, 128>>>(u, v, n);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(u_out, u, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(v_out, v, bytes, cudaMemcpyDeviceToHost));
  cudaFree(u);
  cudaFree(v);
  return t;
}
// CHECK-FIXES:      bool cudal1_pingpong = (steps) - (1) >= 2;
// CHECK-FIXES:        for (t = 1; t <= steps; ++t) {
// CHECK-FIXES-NEXT:     diffuse<<<(n + 127) / 128, 128>>>(cudal1_src, cudal1_dst, n, 0.05f + 0.01f * t);
// CHECK-FIXES-NEXT:     CHECK(cudaGetLastError());
// CHECK-FIXES:            copy_back<<<(n + 127) / 128, 128>>>(v, cudal1_src, n);
// CHECK-FIXES-NEXT:       if (cudal1_src != u)
// CHECK-FIXES-NEXT:         copy_back<<<(n + 127) / 128, 128>>>(u, cudal1_src, n);

// A read-only coefficient array of its own allocation.
__global__ void weighted(float *in, float *out, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    float left = in[i - 1], right = in[i + 1];
    out[i] = w[i] * in[i] + 0.5f * (1.0f - w[i]) * (left + right);
  }
}

__global__ void assign(float *to, float *from, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    to[i] = from[i];
}

void coefficients(int n, int steps, const float *x0, const float *w0, float *x_out,
                  float *y_out) {
  float *x, *y, *w;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  CHECK(cudaMemcpy(x, x0, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, w0, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, w0, n * sizeof(float), cudaMemcpyHostToDevice));
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x' with a kernel ('assign' after 'weighted')
    weighted<<<(n + 255) / 256, 256>>>(x, y, w, n);
    assign<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  CHECK(cudaMemcpy(x_out, x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y_out, y, n * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
}
// CHECK-FIXES:        weighted<<<(n + 255) / 256, 256>>>(cudal1_src, cudal1_dst, w, n);

// The copy back by cudaMemcpy (device to device, the whole allocation): the
// new grid starts as zeros, so its border differs from the old one's until
// the first copy.
__global__ void heat_step(const float *t_old, float *t_new, int n, float k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    float c = t_old[y * n + x];
    t_new[y * n + x] = c + k * (t_old[y * n + x - 1] + t_old[y * n + x + 1] +
                                t_old[(y - 1) * n + x] + t_old[(y + 1) * n + x] - 4.0f * c);
  }
}

void memcpy_back(int n, int steps, const float *t0, float *a, float *b) {
  size_t bytes = sizeof(float) * n * n;
  float *d_old, *d_new;
  CHECK(cudaMalloc(&d_old, bytes));
  CHECK(cudaMalloc(&d_new, bytes));
  CHECK(cudaMemcpy(d_old, t0, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_new, 0, bytes));
  dim3 threads(16, 16);
  dim3 blocks((n + 15) / 16, (n + 15) / 16);
  for (int s = 0; s < steps; ++s) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'd_new' back into 'd_old' with cudaMemcpy (after 'heat_step'): after the first step the two are equal, and stepping alternately between them leaves one copy, at the end [launch-copy-back-pingpong]
    heat_step<<<blocks, threads>>>(d_old, d_new, n, 0.1f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy((void *)d_old, (const void *)d_new, bytes, cudaMemcpyDeviceToDevice));
  }
  CHECK(cudaMemcpy(a, d_old, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, d_new, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_old);
  cudaFree(d_new);
}
// CHECK-FIXES:        dim3 blocks((n + 15) / 16, (n + 15) / 16);
// CHECK-FIXES-NEXT:   {
// CHECK-FIXES-NEXT:     // cuda-l1 launch-copy-back-pingpong: after the first step 'd_old' and 'd_new' are equal; the steps ('heat_step') alternate between them and one copy at the end makes them equal again
// CHECK-FIXES-NEXT:     decltype(d_old) cudal1_src = d_old, cudal1_dst = d_new;
// CHECK-FIXES-NEXT:     long long cudal1_pingpong_steps = 0;
// CHECK-FIXES-NEXT:     for (int s = 0; s < steps; ++s) {
// CHECK-FIXES-NEXT:       heat_step<<<blocks, threads>>>(cudal1_src, cudal1_dst, n, 0.1f);
// CHECK-FIXES-NEXT:       CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT:       if (cudal1_pingpong_steps == 0) {
// CHECK-FIXES-NEXT:         CHECK(cudaMemcpy((void *)d_old, (const void *)d_new, bytes, cudaMemcpyDeviceToDevice));
// CHECK-FIXES-NEXT:       } else {
// CHECK-FIXES-NEXT:         decltype(d_old) cudal1_t = cudal1_src;
// CHECK-FIXES-NEXT:         cudal1_src = cudal1_dst;
// CHECK-FIXES-NEXT:         cudal1_dst = cudal1_t;
// CHECK-FIXES-NEXT:       }
// CHECK-FIXES-NEXT:       ++cudal1_pingpong_steps;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     if (cudal1_pingpong_steps > 1) {
// CHECK-FIXES-NEXT:       CHECK(cudaMemcpy((void *)cudal1_dst, (const void *)cudal1_src, bytes, cudaMemcpyDeviceToDevice));
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:   }

// --- refused --------------------------------------------------------------

// The copy takes the whole array (the border too): not the elements the
// step writes.
__global__ void copy_all(float *to, float *from, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    to[i] = from[i];
}

void whole_copy(int n, int steps) {
  float *x, *y, *w;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x' with a kernel ('copy_all' after 'weighted')
    // CHECK-MESSAGES: note: no fix: 'weighted' and 'copy_all' do not compute the element they write the same way
    weighted<<<(n + 255) / 256, 256>>>(x, y, w, n);
    copy_all<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
}

// The step reads what it writes.
__global__ void in_place(float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = 0.5f * (out[i] + in[i - 1]);
}

void reads_output(int n, int steps) {
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x'
    // CHECK-MESSAGES: note: no fix: 'in_place' reads 'y', which it writes
    in_place<<<(n + 255) / 256, 256>>>(x, y, n);
    assign<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  cudaFree(x);
  cudaFree(y);
}

// Buffers of the caller: their size is not known here.
void callers_buffers(float *x, float *y, int n, int steps) {
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x'
    // CHECK-MESSAGES: note: no fix: 'x' is not set by one cudaMalloc of this function before the loop: the size of a copy is not known
    diffuse<<<(n + 255) / 256, 256>>>(x, y, n, 0.1f);
    copy_back<<<(n + 255) / 256, 256>>>(x, y, n);
  }
}

void calls_with_buffers(int n) {
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  callers_buffers(x, y, n, 10);
  cudaFree(x);
  cudaFree(y);
}

// Host work in the loop.
float host_work(int n, int steps) {
  float *x, *y, *w;
  float total = 0;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x'
    // CHECK-MESSAGES: note: no fix: the loop does more than the two launches and error checks (line [[@LINE+2]])
    weighted<<<(n + 255) / 256, 256>>>(x, y, w, n);
    total += s;
    assign<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
  return total;
}

// A coefficient pointer that is not its own allocation.
void aliased_coefficients(int n, int steps) {
  float *x, *y;
  CHECK(cudaMalloc(&x, 2 * n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  float *w = x + n;
  for (int s = 0; s < steps; s++) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'y' back into 'x'
    // CHECK-MESSAGES: note: no fix: 'weighted' reads 'w', which may point into 'x'
    weighted<<<(n + 255) / 256, 256>>>(x, y, w, n);
    assign<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  cudaFree(x);
  cudaFree(y);
}

// A copy of part of the buffers: the rest of them stays different.
void memcpy_part(int n, int steps) {
  float *d_old, *d_new;
  CHECK(cudaMalloc(&d_old, sizeof(float) * n * n));
  CHECK(cudaMalloc(&d_new, sizeof(float) * n * n));
  dim3 threads(16, 16);
  dim3 blocks((n + 15) / 16, (n + 15) / 16);
  for (int s = 0; s < steps; ++s) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'd_new' back into 'd_old' with cudaMemcpy
    // CHECK-MESSAGES: note: no fix: the copy is not of the whole of both allocations
    heat_step<<<blocks, threads>>>(d_old, d_new, n, 0.1f);
    CHECK(cudaMemcpy(d_old, d_new, sizeof(float) * n * (n / 2), cudaMemcpyDeviceToDevice));
  }
  cudaFree(d_old);
  cudaFree(d_new);
}

// Which elements the step writes depends on data: where it does not write,
// the new grid keeps an older value than the copy would give.
__global__ void masked_step(const float *in, float *out, const int *mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1 && mask[i])
    out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

void memcpy_masked(int n, int steps) {
  float *d_old, *d_new;
  int *d_mask;
  CHECK(cudaMalloc(&d_old, sizeof(float) * n));
  CHECK(cudaMalloc(&d_new, sizeof(float) * n));
  CHECK(cudaMalloc(&d_mask, sizeof(int) * n));
  for (int s = 0; s < steps; ++s) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: every step of this loop copies 'd_new' back into 'd_old' with cudaMemcpy
    // CHECK-MESSAGES: note: no fix: the elements 'masked_step' writes may change from one step to the next
    masked_step<<<(n + 255) / 256, 256>>>(d_old, d_new, d_mask, n);
    CHECK(cudaMemcpy(d_old, d_new, sizeof(float) * n, cudaMemcpyDeviceToDevice));
  }
  cudaFree(d_old);
  cudaFree(d_new);
  cudaFree(d_mask);
}

// --- silent ---------------------------------------------------------------

// The copy goes the other way (B from A): not a copy back of the step.
void other_direction(int n, int steps) {
  float *x, *y, *w;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  for (int s = 0; s < steps; s++) {
    weighted<<<(n + 255) / 256, 256>>>(x, y, w, n);
    assign<<<(n + 255) / 256, 256>>>(y, x, n);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
}

// --- driver ---------------------------------------------------------------

int main() {
  // BIG (the GPU test): many blocks in both dimensions.
#ifdef BIG
  const int n2 = 1029, n1 = 3 * 1024 * 1024 + 5;
#else
  const int n2 = 37, n1 = 1000;
#endif
  DATA_TYPE *a0 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n2 * n2);
  DATA_TYPE *b0 = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n2 * n2);
  DATA_TYPE *a = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n2 * n2);
  DATA_TYPE *b = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * n2 * n2);
  for (int i = 0; i < n2 * n2; i++) {
    a0[i] = (DATA_TYPE)((i * 37) % 101) / 7;
    b0[i] = (DATA_TYPE)((i * 53) % 89) / 3;
  }
  float *u0 = (float *)malloc(sizeof(float) * n1), *w0 = (float *)malloc(sizeof(float) * n1);
  float *u = (float *)malloc(sizeof(float) * n1), *v = (float *)malloc(sizeof(float) * n1);
  for (int i = 0; i < n1; i++) {
    u0[i] = (float)((i * 29) % 113) / 11;
    w0[i] = (float)((i * 17) % 23) / 23;
  }
  for (int steps = 0; steps <= 6; steps++) {
    textbook(n2, steps, a0, b0, a, b);
    printf("textbook n=%d steps=%d: A %016llx B %016llx\n", n2, steps,
           hash(a, sizeof(DATA_TYPE) * n2 * n2), hash(b, sizeof(DATA_TYPE) * n2 * n2));
    int t = early_return(n1, steps, u0, u, v);
    printf("early_return n=%d steps=%d: t=%d u %016llx v %016llx\n", n1, steps, t,
           hash(u, sizeof(float) * n1), hash(v, sizeof(float) * n1));
    memcpy_back(n2, steps, a0, a, b);
    printf("memcpy_back n=%d steps=%d: old %016llx new %016llx\n", n2, steps,
           hash(a, sizeof(float) * n2 * n2), hash(b, sizeof(float) * n2 * n2));
    coefficients(n1, steps, u0, w0, u, v);
    printf("coefficients n=%d steps=%d: x %016llx y %016llx\n", n1, steps,
           hash(u, sizeof(float) * n1), hash(v, sizeof(float) * n1));
  }
  printf("done\n");
  return 0;
}
