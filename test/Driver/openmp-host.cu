// Host code that times with OpenMP (`#include <omp.h>`, omp_get_wtime, a
// `#pragma omp` loop), as HeCBench's streamUM and logan do: the file parses
// (clang's resource headers have omp.h: utils/install-deps.sh installs
// libomp-22-dev) and the kernel's finding is reported.
// RUN: %cuda-l1-rewrite --rules="-*,algebraic-float-literal" %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: openmp-host.cu:[[@LINE+6]]:{{[0-9]+}}: warning: double literal '0.3' {{.*}}[algebraic-float-literal]
// CHECK: 1 warning and 0 errors
#include <omp.h>
#include <cstdio>

__global__ void scale(float *p) {
  p[threadIdx.x] = p[threadIdx.x] * 0.3;
}

int main() {
  float *d;
  cudaMalloc(&d, 64 * sizeof(float));
  double t0 = omp_get_wtime();
  scale<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  float h[64];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  float sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < 64; ++i)
    sum += h[i];
  printf("%f %f s\n", sum, omp_get_wtime() - t0);
  cudaFree(d);
  return 0;
}
