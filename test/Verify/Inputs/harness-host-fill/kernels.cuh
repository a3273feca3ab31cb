// Kernels whose lock, slot and flag arrays (atomicCAS/atomicExch on their
// elements) must start as the host sets them, and an accumulator.
#pragma once
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define N 4096
#define EMPTY (-1)

// A spin lock per bucket (the host's vector of zeros, copied in).
__global__ void add_locked(const int *key, float *sum, int *locks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = key[i] & 255;
  bool done = false;
  while (!done) {
    if (atomicCAS(&locks[b], 0, 1) == 0) {
      sum[b] += 1.0f;
      __threadfence();
      atomicExch(&locks[b], 0);
      done = true;
    }
  }
}

// An open-addressing table: slots claimed with atomicCAS on EMPTY, the host
// sets every byte to 0xff (EMPTY).
__global__ void insert(const int *keys, int *table, int n, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = keys[i] & 0x7fffffff;
  for (int h = k % cap;; h = (h + 1) % cap)
    if (atomicCAS(&table[h], EMPTY, k) == EMPTY || table[h] == k) return;
}

// Claim flags in an array initialised to zeros on the host.
__global__ void claim(int *flags, int *winner, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && atomicExch(flags + (i & 15), 1) == 0) winner[i & 15] = i;
}

// An accumulator the host zeroes: it keeps random values (a plain store
// in place of the += must be told apart).
__global__ void accumulate(const float *x, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += x[i];
}

