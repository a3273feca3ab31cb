// Typedefs of arithmetic types from host system headers that NVRTC does not
// have (glibc's <sys/types.h>: uint, ulong, ushort), used by user structs
// and kernels: written out in the extracted source, which then compiles.
// REQUIRES: nvrtc
// RUN: rm -rf %t && %cuda-l1-rewrite --extract=k --verify=compile -o %t %s | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t/k.cu
// RUN: FileCheck %s --input-file=%t/k.json --check-prefix=JSON
#include <sys/types.h>
typedef struct rec { uint b; ulong c; ushort d; } rec;
__global__ void k(rec *p, uint n) {
  uint i = threadIdx.x;
  if (i < n)
    p[i].b = i + p[i].d;
}
void run(rec *p) { k<<<1, 32>>>(p, 32u); }

// OUT: k -> {{.*}}k.cu ({{.*}}compiles with NVRTC)
// OUT: NVRTC (sm_90): 1 compiled, 0 failed
// CHECK: typedef unsigned int uint; // cuda-l1: as <{{.*}}sys/types.h> defines it
// CHECK-NEXT: typedef unsigned long ulong; // cuda-l1: as <{{.*}}sys/types.h> defines it
// CHECK-NEXT: typedef unsigned short ushort; // cuda-l1: as <{{.*}}sys/types.h> defines it
// CHECK: typedef struct rec { uint b; ulong c; ushort d; } rec;
// JSON: "what": "typedef uint (as <{{.*}}sys/types.h> defines it)"
