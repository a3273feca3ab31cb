// x / 2^k and x % 2^k on signed values proven >= 0, against the shift/mask:
// which forms does nvcc already compile to the shift?
#ifdef SHIFT
#define DIV(x, k, s) ((x) >> (s))
#define MOD(x, k, s) ((x) & ((k) - 1))
#else
#define DIV(x, k, s) ((x) / (k))
#define MOD(x, k, s) ((x) % (k))
#endif
__global__ void f1_const_product(float *o) { int ty = threadIdx.y; o[DIV(ty * 128, 4, 2)] = 1; }
__global__ void f2_tid2d(float *o) { int ty = threadIdx.y, tx = threadIdx.x; int idx = ty * 64 + tx; o[MOD(idx, 16, 4)] = 1; o[100 + DIV(idx, 16, 4)] = 2; }
__global__ void f3_global_index(float *o) { int i = blockIdx.x * blockDim.x + threadIdx.x; o[DIV(i, 32, 5)] = 1; }
__global__ void f4_tid(float *o) { int idx = threadIdx.x; o[DIV(idx, 32, 5)] = 1; o[MOD(idx, 32, 5) + 64] = 2; }
__global__ void f5_block_stride_loop(float *o, int n) { for (int i = threadIdx.x; i < n; i += blockDim.x) o[DIV(i, 4, 2)] += 1; }
__global__ void f6_guarded_global_index(float *o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[MOD(i, 8, 3)] += DIV(i, 8, 3); }
__global__ void f7_loop_from_zero(float *o, int n) { for (int i = 0; i < n; i++) o[DIV(i, 4, 2)] += 1; }
__global__ void f8_guard(float *o, int n, int m) { for (int i = threadIdx.x; i < n; i += blockDim.x) { int r = i * m; if (r >= 0) o[DIV(r, 4, 2)] += 1; } }
__global__ void f9_grid_stride(float *o, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) o[MOD(i, 32, 5)] += DIV(i, 32, 5); }
__global__ void f10_tid_sum(float *o, int n) { int t = threadIdx.x + 32; o[DIV(t, 32, 5)] = 1; }
