// A declaration whose text holds only part of a conditional: the qualifier
// of a constant table sits in `#if defined(__CUDACC__)` ... `#endif` (a
// header shared with OpenMP builds), and a device function's qualifiers in
// the first branch of an #ifndef/#else. The copied text holds an #endif or
// an #else whose #if is not copied: the extraction balances them (an empty
// line; `#if 0` for the branch not taken), so NVRTC compiles it.
// REQUIRES: nvrtc
// RUN: rm -rf %t && %cuda-l1-rewrite --extract=all --verify=compile -o %t %s | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t/scale.cu
#include <cuda_runtime.h>

#if defined(__CUDACC__)
__constant__
#endif

#ifdef _OPENMP
#pragma omp declare target
#endif
static double factors[] = {1.0, 1.0, 2.0, 6.0, 24.0};
#ifdef _OPENMP
#pragma omp end declare target
#endif

#ifndef HOST_TOO
__device__
#else
__host__ __device__
#endif
inline double twice(double x) { return 2.0 * x; }

__global__ void scale(double *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = twice(v[i]) * factors[i % 5];
}

// OUT: scale -> {{.*}}scale.cu ({{[0-9]+}} pieces, compiles with NVRTC)
// OUT: NVRTC (sm_{{[0-9]+}}): 1 compiled, 0 failed

// CHECK: {{^}}__constant__{{$}}
// CHECK-NOT: {{^}}#endif
// CHECK: {{^}}#ifdef _OPENMP{{$}}
// CHECK-NEXT: {{^}}#pragma omp declare target{{$}}
// CHECK-NEXT: {{^}}#endif{{$}}
// CHECK-NEXT: static double factors[] = {1.0, 1.0, 2.0, 6.0, 24.0};
// CHECK: {{^}}__device__{{$}}
// CHECK-NEXT: {{^}}#if 0{{$}}
// CHECK-NEXT: {{^}}__host__ __device__{{$}}
// CHECK-NEXT: {{^}}#endif{{$}}
// CHECK-NEXT: inline double twice(double x)
