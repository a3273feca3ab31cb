// The symbolic index analysis itself (--dump-accesses): locals, casts,
// pointer arithmetic, macros, inlined device functions, loop induction
// variables and trip counts, and "unknown" where it cannot know.
// RUN: %cuda-l1-rewrite --dump-accesses --rules=-* %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>
#define GID (blockIdx.x * blockDim.x + threadIdx.x)
#define AT(p, r, c, ld) (p)[(r) * (ld) + (c)]

__device__ int row_of(int w) { return blockIdx.y * 4 + w; }
__device__ void store(float *p, int i, float v) { p[i] = v; }

__global__ void k(const float *a, float *b, const int *idx, int n, int ld) {
  const int i = GID;
  const float *row = a + (size_t)row_of(threadIdx.y) * ld;
  float v = row[i];
  v += AT(a, i, 3, ld);
  unsigned u = (unsigned)i * 2u + 1u;
  v += a[u];
  v += a[idx[i]];
  store(b, i + 1, v);
  for (int j = 0; j < 8; j += 2)
    b[j * n + i] = v;
  for (int s = 64; s > 0; s >>= 1)
    b[s] = v;
  for (int t = i; t < n; t += blockDim.x * gridDim.x)
    b[t] = v;
  int w = i;
  if (n > 3)
    w = 0;
  b[w] = v;
}

void launch(const float *a, float *b, const int *idx, int n) {
  k<<<n / 128, 128>>>(a, b, idx, n, n);
}

// CHECK: kernel k block 128x1x1 (launch at {{.*}}index-analysis.cu:34:3)
// CHECK-NEXT: loop 1 at 21:3 depth 0 iv j = j init 0 step 2 trip constant 4
// CHECK-NEXT: loop 2 at 23:3 depth 0 iv s = s init 64 step geometric trip constant 7
// CHECK-NEXT: loop 3 at 25:3 depth 0 iv t = 128*blockIdx.x + 128*gridDim.x*iter(t) + threadIdx.x init 128*blockIdx.x + threadIdx.x step 128*gridDim.x trip parameter (n - (128*blockIdx.x + threadIdx.x)) / (128*gridDim.x)
// CHECK-NEXT: 15:13 global read row[i] base a addr 512*blockIdx.x + 16*blockIdx.y*ld + 4*ld*threadIdx.y + 4*threadIdx.x bytes 4 -> coalesced sectors 4/4 stride 1
// CHECK-NEXT: 16:8 global read AT(a, i, 3, ld) base a addr 512*blockIdx.x*ld + 4*ld*threadIdx.x + 12 bytes 4 -> uncoalesced sectors 32/4 stride ld
// CHECK-NEXT: 18:8 global read a[u] base a addr 1024*blockIdx.x + 8*threadIdx.x + 4 bytes 4 -> strided sectors 8/4 stride 2
// CHECK-NEXT: 19:8 global read a[idx[i]] base a addr unknown bytes 4 -> unknown sectors 0/4
// CHECK-NEXT: 19:10 global read idx[i] base idx addr 512*blockIdx.x + 4*threadIdx.x bytes 4 -> coalesced sectors 4/4 stride 1
// CHECK-NEXT: 10:51 global write p[i] base b addr 512*blockIdx.x + 4*threadIdx.x + 4 bytes 4 -> coalesced sectors 4/4 stride 1 (inlined)
// CHECK-NEXT: 22:5 global write b[j * n + i] base b addr 512*blockIdx.x + 4*j*n + 4*threadIdx.x bytes 4 loops 1 -> coalesced sectors 4/4 stride 1
// CHECK-NEXT: 24:5 global write b[s] base b addr 4*s bytes 4 loops 2 -> broadcast sectors 1/4 stride 0
// CHECK-NEXT: 26:5 global write b[t] base b addr 512*blockIdx.x + 512*gridDim.x*iter(t) + 4*threadIdx.x bytes 4 loops 3 -> coalesced sectors 4/4 stride 1
// CHECK-NEXT: 30:3 global write b[w] base b addr unknown bytes 4 -> unknown sectors 0/4
