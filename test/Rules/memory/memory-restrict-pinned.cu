// memory-restrict weighs the loads a loop could move above its stores: a
// volatile load and the read of an atomic stay where they are written with
// __restrict__ too, so a loop whose only loads of shared memory (other
// threads') are such is not reported. Shapes from a third-party hash table
// (HeCBench's gerbil: probes through a volatile table, counters bumped by
// atomics, the key's hash a member of a class template called in the
// kernel template): 8 instantiations compiled with and without the
// qualifiers have the same instruction count. A call of a member of a
// class template on an object of a dependent type (`key.hash(t)` in a
// template) is followed into the member, its object bound, like any call.
// CompareCode is off here so that the static conditions alone decide.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: printf 'CheckOptions:\n  memory-restrict.CompareCode: false\n' > %t/cfg.yaml
// RUN: %cuda-l1-rewrite --config-file=%t/cfg.yaml --rules='-*,memory-restrict' %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// The fixes compile.
// RUN: %cuda-l1-rewrite --config-file=%t/cfg.yaml --rules='-*,memory-restrict' --fix --allow-unverified %t/t.cu
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
#include <cuda_runtime.h>

// Each thread copies a row of flags another kernel may still be setting:
// the loads are volatile, nothing can move them. Silent.
__global__ void drain_flags(volatile int *flags, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; k++)
    out[t * n + k] = flags[k];
}

// The same walk over plain data: the next iteration's load may move above
// this one's store only with the qualifiers. Reported.
__global__ void copy_flags(const int *flags, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; k++)
    out[t * n + k] = flags[k];
}
// CHECK: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'flags', 'out' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'out' and loads through 'flags' [memory-restrict]

// A thread's own loop of atomics on two counters, its key loaded once
// before it: the atomics' reads are done in L2 whatever the compiler
// knows. Silent.
__global__ void tally(const int *keys, unsigned *hist, unsigned *total, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = keys[t];
  for (int k = 0; k < n; k++) {
    atomicAdd(&hist[(v + k) & 15], 1u);
    atomicAdd(total, 1u);
  }
}

// The key loaded in the loop: that load could move above the atomics.
// Reported.
__global__ void tally_each(const int *keys, unsigned *hist, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < n; k++)
    atomicAdd(&hist[keys[t * n + k] & 15], 1u);
}
// CHECK: t.cu:[[@LINE-5]]:{{[0-9]+}}: warning: pointer parameters 'keys', 'hist' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'hist' and loads through 'keys' [memory-restrict]

// A key of N words hashed by a member of its class template; the key a
// block probes with is in shared memory, so the member reads only the
// block's memory. Silent.
template <int N> struct Key {
  unsigned w[N];
  __device__ unsigned hash(unsigned trial) const {
    unsigned h = trial;
    for (int i = 0; i < N; i++)
      h = h * 31u + w[i];
    return h;
  }
};
template <int N>
__global__ void probe(const Key<N> *keys, unsigned *slots, int trials) {
  __shared__ Key<N> key;
  if (threadIdx.x == 0)
    key = keys[blockIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int t = 0; t < trials; t++)
      slots[blockIdx.x * trials + t] = key.hash(t);
}

// The same key with a salt its member reads through a pointer it holds:
// memory the tool cannot name, loaded in the loop that stores. Reported.
template <int N> struct SaltedKey {
  unsigned w[N];
  const unsigned *salt;
  __device__ unsigned hash(unsigned trial) const {
    unsigned h = salt[trial];
    for (int i = 0; i < N; i++)
      h = h * 31u + w[i];
    return h;
  }
};
template <int N>
__global__ void probe_salted(const SaltedKey<N> *keys, unsigned *slots, int trials) {
  __shared__ SaltedKey<N> key;
  if (threadIdx.x == 0)
    key = keys[blockIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    for (int t = 0; t < trials; t++)
      slots[blockIdx.x * trials + t] = key.hash(t);
}
// CHECK: t.cu:[[@LINE-9]]:{{[0-9]+}}: warning: pointer parameters 'keys', 'slots' are not __restrict__{{.*}}: the loop at line [[@LINE-3]] stores through 'slots' and loads through memory it cannot name [memory-restrict]
