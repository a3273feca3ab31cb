#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *out) {
  int t = threadIdx.x;
  int a = __shfl_down_sync(0xffffffffu, t, 1, 8);
  int b = __shfl_xor_sync(0xffffffffu, t, 4, 8);
  int c = __shfl_sync(0xffffffffu, t, 3, 16);
  int d = __shfl_up_sync(0xffffffffu, t, 2);
  out[t] = a * 1000000 + b * 10000 + c * 100 + d;
}
int main() {
  int *o; cudaMalloc((void **)&o, 64 * sizeof(int));
  k<<<1, 64>>>(o);
  int h[64]; cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
  for (int i : {0, 7, 8, 15, 31, 33}) printf("%d:%d ", i, h[i]);
  printf("\n");
}
