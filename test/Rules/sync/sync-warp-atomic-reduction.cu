// sync-warp-atomic-reduction: an atomic of every thread to one address becomes a warp-shuffle
// reduction and one atomic per block (global memory) or per warp (a shared accumulator).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --format=json %s | FileCheck --check-prefix=FIX %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif
// Per-thread atomics to one address, under a bounds guard.
__global__ void total(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "warp-shuffle sum, per-block through shared memory, then one atomicAdd per block
// FIX: "exactness": "reassociating"
// FIX-NEXT: "grid_sum_outputs": [
// FIX-NEXT: "sum"
// FIX-NEXT: ],
// FIX: "needsMeasurement": false
// CHECK-FIXES:      { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   float cudal1_v = (i < n) ? (float)(in[i]) : (float)0;
// CHECK-FIXES-NEXT:   for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:     cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
// CHECK-FIXES-NEXT:   __shared__ float cudal1_w[32];
// CHECK-FIXES-NEXT:   if ((threadIdx.x & 31u) == 0u)
// CHECK-FIXES-NEXT:     cudal1_w[(threadIdx.x >> 5)] = cudal1_v;
// CHECK-FIXES-NEXT:   __syncthreads();
// CHECK-FIXES-NEXT:   if ((threadIdx.x >> 5) == 0u) {
// CHECK-FIXES-NEXT:     cudal1_v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? cudal1_w[(threadIdx.x & 31u)] : (float)0;
// CHECK-FIXES-NEXT:     for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:       cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
// CHECK-FIXES-NEXT:     if ((threadIdx.x & 31u) == 0u)
// CHECK-FIXES-NEXT:       atomicAdd(sum, cudal1_v);
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// Integer count into a grid-wide slot chosen by the block (three blocks
// in one word): bitwise.
__global__ void count_positive(const float *in, unsigned int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counts[blockIdx.x & 3], in[i] > 0.0f ? 1u : 0u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd to the same address '&counts[blockIdx.x & 3]': the whole grid's updates queue{{.*}} [sync-warp-atomic-reduction]
// FIX: "exactness": "bitwise"
// FIX-NOT: "grid_sum_outputs"
// FIX: "needsMeasurement": false
// CHECK-FIXES:      unsigned int cudal1_v = in[i] > 0.0f ? 1u : 0u;

// The block's own word, in integers, blocks of at most 256 threads: the
// compiler merges each warp's updates, so at most 8 of them meet there; a
// block reduction does not pay (utils/experiments/atomic-per-block.cu).
// Not reported, nor through a local pointer or two block indices (a
// pair's distance). With 1024-thread blocks (`count_big_blocks`), or a
// block size no launch gives, reported.
__global__ void count_per_block(const float *in, unsigned int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counts[blockIdx.x], in[i] > 0.0f ? 1u : 0u);
}
__global__ void pair_distance(const char *data, int *distance, int n) {
  int gx = blockIdx.x, gy = blockIdx.y;
  int *slot = distance + n * gx + gy;
  for (int k = threadIdx.x; k < 4096; k += blockDim.x)
    atomicAdd(slot, data[gx * 4096 + k] != data[gy * 4096 + k] ? 1 : 0);
}
__global__ void count_big_blocks(const float *in, unsigned int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counts[blockIdx.x], in[i] > 0.0f ? 1u : 0u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd to the same address '&counts[blockIdx.x]': each block's warps queue at its own word (the compiler merges only a warp's updates into one){{.*}} [sync-warp-atomic-reduction]
// The block's own word in floating point: every lane's update queues there.
__global__ void sum_per_block(const float *in, float *partial) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&partial[blockIdx.x], in[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd to the same address '&partial[blockIdx.x]': each block's updates queue at its own word, one per thread (floating-point atomics are not merged per warp){{.*}} [sync-warp-atomic-reduction]

// A count of matching cells on a 2-D block: `==` on data is a predicate
// every lane evaluates, not a test that picks one thread; warp and lane
// come from the linear thread index.
__global__ void count_alive(const int *board, int *count, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n && board[y * n + x] == 1)
    atomicAdd(count, 1);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'count'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      int cudal1_v = (x < n && y < n && board[y * n + x] == 1) ? (int)(1) : (int)0;
// CHECK-FIXES:        if ((((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u) == 0u)
// CHECK-FIXES-NEXT:     cudal1_w[(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) >> 5)] = cudal1_v;

// A grid-stride loop: lanes run different trip counts, so each adds its
// terms in a register and the reduction follows the loop.
__global__ void total_stride(const float *in, float *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(sum, in[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "per-thread value in a register, warp-shuffle sum after the statement, per-block through shared memory, then one atomicAdd per block"
// CHECK-FIXES:      __global__ void total_stride(const float *in, float *sum, int n) {
// CHECK-FIXES-NEXT:   float cudal1_v = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-FIXES-NEXT:        i += blockDim.x * gridDim.x)
// CHECK-FIXES-NEXT:     cudal1_v += (float)(in[i]);
// CHECK-FIXES-NEXT:   { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:     for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:       cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);

// A loop over a thread's candidates inside the guard, and an atomic in an
// else branch: both accumulate in registers until the guard's end.
__global__ void witnesses(const unsigned int *bases, const unsigned int *nums, int *val, int *odd, int iter) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < iter) {
    unsigned int n = nums[j];
    for (int cnt = 1; cnt <= 4; cnt++) {
      atomicAdd(val, (int)((n % bases[cnt]) == 1u));
    }
  }
  if (j < iter) {
    if (nums[j] % 2u == 0u)
      val[0] += 0;
    else
      atomicAdd(odd, 1);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-10]]:7: warning: every thread does an atomicAdd to the same address 'val'{{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: 'val' is also used elsewhere in the kernel
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:7: warning: every thread does an atomicAdd to the same address 'odd'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "per-thread value in a register, warp-shuffle sum after the statement, per-block through shared memory, then one atomicAdd per block"
// CHECK-FIXES:        int cudal1_v2 = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   if (j < iter) {
// CHECK-FIXES:              cudal1_v2 += (int)(1);

// One lane per warp already does the atomic, under a guard (`if (i < n) {
// ...; if (lane == 0) atomicAdd(...); }`): no finding.
__global__ void warp_dot(const float *key, const float *q, float *dot, float *exp_sum, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (i < n) {
    float s = key[i * 32 + lane] * q[lane];
    if (lane == 0) {
      dot[i] = s;
      atomicAdd(exp_sum, __expf(s));
    }
  }
}

// Refused: an earlier return may leave some lanes out.
__global__ void total_early(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(sum, in[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: a statement before the atomic may return early

// Refused: 100-thread blocks have a partial warp.
__global__ void total_partial(const float *in, float *sum) {
  atomicAdd(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the block has 100 threads, not a multiple of 32

// One atomic per block already (the guard picks one thread): no finding.
__global__ void once_per_block(const float *in, float *sum) {
  __shared__ float part[256];
  part[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(sum, part[0] + part[255]);
}

// An error count (a test for a non-finite value): correct input never
// takes the atomic, no finding; nor with the test among others.
__global__ void count_nonfinite(const float *x, unsigned *bad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !isfinite(x[i]))
    atomicAdd(bad, 1u);
}
__global__ void count_nan_block(const float *x, int *bad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] * 2.0f;
    if (isnan(v) || isinf(v))
      atomicAdd(bad, 1);
  }
}

__global__ void count_nonfinite4(const float4 *x, unsigned *bad, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned c = 0;
  if (i < n4) {
    float4 v = x[i];
    c = !isfinite(v.x) + !isfinite(v.y);
    c += !isfinite(v.z) + !isfinite(v.w);
  }
  if (c != 0u)
    atomicAdd(bad, c);
}

// Per-thread addresses (a histogram) are not this rule's: no finding.
__global__ void histogram(const int *keys, int *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&bins[keys[i]], 1);
}

// The atomic among other statements of the guard's block (a Jacobi update
// summing the squared residual): the value goes to a register declared
// before the guard, the reduction follows the guard.
__global__ void jacobi_res(float *x, const float *b, const float *y,
                           const float *diag, float *res2, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row] - y[row];
    x[row] = x[row] + r / diag[row];
    atomicAdd(res2, r * r);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every thread does an atomicAdd to the same address 'res2'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "per-thread value in a register, warp-shuffle sum after the statement, per-block through shared memory, then one atomicAdd per block"
// CHECK-FIXES:      int row = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT: float cudal1_v = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT: if (row < n) {
// CHECK-FIXES-NEXT:   float r = b[row] - y[row];
// CHECK-FIXES-NEXT:   x[row] = x[row] + r / diag[row];
// CHECK-FIXES-NEXT:   cudal1_v += (float)(r * r);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: { // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:     cudal1_v += __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
// CHECK-FIXES-NEXT:   __shared__ float cudal1_w[32];
// CHECK-FIXES:            atomicAdd(res2, cudal1_v);
// CHECK-FIXES-NEXT:   }
// CHECK-FIXES-NEXT: }

// 2-D block, element type from a macro, a float value added into a double:
// the register has the type the atomic adds in (the overload's).
#define REAL float
__global__ void residual_2d(const REAL *u, double *res, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
    REAL r = 4 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j];
    atomicAdd(res, powf(r, 2.0f));
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every thread does an atomicAdd to the same address 'res'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      double cudal1_v = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES:        cudal1_v += (double)(powf(r, 2.0f));
// CHECK-FIXES:        __shared__ double cudal1_w[32];
// CHECK-FIXES-NEXT:   if ((((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u) == 0u)
// CHECK-FIXES-NEXT:     cudal1_w[(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) >> 5)] = cudal1_v;
// CHECK-FIXES:          cudal1_v = (((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u) < ((blockDim.x * blockDim.y * blockDim.z) >> 5) ? cudal1_w[(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u)] : (double)0;
// CHECK-FIXES:            atomicAdd(res, cudal1_v);

// Refused: the guard's block may return before the end.
__global__ void res_return(const float *b, float *res, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    if (r < 0.0f)
      return;
    atomicAdd(res, r);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the statement holding the atomic may return early: not every lane of a warp would reach the reduction after it

// Refused: the accumulator is read again in the kernel.
__global__ void res_reread(const float *b, float *res, float *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    atomicAdd(res, r);
    out[row] = r;
  }
  out[0] = res[0];
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: 'res' is also used elsewhere in the kernel: its updates must stay where they are

// Two sums in the guard's block (a residual and a count): one fix each,
// the second applied in the next round; both registers precede the guard.
__global__ void res_two(const float *b, float *res, float *cnt, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    atomicAdd(res, r);
    atomicAdd(cnt, 1.0f);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every thread does an atomicAdd to the same address 'res'{{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every thread does an atomicAdd to the same address 'cnt'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      __global__ void res_two(const float *b, float *res, float *cnt, int n) {
// CHECK-FIXES:        float cudal1_v{{[_0-9]*}} = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   float cudal1_v{{[_0-9]*}} = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   if (row < n) {
// CHECK-FIXES-NEXT:     float r = b[row];
// CHECK-FIXES-NEXT:     cudal1_v{{[_0-9]*}} += (float)(r);
// CHECK-FIXES-NEXT:     cudal1_v{{[_0-9]*}} += (float)(1.0f);
// CHECK-FIXES:              atomicAdd(cnt, cudal1_v{{[_0-9]*}});
// CHECK-FIXES:              atomicAdd(res, cudal1_v{{[_0-9]*}});

// Alone in a bare nested block: the block is the statement the reduction
// follows.
__global__ void bare_block(const float *x, float *sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  { atomicAdd(sum, x[i]); }
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      __global__ void bare_block(const float *x, float *sum) {
// CHECK-FIXES-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-FIXES-NEXT:   float cudal1_v{{[_0-9]*}} = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT:   { cudal1_v{{[_0-9]*}} += (float)(x[i]); }

// Refused: inside a lambda there is no statement of the body to go around.
__global__ void in_lambda(const float *x, float *sum) {
  auto add = [&](float v) { atomicAdd(sum, v); };
  add(x[blockIdx.x * blockDim.x + threadIdx.x]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:29: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the atomic is inside a lambda, a statement expression or an initialiser

// Refused: the address reads memory the loop may change (the slot), and it
// would be read once, after the loop.
__global__ void slot_sum(const float *x, float *out, int *slot, int n) {
  for (int j = 0; j < n; j++)
    atomicAdd(&out[*slot], x[threadIdx.x + j]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the atomic's address reads memory, which the statement may change before the reduction after it

// Its launches are not all in view (its address is taken): the lane and
// warp ids are the linear ones even though the launch seen is 1-D.
__global__ void total_elsewhere(const float *in, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, in[i]);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicAdd to the same address 'sum'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      __global__ void total_elsewhere(const float *in, float *sum, int n) {
// CHECK-FIXES:          if ((((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u) == 0u)

// Refused: an exchange in the same block may publish a flag after the sum.
__global__ void res_locked(const float *b, float *res, int *lock, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    atomicAdd(res, r);
    atomicExch(lock, row);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every thread does an atomicAdd to the same address 'res'{{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the statement holding the atomic has an atomicCAS or atomicExch (a lock or a flag) whose order with the atomic must stay

// A block's accumulator in shared memory (the per-block partial sum of a
// two-level reduction): one shared atomic per warp; the global atomic the
// accumulator reaches gets the grid-sum tolerance.
__global__ void block_partial(const float *array, float *result, unsigned int n) {
  __shared__ float partialSum;
  unsigned int lid = threadIdx.x;
  unsigned int gid = blockIdx.x * blockDim.x + lid;
  if (lid == 0) partialSum = 0;
  __syncthreads();
  if (gid < n)
    atomicAdd(&partialSum, array[gid]);
  __syncthreads();
  if (lid == 0)
    atomicAdd(result, partialSum);
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: every thread does an atomicAdd to the same shared-memory address '&partialSum'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "warp-shuffle sum, then one atomicAdd per warp"
// FIX: "exactness": "reassociating"
// FIX-NEXT: "grid_sum_outputs": [
// FIX-NEXT: "result"
// FIX-NEXT: ],
// CHECK-FIXES:      float cudal1_v = (gid < n) ? (float)(array[gid]) : (float)0;
// CHECK-FIXES:          atomicAdd(&partialSum, cudal1_v);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: __syncthreads();

// The maximum of non-negative floats through their bits: integer
// atomicMax, exact; lanes outside the guard contribute INT_MIN.
__global__ void max_bits(const float *x, int *maxb, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(maxb, __float_as_int(x[i]));
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:5: warning: every thread does an atomicMax to the same address 'maxb': the whole grid's updates queue in the L2 slice that owns it (the compiler merges only a warp's into one); a warp-shuffle maximum first leaves one atomic per block [sync-warp-atomic-reduction]
// FIX: "description": "warp-shuffle maximum, per-block through shared memory, then one atomicMax per block"
// FIX: "exactness": "bitwise"
// CHECK-FIXES:      int cudal1_v = (i < n) ? (int)(__float_as_int(x[i])) : (int)(-2147483647 - 1);
// CHECK-FIXES-NEXT:   for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)
// CHECK-FIXES-NEXT:     { int cudal1_t = __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o); if (cudal1_t > cudal1_v) cudal1_v = cudal1_t; }
// CHECK-FIXES-NEXT:   __shared__ int cudal1_w[32];
// CHECK-FIXES:          cudal1_v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? cudal1_w[(threadIdx.x & 31u)] : (int)(-2147483647 - 1);
// CHECK-FIXES:            atomicMax(maxb, cudal1_v);

// atomicMin among other statements of the guard's block, unsigned: the
// register starts at the largest unsigned value.
__global__ void nearest(const unsigned int *dist, unsigned int *twice,
                        unsigned int *best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int d = dist[i];
    twice[i] = 2u * d;
    atomicMin(best, d);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-3]]:5: warning: every thread does an atomicMin to the same address 'best'{{.*}} [sync-warp-atomic-reduction]
// FIX: "description": "per-thread value in a register, warp-shuffle minimum after the statement, per-block through shared memory, then one atomicMin per block"
// CHECK-FIXES:      unsigned int cudal1_v = 0xffffffffu; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES-NEXT: if (i < n) {
// CHECK-FIXES:        { unsigned int cudal1_t = (unsigned int)(d); if (cudal1_t < cudal1_v) cudal1_v = cudal1_t; }
// CHECK-FIXES:          { unsigned int cudal1_t = __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o); if (cudal1_t < cudal1_v) cudal1_v = cudal1_t; }
// CHECK-FIXES:          cudal1_v = (threadIdx.x & 31u) < (blockDim.x >> 5) ? cudal1_w[(threadIdx.x & 31u)] : (unsigned int)0xffffffffu;
// CHECK-FIXES:            atomicMin(best, cudal1_v);

// Flags or-ed into one word: bitwise.
__global__ void any_negative(const float *x, unsigned int *flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicOr(flags, x[i] < 0.0f ? 1u : 0u);
}
// CHECK-MESSAGES: t.cu:[[@LINE-2]]:3: warning: every thread does an atomicOr to the same address 'flags'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      cudal1_v |= __shfl_down_sync(0xffffffffu, cudal1_v, cudal1_o);
// CHECK-FIXES:            atomicOr(flags, cudal1_v);

// Not CUDA's atomicMin: a program's own float minimum built on atomicCAS
// is left alone (no finding).
__device__ float atomicMin(float *addr, float value) {
  float old = *addr;
  while (value < old) {
    float seen = __int_as_float(atomicCAS((int *)addr, __float_as_int(old),
                                          __float_as_int(value)));
    if (seen == old)
      break;
    old = seen;
  }
  return old;
}
__global__ void min_of(const float *v, float *minima, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMin(minima, v[i]);
}

// The old value is used (a slot per thread in a shared counter): no finding.
__global__ void compact(const int *in, int *out, int n) {
  __shared__ int count;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int pos = 0;
  if (i < n && in[i] > 0)
    pos = atomicAdd(&count, 1);
  __syncthreads();
  if (i < n && in[i] > 0)
    out[blockIdx.x * blockDim.x + pos] = in[i];
}

// Per-thread shared addresses (a block histogram): no finding.
__global__ void block_hist(const int *keys, int *bins) {
  __shared__ int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[keys[blockIdx.x * blockDim.x + threadIdx.x] & 255], 1);
  __syncthreads();
  bins[blockIdx.x * 256 + threadIdx.x] = local[threadIdx.x];
}

// A local pointer that differs per thread is not one address: no finding.
__global__ void per_thread_ptr(const float *in, float *out) {
  float *p = out + threadIdx.x;
  atomicAdd(p, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

// Two guards, each with an atomic among other statements: each register
// gets its own name (both are declared at the kernel's top level).
__global__ void two_guards(const float *b, float *x, float *res, float *cnt,
                           int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    x[row] = r;
    atomicAdd(res, r * r);
  }
  if (row < n / 2) {
    float c = b[row] * 2.0f;
    x[row] += c;
    atomicAdd(cnt, c);
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-8]]:5: warning: every thread does an atomicAdd to the same address 'res'{{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: t.cu:[[@LINE-4]]:5: warning: every thread does an atomicAdd to the same address 'cnt'{{.*}} [sync-warp-atomic-reduction]
// CHECK-FIXES:      float cudal1_v = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES:        cudal1_v += (float)(r * r);
// CHECK-FIXES:            atomicAdd(res, cudal1_v);
// CHECK-FIXES:      float cudal1_v2 = 0; // cuda-l1 sync-warp-atomic-reduction
// CHECK-FIXES:        cudal1_v2 += (float)(c);
// CHECK-FIXES:        __shared__ float cudal1_w2[32];
// CHECK-FIXES:            atomicAdd(cnt, cudal1_v2);

// Refused: a fence after the atomic in the guard's block orders a flag
// store after the sum; moving the atomic past the guard would break that.
__global__ void publish(const float *b, float *sum, int *flag, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float r = b[row];
    atomicAdd(sum, r);
    __threadfence();
    flag[row] = 1;
  }
}
// CHECK-MESSAGES: t.cu:[[@LINE-5]]:5: warning: every thread does an atomicAdd {{.*}} [sync-warp-atomic-reduction]
// CHECK-MESSAGES: note: no fix: the statement holding the atomic has a fence, barrier, scoped atomic or asm whose order with the atomic must stay

#ifndef __CUDACC_RTC__
int main() {
  float *in, *out;
  int *iin, *iout;
  unsigned int *counts;
  cudaMalloc(&in, 1 << 20);
  cudaMalloc(&out, 1 << 20);
  cudaMalloc(&iin, 1 << 20);
  cudaMalloc(&iout, 1 << 20);
  cudaMalloc(&counts, 1 << 20);
  total<<<64, 256>>>(in, out, 1000);
  count_positive<<<64, 256>>>(in, counts);
  count_per_block<<<64, 256>>>(in, counts);
  dim3 pb, pg;
  pb.x = 128;
  pg.x = 16;
  pg.y = 16;
  pair_distance<<<pg, pb>>>((const char *)iin, iout, 16);
  count_big_blocks<<<64, 1024>>>(in, counts);
  sum_per_block<<<64, 256>>>(in, out);
  count_alive<<<dim3(8, 8), dim3(16, 16)>>>(iin, iout, 128);
  total_stride<<<64, 256>>>(in, out, 1000);
  witnesses<<<64, 256>>>(counts, counts + 100, iout, iout + 1, 1000);
  warp_dot<<<64, 256>>>(in, in, out, out + 1, 1000);
  total_early<<<64, 256>>>(in, out, 1000);
  total_partial<<<64, 100>>>(in, out);
  histogram<<<64, 256>>>(iin, iout);
  once_per_block<<<64, 256>>>(in, out);
  jacobi_res<<<64, 256>>>(out, in, in, in, out + 100000, 1000);
  double *dres;
  cudaMalloc(&dres, sizeof(double));
  residual_2d<<<dim3(8, 8), dim3(32, 8)>>>(in, dres, 256);
  res_return<<<64, 256>>>(in, out, 1000);
  res_reread<<<64, 256>>>(in, out, out + 1000, 1000);
  res_two<<<64, 256>>>(in, out, out + 1, 1000);
  res_locked<<<64, 256>>>(in, out, iout, 1000);
  total_elsewhere<<<64, 256>>>(in, out, 1000);
  void *elsewhere = (void *)total_elsewhere;
  (void)elsewhere;
  bare_block<<<64, 256>>>(in, out);
  in_lambda<<<64, 256>>>(in, out);
  slot_sum<<<64, 256>>>(in, out, iout, 4);
  block_partial<<<64, 256>>>(in, out, 1000u);
  max_bits<<<64, 256>>>(in, iout, 1000);
  nearest<<<64, 256>>>(counts, counts + 1000, counts + 5000, 1000);
  any_negative<<<64, 256>>>(in, counts);
  min_of<<<64, 256>>>(in, out, 1000);
  compact<<<64, 256>>>(iin, iout, 1000);
  block_hist<<<64, 256>>>(iin, iout);
  per_thread_ptr<<<64, 256>>>(in, out);
  two_guards<<<64, 256>>>(in, out, out + 5000, out + 6000, 1000);
  publish<<<64, 256>>>(in, out, iout, 1000);
  return 0;
}
#endif
