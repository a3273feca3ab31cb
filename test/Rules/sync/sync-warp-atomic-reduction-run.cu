// sync-warp-atomic-reduction, run: the original and the rewritten program,
// on the CPU emulation (utils/bench/cuemu, warp shuffles included), print the
// same results. The float sums add quarters of small integers (exact in any
// order), so the rewritten sums must match to the bit; maxima, minima and
// or-ed flags are exact by construction.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu
// RUN: %cuda-l1-rewrite --rules='-*,sync-warp-atomic-reduction' --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=APPLIED %s
// APPLIED: applied 15 fixes in 1 file
// APPLIED: kernel 'sum_and_count' combines sync-warp-atomic-reduction (round 1) + sync-warp-atomic-reduction (round 2): applied
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
// RUN: FileCheck --check-prefix=RUNS %s < %t/new.txt
// The values, computed apart in Python from the same generator:
// RUNS: int max -5, and 0x0d0b0000, xor 0x12345678
// RUNS: block sums: 2477.75 2250.75
// RUNS: grid sum: 4728.50
// RUNS: max bits: 1092354048 (9.750)
// RUNS: nearest: 7 twice[999] = 842
// RUNS: flags: 1 in 3
// RUNS: count: 929
// RUNS: alive: 41 of 1000
// RUNS: stride: sum 4728.50 count 444
// RUNS: pair: sum 4728.50 count 1000
// RUNS: runtime block 96: sum 4728.50 count 444
// The block size of runtime_sum comes from the command line: the rewrite
// tests blockDim for whole warps. 100 threads take the per-thread atomics.
// RUN: grep -c '& 31u) == 0u) {' %t/t.cu | FileCheck --check-prefix=TEST %s
// TEST: {{^[1-9]}}
// RUN: %t/orig 100 > %t/orig100.txt
// RUN: %t/new 100 > %t/new100.txt
// RUN: diff %t/orig100.txt %t/new100.txt
// RUN: FileCheck --check-prefix=R100 %s < %t/new100.txt
// R100: runtime block 100: sum 4728.50 count 444
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void block_partial(const float *array, float *result, float *blocks,
                              unsigned int n) {
  __shared__ float partialSum;
  unsigned int lid = threadIdx.x;
  unsigned int gid = blockIdx.x * blockDim.x + lid;
  if (lid == 0) partialSum = 0;
  __syncthreads();
  if (gid < n)
    atomicAdd(&partialSum, array[gid]);
  __syncthreads();
  if (lid == 0) {
    blocks[blockIdx.x] = partialSum;
    atomicAdd(result, partialSum);
  }
}

__global__ void max_bits(const float *x, int *maxb, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(maxb, __float_as_int(x[i]));
}

__global__ void nearest(const unsigned int *dist, unsigned int *twice,
                        unsigned int *best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int d = dist[i];
    twice[i] = 2u * d;
    atomicMin(best, d);
  }
}

__global__ void any_negative(const float *x, unsigned int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicOr(&flags[blockIdx.x % 3], (i < n && x[i] < 0.0f) ? 1u : 0u);
}

__global__ void count_big(const float *x, unsigned long long *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(count, x[i] > 0.5f ? 1ull : 0ull);
}

// All-negative values: the maximum's identity must be INT_MIN, not 0.
__global__ void max_negative(const int *v, int *m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(m, v[i]);
}

__global__ void and_xor(const unsigned int *w, unsigned int *a,
                        unsigned int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAnd(a, w[i]);
  if (i < n)
    atomicXor(x, w[i]);
}

// Game-of-life population on a 2-D block: the guard tests data with `==`
// (every lane takes part; it does not pick one thread), and the warp and
// block ids are the linear ones.
__global__ void count_alive(const int *board, int *count, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && board[y * w + x] == 1)
    atomicAdd(count, 1);
}

