// launch-step-doubling-scan: host loops that compute a prefix sum by step
// doubling (Hillis-Steele) over global memory, one launch per step, become
// a tiled scan that leaves both buffers as the loop leaves them (integer
// element types); the loop runs as written when the runtime test fails.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-step-doubling-scan' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: the loops kept as fallbacks are not reported again; the
// refused ones are.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-step-doubling-scan' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SECOND --implicit-check-not='warning:'
// SECOND: warning: a prefix sum by step doubling
// SECOND: warning: a prefix sum by step doubling
// SECOND: warning: a prefix sum by step doubling
// SECOND: warning: a prefix sum by step doubling
// SECOND: warning: a prefix sum by step doubling
// SECOND: warning: a prefix sum by step doubling
// SECOND: applied 0 fixes
// RUN: diff %t/once.cu %t/t.cu
// The fixes are host code, exact (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,launch-step-doubling-scan' --format=json %s | FileCheck --check-prefix=FIX %s
// FIX: "exactness": "bitwise"
// The rewritten file compiles (nvcc, NVRTC for the kernels) and leaves
// both buffers of every scan bitwise as the original does on the CPU
// emulation (utils/bench/cuemu), for sizes with an odd and an even number
// of steps, one step, none, partial tiles and sums that wrap around.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// RUNS: textbook n=4097: steps 13
// RUNS: ternary n=4097: steps 13
// RUNS: local n=4097: steps 13
// RUNS: add_after n=4097: steps 13
// RUNS: done
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e),     \
              __LINE__);                                                       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#ifndef ELEM
#define ELEM int
#endif

// The textbook step: if/else, a temporary swap, error checks.
__global__ void scan_step(ELEM *in, ELEM *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i >= offset)
      out[i] = in[i] + in[i - offset];
    else
      out[i] = in[i];
  }
}

ELEM *textbook(ELEM *a, ELEM *b, int n) {
  dim3 block(256);
  dim3 grid((n + block.x - 1) / block.x);
  ELEM *in = a, *out = b;
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step' is launched once per step (ceil(log2 n) passes over the whole array, each reading it twice and writing it once); a tiled scan takes three passes [launch-step-doubling-scan]
    scan_step<<<grid, block>>>(in, out, offset, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    ELEM *t = in;
    in = out;
    out = t;
  }
  return in;
}
// CHECK-FIXES:      #ifndef CUDAL1_STEP_DOUBLING_SCAN
// CHECK-FIXES:      ELEM *textbook(ELEM *a, ELEM *b, int n) {
// CHECK-FIXES:        ELEM *in = a, *out = b;
// CHECK-FIXES-NEXT:   if (cudal1_step_scan_fits(in, out, (long long)(n), grid, block)) {
// CHECK-FIXES-NEXT:     // cuda-l1 launch-step-doubling-scan: the loop without its launches ('scan_step'), then a tiled scan
// CHECK-FIXES-NEXT:     auto *cudal1_p = in;
// CHECK-FIXES-NEXT:     auto *cudal1_q = out;
// CHECK-FIXES-NEXT:     long long cudal1_w = 0;
// CHECK-FIXES-NEXT:     int cudal1_steps = 0;
// CHECK-FIXES-NEXT:     for (int offset = 1; offset < n; offset *= 2) {
// CHECK-FIXES-NEXT:       cudal1_w = offset;
// CHECK-FIXES-NEXT:       ++cudal1_steps;
// CHECK-FIXES-NEXT:       ELEM *t = in;
// CHECK-FIXES-NEXT:       in = out;
// CHECK-FIXES-NEXT:       out = t;
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:     if (cudal1_steps > 0) {
// CHECK-FIXES-NEXT:       cudal1_step_scan_run(cudal1_p, cudal1_q, (long long)(n), cudal1_steps, cudal1_w);
// CHECK-FIXES-NEXT:       CHECK(cudaGetLastError());
// CHECK-FIXES-NEXT:       CHECK(cudaDeviceSynchronize());
// CHECK-FIXES-NEXT:     }
// CHECK-FIXES-NEXT:   } else {
// CHECK-FIXES-NEXT:     for (int offset = 1; offset < n; offset *= 2) {
// CHECK-FIXES-NEXT:       scan_step<<<grid, block>>>(in, out, offset, n);

// A conditional expression, an early exit, `<<= 1`, std::swap, the index
// written threadIdx.x first, unsigned elements.
__global__ void scan_step_ternary(unsigned *src, unsigned *dst, int n, int d) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n)
    return;
  dst[i] = i >= d ? src[i - d] + src[i] : src[i];
}

