// Experiment: when does `__restrict__` pay on a loop that stores through one
// pointer and loads through others? memory-restrict reports such loops
// (docs/rules/memory-restrict.md). On HeCBench, the kernels whose loops
// deal their iterations out to the threads (grid-stride, block-stride, a
// tail loop) measured 1.00x with the qualifier, while one-thread-per-row
// walks gained (softmax 1.29x). Here the same body, `out[i] = a[i] * s +
// b[i]` (or an atomic count of `a[i] != b[i]`), in each loop shape, with
// and without the qualifiers, 2^25 floats per array:
//   gs-cover   grid-stride, a grid that covers the data (one iteration per
//              thread);
//   gs-capped  grid-stride, 8 blocks per SM (about 120 iterations per
//              thread);
//   bs-row     block-stride, one block per row of 8192 (32 iterations per
//              thread);
//   bs-atomic  block-stride, one block per pair of rows, each iteration
//              adding its count to the pair's counter (HeCBench's
//              all-pairs-distance k1, which gained 1.04x);
//   thread-row one thread per row, walking its 8192 elements (softmax);
//   thread-row-acc one thread per row, accumulating into out[row] in the
//              loop (`out[r] += a[...] * b[...]`: the qualifier lets the
//              compiler keep the sum in a register);
//   warp-rows  rows dealt out to the block's warps (`r += blockDim.x /
//              32`), each lane one element of the row: a loop that
//              memory-restrict still counts as one thread's;
//   uniform-search one thread per point searching all points (loads the
//              same for every lane of a warp), storing only when a closer
//              one is found (HeCBench's s8n, measured 1.00x).
// Prints the median of 15 launches of each and the ratio plain/restrict.
// Build: nvcc -O3 -arch=sm_90 restrict-stride.cu -o restrict-stride
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static const long N = 1L << 25;
static const int ROW = 8192;
static const int ROWS = N / ROW;
static const int B = 256;

#define KERNELS(SUF, R)                                                         \
  __global__ void gs_##SUF(const float *R a, const float *R b, float *R out,   \
                           long n, float s) {                                  \
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;          \
         i += (long)blockDim.x * gridDim.x)                                    \
      out[i] = a[i] * s + b[i];                                                \
  }                                                                            \
  __global__ void bs_##SUF(const float *R a, const float *R b, float *R out,   \
                           int len, float s) {                                 \
    long base = (long)blockIdx.x * len;                                        \
    for (int j = threadIdx.x; j < len; j += blockDim.x)                        \
      out[base + j] = a[base + j] * s + b[base + j];                           \
  }                                                                            \
  __global__ void bsat_##SUF(const float *R a, const float *R b, int *R cnt,   \
                             int len, int rows) {                              \
    long ra = (long)(blockIdx.x % rows) * len;                                 \
    long rb = (long)((blockIdx.x * 7 + 3) % rows) * len;                       \
    for (int j = threadIdx.x; j < len; j += blockDim.x)                        \
      atomicAdd(cnt + blockIdx.x, a[ra + j] != b[rb + j]);                     \
  }                                                                            \
  __global__ void tr_##SUF(const float *R a, const float *R b, float *R out,   \
                           int len, int rows, float s) {                       \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (r >= rows) return;                                                     \
    for (int j = 0; j < len; j++)                                              \
      out[(long)r * len + j] = a[(long)r * len + j] * s + b[(long)r * len + j]; \
  }                                                                            \
  __global__ void tracc_##SUF(const float *R a, const float *R b,              \
                              float *R out, int len, int rows) {               \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (r >= rows) return;                                                     \
    out[r] = 0.f;                                                              \
    for (int j = 0; j < len; j++)                                              \
      out[r] += a[(long)r * len + j] * b[(long)r * len + j];                   \
  }                                                                            \
  __global__ void wr_##SUF(const float *R a, const float *R b, float *R out,   \
                           int rows, float s) {                                \
    int lane = threadIdx.x % 32;                                               \
    for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows;   \
         r += blockDim.x / 32 * gridDim.x)                                     \
      out[(long)r * 32 + lane] = a[(long)r * 32 + lane] * s +                  \
                                 b[(long)r * 32 + lane];                       \
  }                                                                            \
  __global__ void wrb_##SUF(const float *R a, const float *R b, float *R out,  \
                            int rows, float s) {                               \
    int lane = threadIdx.x % 32;                                               \
    long base = (long)blockIdx.x * rows * 32;                                  \
    for (int r = threadIdx.x / 32; r < rows; r += blockDim.x / 32)             \
      out[base + r * 32 + lane] = a[base + r * 32 + lane] * s +                \
                                  b[base + r * 32 + lane];                     \
  }                                                                            \
  __global__ void us_##SUF(const float *R a, int *R best, int n) {             \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i >= n) return;                                                        \
    float x = a[i], d = 1e30f;                                                 \
    for (int j = 0; j < n; j++) {                                              \
      float e = fabsf(a[j] - x);                                               \
      if (j != i && e < d) {                                                   \
        d = e;                                                                 \
        best[i] = j;                                                           \
      }                                                                        \
    }                                                                          \
  }

