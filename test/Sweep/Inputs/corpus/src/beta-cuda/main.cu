#include <cuda_runtime.h>
__global__ void broken(float *p, int n) {
  int i = threadIdx.x
  if (i < n) p[i] = 0.f;
}
int main() { return undeclared_name; }