// Grid-stride loops over more elements than threads (lanes run 5 or 6
// iterations): each thread's terms go to a register, reduced after the loop.
__global__ void stride_sum(const float *x, float *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}
__global__ void stride_count(const float *x, unsigned int *cnt, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (x[i] > 5.0f)
      atomicAdd(cnt, 1u);
  }
}

// A sum and a count in one guard: one fix each, over two rounds.
__global__ void sum_and_count(const float *x, float *sum, unsigned int *cnt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    atomicAdd(sum, v);
    atomicAdd(cnt, 1u);
  }
}

// Launched with a block size the tool cannot know (argv).
__global__ void runtime_sum(const float *x, float *sum, unsigned int *cnt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i]);
  if (i < n && x[i] > 5.0f)
    atomicAdd(cnt, 1u);
}

int main(int argc, char **argv) {
  const int n = 1000;
  float *hx = new float[n];
  unsigned int *hd = new unsigned int[n];
  unsigned long long S = 7;
  for (int i = 0; i < n; ++i) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    hx[i] = float((S >> 40) % 40) / 4.0f; // 0, 0.25, ..., 9.75
    hd[i] = 7u + unsigned((S >> 33) % 1000u);
  }
  hx[123] = -0.25f;
  float *x, *sum, *blocks;
  int *maxb;
  unsigned int *d, *twice, *best, *flags;
  unsigned long long *count;
  cudaMalloc((void **)&x, n * sizeof(float));
  cudaMalloc((void **)&sum, sizeof(float));
  cudaMalloc((void **)&blocks, 4 * sizeof(float));
  cudaMalloc((void **)&maxb, sizeof(int));
  cudaMalloc((void **)&d, n * sizeof(unsigned int));
  cudaMalloc((void **)&twice, n * sizeof(unsigned int));
  cudaMalloc((void **)&best, sizeof(unsigned int));
  cudaMalloc((void **)&flags, 3 * sizeof(unsigned int));
  cudaMalloc((void **)&count, sizeof(unsigned long long));
  cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d, hd, n * sizeof(unsigned int), cudaMemcpyHostToDevice);
  cudaMemset(sum, 0, sizeof(float));
  cudaMemset(maxb, 0, sizeof(int));
  cudaMemset(best, 0xff, sizeof(unsigned int));
  cudaMemset(flags, 0, 3 * sizeof(unsigned int));
  cudaMemset(count, 0, sizeof(unsigned long long));
  block_partial<<<(n + 511) / 512, 512>>>(x, sum, blocks, n);
  max_bits<<<(n + 127) / 128, 128>>>(x, maxb, n);
  nearest<<<(n + 255) / 256, 256>>>(d, twice, best, n);
  any_negative<<<(n + 63) / 64, 64>>>(x, flags, n);
  count_big<<<(n + 255) / 256, 256>>>(x, count, n);
  float hb[2], hs;
  int hm;
  unsigned int hbest, htw, hf[3];
  unsigned long long hc;
  int aliveOut = -1;
  cudaMemcpy(hb, blocks, 2 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hs, sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hm, maxb, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hbest, best, sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&htw, twice + 999, sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(hf, flags, 3 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hc, count, sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  {
    int *hv = new int[n];
    unsigned int *hw = new unsigned int[n];
    unsigned int xr = 0;
    for (int i = 0; i < n; ++i) {
      hv[i] = -5 - (i * 37) % 1000;
      hw[i] = 0xff0f0000u | (unsigned)(i * 2654435761u >> 20);
      xr ^= hw[i];
    }
    hw[17] = 0x0f0fffffu;
    xr = 0;
    for (int i = 0; i < n; ++i)
      xr ^= hw[i];
    hw[0] ^= xr ^ 0x12345678u; // the xor of all is 0x12345678
    int *dv, *dm;
    unsigned int *dw, *da, *dx;
    cudaMalloc((void **)&dv, n * sizeof(int));
    cudaMalloc((void **)&dm, sizeof(int));
    cudaMalloc((void **)&dw, n * sizeof(unsigned int));
    cudaMalloc((void **)&da, sizeof(unsigned int));
    cudaMalloc((void **)&dx, sizeof(unsigned int));
    cudaMemcpy(dv, hv, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, hw, n * sizeof(unsigned int), cudaMemcpyHostToDevice);
    int m0 = -2147483647 - 1;
    unsigned int a0 = 0xffffffffu, x0 = 0;
    cudaMemcpy(dm, &m0, sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(da, &a0, sizeof(unsigned int), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, &x0, sizeof(unsigned int), cudaMemcpyHostToDevice);
    max_negative<<<(n + 255) / 256, 256>>>(dv, dm, n);
    and_xor<<<(n + 127) / 128, 128>>>(dw, da, dx, n);
    int hm2;
    unsigned int ha, hx;
    cudaMemcpy(&hm2, dm, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&ha, da, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&hx, dx, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    printf("int max %d, and 0x%08x, xor 0x%08x\n", hm2, ha, hx);
    // A 50 x 20 board, alive where v % 24 == 1 (v = -5 - (i*37) % 1000).
    int *hb2 = new int[n];
    for (int i = 0; i < n; ++i)
      hb2[i] = ((-hv[i]) % 24 == 1) ? 1 : 0;
    int *db, *dc, zero = 0, alive = 0;
    cudaMalloc((void **)&db, n * sizeof(int));
    cudaMalloc((void **)&dc, sizeof(int));
    cudaMemcpy(db, hb2, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(dc, &zero, sizeof(int), cudaMemcpyHostToDevice);
    dim3 blk(16, 4);
    dim3 grd((50 + 15) / 16, (20 + 3) / 4);
    count_alive<<<grd, blk>>>(db, dc, 50, 20);
    cudaMemcpy(&alive, dc, sizeof(int), cudaMemcpyDeviceToHost);
    aliveOut = alive;
  }
  float ss = 0, ps = 0, rs = 0;
  unsigned int sc = 0, pc = 0, rc = 0;
  int rt = 0;
  {
    float *dsum;
    unsigned int *dcnt;
    cudaMalloc((void **)&dsum, sizeof(float));
    cudaMalloc((void **)&dcnt, sizeof(unsigned int));
    cudaMemset(dsum, 0, sizeof(float));
    cudaMemset(dcnt, 0, sizeof(unsigned int));
    stride_sum<<<3, 64>>>(x, dsum, n);
    stride_count<<<3, 64>>>(x, dcnt, n);
    cudaMemcpy(&ss, dsum, sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&sc, dcnt, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaMemset(dsum, 0, sizeof(float));
    cudaMemset(dcnt, 0, sizeof(unsigned int));
    sum_and_count<<<(n + 127) / 128, 128>>>(x, dsum, dcnt, n);
    cudaMemcpy(&ps, dsum, sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&pc, dcnt, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaMemset(dsum, 0, sizeof(float));
    cudaMemset(dcnt, 0, sizeof(unsigned int));
    rt = argc > 1 ? atoi(argv[1]) : 96;
    runtime_sum<<<(n + rt - 1) / rt, rt>>>(x, dsum, dcnt, n);
    cudaMemcpy(&rs, dsum, sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&rc, dcnt, sizeof(unsigned int), cudaMemcpyDeviceToHost);
  }
  float fm;
  memcpy(&fm, &hm, sizeof(float));
  printf("block sums: %.2f %.2f\n", hb[0], hb[1]);
  printf("grid sum: %.2f\n", hs);
  printf("max bits: %d (%.3f)\n", hm, fm);
  printf("nearest: %u twice[999] = %u\n", hbest, htw);
  printf("flags: %u in %u\n", hf[0] + hf[1] + hf[2], 3u);
  printf("count: %llu\n", hc);
  printf("alive: %d of %d\n", aliveOut, n);
  printf("stride: sum %.2f count %u\n", ss, sc);
  printf("pair: sum %.2f count %u\n", ps, pc);
  printf("runtime block %d: sum %.2f count %u\n", rt, rs, rc);
  return 0;
}