KERNELS(plain, )
KERNELS(restr, __restrict__)

template <class F> float median_ms(F launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  launch(); // warm-up
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 15; r++) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void report(const char *name, float plain, float restr) {
  printf("%-16s plain %9.3f ms  restrict %9.3f ms  plain/restrict %.3fx\n",
         name, plain, restr, plain / restr);
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s, %d SMs; %ld floats per array, rows of %d\n", p.name, sms,
         N, ROW);
  float *a, *b, *out;
  int *cnt;
  CK(cudaMalloc(&a, N * sizeof(float)));
  CK(cudaMalloc(&b, N * sizeof(float)));
  CK(cudaMalloc(&out, N * sizeof(float)));
  CK(cudaMalloc(&cnt, N * sizeof(int)));
  std::vector<float> h(N);
  for (long i = 0; i < N; i++) h[i] = (float)((i * 2654435761u) % 1000) * 0.001f;
  CK(cudaMemcpy(a, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  for (long i = 0; i < N; i++) h[i] = (float)((i * 40503u) % 997) * 0.001f;
  CK(cudaMemcpy(b, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));

  int cover = (int)((N + B - 1) / B), capped = sms * 8;
  report("gs-cover",
         median_ms([&] { gs_plain<<<cover, B>>>(a, b, out, N, 0.5f); }),
         median_ms([&] { gs_restr<<<cover, B>>>(a, b, out, N, 0.5f); }));
  report("gs-capped",
         median_ms([&] { gs_plain<<<capped, B>>>(a, b, out, N, 0.5f); }),
         median_ms([&] { gs_restr<<<capped, B>>>(a, b, out, N, 0.5f); }));
  report("bs-row",
         median_ms([&] { bs_plain<<<ROWS, B>>>(a, b, out, ROW, 0.5f); }),
         median_ms([&] { bs_restr<<<ROWS, B>>>(a, b, out, ROW, 0.5f); }));
  report("bs-atomic",
         median_ms([&] { bsat_plain<<<ROWS, B>>>(a, b, cnt, ROW, ROWS); }),
         median_ms([&] { bsat_restr<<<ROWS, B>>>(a, b, cnt, ROW, ROWS); }));
  int tg = (ROWS + 127) / 128;
  report("thread-row",
         median_ms([&] { tr_plain<<<tg, 128>>>(a, b, out, ROW, ROWS, 0.5f); }),
         median_ms([&] { tr_restr<<<tg, 128>>>(a, b, out, ROW, ROWS, 0.5f); }));
  report("thread-row-acc",
         median_ms([&] { tracc_plain<<<tg, 128>>>(a, b, out, ROW, ROWS); }),
         median_ms([&] { tracc_restr<<<tg, 128>>>(a, b, out, ROW, ROWS); }));
  int wrows = (int)(N / 32);
  report("warp-rows",
         median_ms([&] { wr_plain<<<cover / 8, B>>>(a, b, out, wrows, 0.5f); }),
         median_ms([&] { wr_restr<<<cover / 8, B>>>(a, b, out, wrows, 0.5f); }));
  report("warp-rows-block",
         median_ms([&] { wrb_plain<<<ROWS, B>>>(a, b, out, ROW / 32, 0.5f); }),
         median_ms([&] { wrb_restr<<<ROWS, B>>>(a, b, out, ROW / 32, 0.5f); }));
  int pts = 16384;
  report("uniform-search",
         median_ms([&] { us_plain<<<pts / 128, 128>>>(a, cnt, pts); }),
         median_ms([&] { us_restr<<<pts / 128, 128>>>(a, cnt, pts); }));
  CK(cudaGetLastError());
  return 0;
}
