// launch-small-grid and one-block kernels whose work is a recurrence: every
// step of the loop over the data needs the previous step's result (in
// shared memory, or a row of global memory that the previous step wrote),
// with a barrier between steps. More blocks could not split such a loop;
// kernels whose loop reads input that it does not itself produce, or whose
// steps do not read what an earlier step wrote, are reported.
// RUN: %cuda-l1-rewrite --rules='-*,launch-small-grid' %s 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

#define LAG 97
#define SHORT_LAG 33
#define STEP 32

// A lagged Fibonacci generator: the block keeps the last LAG values in
// shared memory and extends them STEP at a time; each group of STEP needs
// the group before it. Only the output is stored to global memory.
__global__ void lagged_fib(uint32_t *out, int steps) {
  __shared__ uint32_t ring[2 * LAG];
  uint32_t *next = ring + LAG;
  int t = threadIdx.x;
  ring[t] = out[t];
  __syncthreads();
  for (int k = 1; k < steps; k++) {
    for (int i = 0; i < LAG; i += STEP) {
      if (t < STEP && i + t < LAG)
        next[i + t] = next[i + t - LAG] + next[i + t - SHORT_LAG];
      __syncthreads();
    }
    out[k * LAG + t] = ring[t] = next[t];
    __syncthreads();
  }
}

// The same recurrence kept entirely in shared memory (only the final state
// leaves the block).
__global__ void lagged_state(uint32_t *state, int steps) {
  __shared__ uint32_t ring[2 * LAG];
  int t = threadIdx.x;
  ring[LAG + t] = state[t];
  __syncthreads();
  for (int k = 0; k < steps; k++) {
    ring[t] = ring[LAG + t];
    __syncthreads();
    for (int i = 0; i < LAG; i += STEP) {
      if (t < STEP && i + t < LAG)
        ring[LAG + i + t] = ring[i + t] ^ ring[(i + t + SHORT_LAG) % LAG];
      __syncthreads();
    }
  }
  state[t] = ring[LAG + t];
}

// Row r of x is computed from the end of row r - 1, which the previous
// iteration stored (through a pointer into x made in the loop).
__global__ void chain_rows(uint32_t *__restrict__ x,
                           const uint32_t *__restrict__ coef, int s, int r) {
  __shared__ uint32_t c0[2 * LAG];
  uint32_t *c = c0 + LAG;
  int t = threadIdx.x;
  if (t < LAG)
    c[t - LAG] = coef[t];
  c -= LAG;
  __syncthreads();
  for (int i = 1; i < r; i++) {
    uint32_t *row = &x[i * s];
    uint32_t acc = 0;
    if (t < LAG) {
      for (int k = 0; k < LAG; k++)
        acc += row[-LAG + k] * c[(t - k + LAG) % LAG];
      row[s - LAG + t] = acc;
    }
    __syncthreads();
  }
}

// A two-pointer compaction of a table (move the last used entry into the
// first free slot, repeat): each step's positions come from the previous
// step's swap. The block scans stripes of the table in shared memory in
// helper functions that synchronise.
__device__ unsigned first_free(const unsigned *table, unsigned lo,
                               unsigned hi, unsigned *stripe,
                               unsigned *found) {
  if (threadIdx.x == 0)
    *found = hi;
  __syncthreads();
  for (unsigned base = lo; base < hi && *found == hi; base += blockDim.x) {
    unsigned i = base + threadIdx.x;
    stripe[threadIdx.x] = i < hi ? table[i] : 1u;
    __syncthreads();
    if (threadIdx.x == 0)
      for (unsigned j = 0; j < blockDim.x && base + j < hi; j++)
        if (stripe[j] == 0u) {
          *found = base + j;
          break;
        }
    __syncthreads();
  }
  return *found;
}

__device__ unsigned last_used(const unsigned *table, unsigned lo,
                              unsigned hi, unsigned *stripe,
                              unsigned *found) {
  if (threadIdx.x == 0)
    *found = lo;
  __syncthreads();
  for (unsigned top = hi; top > lo && *found == lo; top -= min(top - lo, blockDim.x)) {
    unsigned i = top - 1 - threadIdx.x;
    stripe[threadIdx.x] = i >= lo && i < top ? table[i] : 0u;
    __syncthreads();
    if (threadIdx.x == 0)
      for (unsigned j = 0; j < blockDim.x && top - j > lo; j++)
        if (stripe[j] != 0u) {
          *found = top - 1 - j;
          break;
        }
    __syncthreads();
  }
  return *found;
}

__global__ void compact_table(unsigned *table, unsigned n, unsigned *count) {
  __shared__ unsigned stripe[1024];
  __shared__ unsigned found;
  unsigned l = first_free(table, 0, n, stripe, &found);
  unsigned r = last_used(table, 0, n, stripe, &found);
  while (l < r) {
    if (threadIdx.x == 0) {
      table[l] = table[r];
      table[r] = 0u;
    }
    __syncthreads();
    l = first_free(table, l + 1, r, stripe, &found);
    r = last_used(table, l, r, stripe, &found);
  }
  if (threadIdx.x == 0)
    *count = l;
}