unsigned *ternary(unsigned *a, unsigned *b, int n) {
  unsigned *x = a, *y = b;
  for (int d = 1; d < n; d <<= 1) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_ternary'
    scan_step_ternary<<<(n + 127) / 128, 128>>>(x, y, n, d);
    std::swap(x, y);
  }
  return x;
}
// CHECK-FIXES:      if (cudal1_step_scan_fits(x, y, (long long)(n), (n + 127) / 128, 128)) {
// CHECK-FIXES:          std::swap(x, y);
// CHECK-FIXES:        cudal1_step_scan_run(cudal1_p, cudal1_q, (long long)(n), cudal1_steps, cudal1_w);

// A local sum, `offset <= i`, 64-bit elements, the loop variable declared
// before the loop, `s = s * 2`, a 2-D block whose rows repeat the work.
__global__ void scan_step_local(long long *in, long long *out, int s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long long v = in[i];
    if (s <= i)
      v += in[i - s];
    out[i] = v;
  }
}

long long *local(long long *a, long long *b, int n) {
  long long *p = a, *q = b;
  int s;
  for (s = 1; s < n; s = s * 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_local'
    scan_step_local<<<(n + 31) / 32, dim3(32, 4)>>>(p, q, s, n);
    long long *t = q;
    q = p;
    p = t;
  }
  printf("local: last offset %d\n", s);
  return p;
}

// `out[i] = in[i]; if (i >= offset) out[i] += in[i - offset];`.
__global__ void scan_step_add_after(int *in, int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    if (i >= offset)
      out[i] += in[i - offset];
  }
}

int *add_after(int *a, int *b, int n) {
  int *in = a, *out = b;
  for (int offset = 1; offset < n; offset += offset) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_add_after'
    scan_step_add_after<<<(n + 255) / 256, 256>>>(in, out, offset, n);
    cudaDeviceSynchronize();
    int *t = in;
    in = out;
    out = t;
  }
  return in;
}

// A const input, as the kernel is most often written.
__global__ void scan_step_const(const int *in, int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i >= offset ? in[i] + in[i - offset] : in[i];
}
int *const_input(int *a, int *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_const'
    scan_step_const<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    std::swap(a, b);
  }
  return a;
}
// CHECK-FIXES: if (cudal1_step_scan_fits(a, b, (long long)(n), (n + 255) / 256, 256)) {

// --- reported without a fix ---------------------------------------------------

// Output in every step: it would print once.
void printed(int *a, int *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_add_after'
    // CHECK-MESSAGES: note: no fix: the loop does more than the launch
    scan_step_add_after<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    printf("step %d\n", offset);
    std::swap(a, b);
  }
}

// A function of the program named swap (by value: it swaps nothing).
void swap(int *x, int *y) { int *t = x; x = y; y = t; }
void own_swap(int *a, int *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_add_after'
    // CHECK-MESSAGES: note: no fix: the loop does more than the launch
    scan_step_add_after<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    swap(a, b);
  }
}

// The kernel's offset is narrower than the loop's: it would wrap.
__global__ void scan_step_narrow(int *in, int *out, unsigned char offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i >= offset ? in[i] + in[i - offset] : in[i];
}
void narrow(int *a, int *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_narrow'
    // CHECK-MESSAGES: note: no fix: the kernel's index, offset or size parameter is narrower than the loop's values
    scan_step_narrow<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    std::swap(a, b);
  }
}

// Floating-point sums: another association order.
__global__ void scan_step_float(float *in, float *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i >= offset)
      out[i] = in[i] + in[i - offset];
    else
      out[i] = in[i];
  }
}

void float_scan(float *a, float *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_float'
    // CHECK-MESSAGES: note: no fix: the elements are 'float': a tiled scan adds them in another order
    scan_step_float<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    float *t = a;
    a = b;
    b = t;
  }
}

