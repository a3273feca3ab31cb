// launch-idle-blocks copies the kernel it launches from its first blocks. A
// fix of the same round that edits that kernel (here the register
// accumulator of a Gram-Schmidt projection) goes first, and the copy waits
// for the next round, where it copies the edited kernel: otherwise the copy,
// which is what runs, would silently lose the other fix (seen on the naive
// corpus's gram_schmidt, where the copy kept the slow kernel).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu && cp %s %t/orig.cu && cp %s %t/one.cu
// RUN: %cuda-l1-rewrite --rules='-*,launch-idle-blocks,memory-register-accumulation' \
// RUN:   --fix --allow-unverified %t/t.cu 2>&1 | FileCheck --check-prefix=MSG %s
// MSG: t.cu:[[@LINE+32]]:7: warning: 'R[k * n + j]' is loaded from and stored to global memory {{.*}}[memory-register-accumulation]
// MSG: t.cu:[[@LINE+52]]:5: warning: 'project' is launched over the same grid in every iteration{{.*}}[launch-idle-blocks]
// MSG: [launch-idle-blocks] fix not applied: it copies code that the fix of {{.*}}t.cu:[[@LINE+30]]:7: [memory-register-accumulation] edits; the next round copies the edited code if it still matches
// MSG: cuda-l1: code outside kernels combines launch-idle-blocks (round 2): applied
// RUN: FileCheck --check-prefix=FIXED %s --input-file=%t/t.cu
// The copy, which the loop launches, has the register accumulator.
// FIXED:      __global__ void cudal1_idle_project(float *R, const float *Q, float *A, int k, int m, int n, unsigned cudal1_ox, unsigned cudal1_oy, unsigned cudal1_oz) {
// FIXED-NEXT:   int j = (blockIdx.x + cudal1_ox) * blockDim.x + threadIdx.x;
// FIXED-NEXT:   if (j > k && j < n) {
// FIXED-NEXT:     float R_acc = 0.0f;
// FIXED:          cudal1_idle_project<<<cudal1_g, cudal1_b>>>(R, Q, A, k, m, n, cudal1_o[0], cudal1_o[1], cudal1_o[2]);
// With one round, the accumulator alone; the copy comes when run again.
// RUN: %cuda-l1-rewrite --rules='-*,launch-idle-blocks,memory-register-accumulation' \
// RUN:   --fix --allow-unverified --compose-rounds=1 %t/one.cu 2>&1 | FileCheck --check-prefix=ONE %s
// ONE: applied 1 fix in 1 file
// RUN: grep -v "^//" %t/one.cu | FileCheck --check-prefix=ONEFIX %s
// ONEFIX-NOT: cudal1_idle_project
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// The rewritten program prints what the original prints, bitwise.
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/orig %t/orig.cu
// RUN: %python %srcroot/utils/bench/cuemu.py --nvcc -o %t/new %t/t.cu
// RUN: %t/orig > %t/orig.txt
// RUN: %t/new > %t/new.txt
// RUN: diff %t/orig.txt %t/new.txt
#include <cstdio>
#include <cstdlib>

__global__ void project(float *R, const float *Q, float *A, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n) {
    R[k * n + j] = 0.0f;
    for (int i = 0; i < m; i++)
      R[k * n + j] += Q[i * n + k] * A[i * n + j];
    for (int i = 0; i < m; i++)
      A[i * n + j] -= Q[i * n + k] * R[k * n + j];
  }
}

int main() {
  const int m = 70, n = 67;
  float *hA = (float *)malloc(sizeof(float) * m * n), *hQ = (float *)malloc(sizeof(float) * m * n);
  for (int i = 0; i < m * n; i++) {
    hA[i] = (float)((i * 37) % 101) / 101.0f;
    hQ[i] = (float)((i * 53) % 97) / 97.0f - 0.5f;
  }
  float *A, *Q, *R;
  cudaMalloc(&A, sizeof(float) * m * n);
  cudaMalloc(&Q, sizeof(float) * m * n);
  cudaMalloc(&R, sizeof(float) * n * n);
  cudaMemcpy(A, hA, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  cudaMemcpy(Q, hQ, sizeof(float) * m * n, cudaMemcpyHostToDevice);
  cudaMemset(R, 0, sizeof(float) * n * n);
  for (int k = 0; k < n; k++)
    project<<<(n + 31) / 32, 32>>>(R, Q, A, k, m, n);
  float *hR = (float *)malloc(sizeof(float) * n * n);
  cudaMemcpy(hR, R, sizeof(float) * n * n, cudaMemcpyDeviceToHost);
  cudaMemcpy(hA, A, sizeof(float) * m * n, cudaMemcpyDeviceToHost);
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < n * n; i++)
    h = (h ^ *(unsigned *)&hR[i]) * 1099511628211ull;
  for (int i = 0; i < m * n; i++)
    h = (h ^ *(unsigned *)&hA[i]) * 1099511628211ull;
  printf("hash %llx R[1] %.9g A[5] %.9g\n", h, hR[1], hA[5]);
  return 0;
}