// Reported: a one-block scan walks its input in chunks with a barrier per
// chunk, but it reads `in`, which the loop does not write: a multi-block
// scan splits it.
__global__ void one_block_scan(const float *__restrict__ in,
                               float *__restrict__ out, int n) {
  __shared__ float buf[256];
  __shared__ float carry;
  if (threadIdx.x == 0)
    carry = 0.0f;
  __syncthreads();
  for (int base = 0; base < n; base += 256) {
    int i = base + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < 256; d *= 2) {
      float v = threadIdx.x >= d ? buf[threadIdx.x - d] : 0.0f;
      __syncthreads();
      buf[threadIdx.x] += v;
      __syncthreads();
    }
    if (i < n)
      out[i] = buf[threadIdx.x] + carry;
    __syncthreads();
    if (threadIdx.x == 255)
      carry += buf[255];
    __syncthreads();
  }
}

// Reported: an in-place compaction that also reads a mask the loop does
// not write: the mask's reads are work that more blocks would share.
__global__ void compact_masked(int *idx, const char *__restrict__ mask, int n,
                               int *kept) {
  __shared__ int count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  for (int base = 0; base < n; base += blockDim.x) {
    int i = base + threadIdx.x;
    int p = i < n ? idx[i] : -1;
    bool keep = p >= 0 && mask[p] == 0;
    int slot = __syncthreads_count(keep);
    if (keep)
      idx[count + __popc(__ballot_sync(0xffffffffu, keep) &
                         ((1u << (threadIdx.x & 31)) - 1u))] = p;
    __syncthreads();
    if (threadIdx.x == 0)
      count += slot;
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *kept = count;
}

// Reported: a one-block sum. The tree's halving steps synchronise and read
// only shared memory, but the grid-stride loop before them reads `in`.
__global__ void one_block_sum(const float *__restrict__ in,
                              float *__restrict__ out, int n) {
  extern __shared__ float part[];
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += in[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = part[0];
}

// Silent: one element per thread and a tree over the block: the data is
// the block's size, whatever blockDim is.
__global__ void block_max(const float *__restrict__ in, float *__restrict__ out) {
  extern __shared__ float best[];
  best[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = best[0];
}

// Reported: the loop reads its input through a texture object, which is
// a load from global memory like any other.
__global__ void reverse_tiles(cudaTextureObject_t src, float *dst, int n) {
  __shared__ float tile[256];
  for (int i = threadIdx.x; i < n; i += 256) {
    tile[threadIdx.x] = tex1Dfetch<float>(src, i);
    __syncthreads();
    dst[i] = tile[255 - threadIdx.x];
    __syncthreads();
  }
}

// Reported: the loop loads four keys at a time by a struct copy
// (`v = ((const uint4 *)in)[i]`), a read of `in` like any other.
__global__ void digit_sums(const unsigned *in, unsigned *out, int n4) {
  __shared__ unsigned sums[256];
  unsigned acc = 0;
  for (int base = 0; base < n4; base += 256) {
    uint4 v = make_uint4(0, 0, 0, 0);
    if (base + threadIdx.x < n4)
      v = ((const uint4 *)in)[base + threadIdx.x];
    sums[threadIdx.x] = (v.x & 15u) + (v.y & 15u) + (v.z & 15u) + (v.w & 15u);
    __syncthreads();
    acc += sums[255 - threadIdx.x];
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// Reported: each step stages its own values through shared memory (written,
// then read after the barrier) and loads nothing from global memory, but no
// step reads what an earlier one wrote: the steps are independent.
__global__ void reversed_ramp(float *dst, int n) {
  __shared__ float tile[256];
  for (int i = threadIdx.x; i < n; i += 256) {
    tile[threadIdx.x] = 0.5f * i;
    __syncthreads();
    dst[i] = tile[255 - threadIdx.x];
    __syncthreads();
  }
}

// Reported: an in-place update that synchronises each step reads and
// stores the same element of `a`: nothing carries from one step to the next.
__global__ void damp_in_place(float *a, int n) {
  __shared__ float mean;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (threadIdx.x == 0)
      mean = 0.5f;
    __syncthreads();
    a[i] = a[i] * mean;
    __syncthreads();
  }
}

void run(uint32_t *x, uint32_t *y, const uint32_t *coef, unsigned *table,
         unsigned *count, const float *in, float *out, int *idx,
         const char *mask, int *kept, int n) {
  lagged_fib<<<1, LAG>>>(x, n / LAG);
  lagged_state<<<1, LAG>>>(y, n / LAG);
  chain_rows<<<1, 128>>>(x, coef, 4096, n / 4096);
  compact_table<<<1, 1024>>>(table, n, count);
  one_block_scan<<<1, 256>>>(in, out, n);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  compact_masked<<<1, 32>>>(idx, mask, n, kept);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  one_block_sum<<<1, 512, 512 * sizeof(float)>>>(in, out, n);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  block_max<<<1, 1024, 1024 * sizeof(float)>>>(in, out);
  digit_sums<<<1, 256>>>(x, y, n / 4);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  reversed_ramp<<<1, 256>>>(out, n);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  damp_in_place<<<1, 256>>>(out, n);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
  cudaTextureObject_t tex = 0;
  reverse_tiles<<<1, 256>>>(tex, out, n);
  // CHECK: :[[@LINE-1]]:3: warning: grid of 1 block keeps only 1 of the GPU's 132 SMs busy{{.*}} [launch-small-grid]
}