// The loop does something else with every step.
void logged(int *a, int *b, int n, int *d_count) {
  int *in = a, *out = b;
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_add_after'
    // CHECK-MESSAGES: note: no fix: the loop does more than the launch, the swap of 'in' and 'out' and error checks (line [[@LINE+2]])
    scan_step_add_after<<<(n + 255) / 256, 256>>>(in, out, offset, n);
    cudaMemset(d_count, 0, sizeof(int));
    int *t = in;
    in = out;
    out = t;
  }
}

// Swapped before the launch.
void swapped_first(int *a, int *b, int n) {
  int *in = b, *out = a;
  for (int offset = 1; offset < n; offset *= 2) {
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: a prefix sum by step doubling over global memory: 'scan_step_add_after'
    // CHECK-MESSAGES: note: no fix: the buffers are swapped before the launch
    std::swap(in, out);
    scan_step_add_after<<<(n + 255) / 256, 256>>>(in, out, offset, n);
  }
}

// --- silent ---------------------------------------------------------------------

// A maximum, not a sum.
__global__ void scan_step_max(int *in, int *out, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i >= offset ? max(in[i], in[i - offset]) : in[i];
}
// The launch is part of an expression, not a statement.
void conditional(int *a, int *b, int n) {
  for (int offset = 1; offset < n; offset *= 2) {
    offset < 64 ? scan_step<<<(n + 255) / 256, 256>>>(a, b, offset, n) : (void)0;
    std::swap(a, b);
  }
}
// Steps from 2: not the loop of a scan.
void from_two(int *a, int *b, int n) {
  for (int offset = 2; offset < n; offset *= 2) {
    scan_step<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    std::swap(a, b);
  }
  for (int offset = 1; offset < n; offset *= 2) {
    scan_step_max<<<(n + 255) / 256, 256>>>(a, b, offset, n);
    std::swap(a, b);
  }
}
// A block scan in shared memory, launched once: good code.
__global__ void block_scan(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int o = 1; o < 256; o *= 2) {
    int v = threadIdx.x >= o ? s[threadIdx.x - o] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = s[threadIdx.x];
}

// --- the driver -------------------------------------------------------------------

template <typename T> unsigned long long hash(const T *d, int n) {
  T *h = (T *)malloc(sizeof(T) * (n > 0 ? n : 1));
  CHECK(cudaMemcpy(h, d, sizeof(T) * n, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ULL;
  const unsigned char *c = (const unsigned char *)h;
  for (size_t k = 0; k < sizeof(T) * (size_t)n; k++)
    x = (x ^ c[k]) * 1099511628211ULL;
  free(h);
  return x;
}

template <typename T, typename F>
void run(const char *name, F scan, int n) {
  T *h = (T *)malloc(sizeof(T) * n);
  unsigned long long r = 12345;
  for (int k = 0; k < n; k++) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    // large values so that the sums wrap around
    h[k] = (T)(r >> 7);
  }
  T *a, *b;
  CHECK(cudaMalloc(&a, sizeof(T) * (n + 1)));
  CHECK(cudaMalloc(&b, sizeof(T) * (n + 1)));
  CHECK(cudaMemset(a, 0x33, sizeof(T) * (n + 1)));
  CHECK(cudaMemcpy(a, h, sizeof(T) * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(b, 0x5a, sizeof(T) * (n + 1)));
  T *res = scan(a, b, n);
  CHECK(cudaDeviceSynchronize());
  int steps = 0;
  for (int o = 1; o < n; o *= 2)
    steps++;
  printf("%s n=%d: steps %d, result in %s, a %llx, b %llx\n", name, n, steps,
         res == a ? "a" : "b", hash(a, n + 1), hash(b, n + 1));
  cudaFree(a);
  cudaFree(b);
  free(h);
}

int main() {
  // BIG (the GPU test): more than one block of tile sums to carry.
#ifdef BIG
  const int sizes[] = {0, 1, 2, 3, 4097, 1 << 20, (1 << 21) + 5, 3 * 2048 * 1024 + 77};
#else
  const int sizes[] = {0, 1, 2, 3, 4, 5, 33, 256, 2047, 2048, 2049, 4097};
#endif
  for (int n : sizes) {
    run<ELEM>("textbook", textbook, n);
    run<unsigned>("ternary", ternary, n);
    run<long long>("local", local, n);
    run<int>("add_after", add_after, n);
  }
  printf("done\n");
  return 0;
}
