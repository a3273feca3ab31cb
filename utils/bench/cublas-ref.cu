// cublas-ref: cuBLAS times for the corpus's matrix operations, the reference
// points of utils/bench-corpus.py (fp32, TF32 off: cublasSetMathMode
// CUBLAS_DEFAULT_MATH, or CUBLAS_PEDANTIC_MATH with CUBLAS_REF_PEDANTIC=1;
// the runner also sets NVIDIA_TF32_OVERRIDE=0).
//
//   cublas-ref OP [OP...]     OP: gemm:M:N:K  gemv_n:M:N  gemv_t:M:N
//                                 syrk:N:K  syr2k:N:K  trsm:M:N
// Sizes are those of the corpus programs, which store matrices row-major:
// gemv_n:M:N is y = A x for a row-major M x N matrix A (a transposed gemv in
// cuBLAS's column-major terms), gemv_t:M:N is y = A^T x; gemm:M:N:K is an
// M x N result with inner dimension K; syrk/syr2k update an N x N triangle
// with inner dimension K; trsm solves an M x M triangular system for N
// right-hand sides. Each operation: 3 warm-up calls, then REPS (20) calls
// timed one by one with CUDA events; one JSON line per operation:
//   {"op": "gemm:2048:2048:2048", "ms": median, "min_ms": ..., "reps": 20,
//    "gflops": ..., "math_mode": "default"}
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                  \
  do {                                                                                 \
    cudaError_t err_ = (call);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "cublas-ref: %s: %s\n", #call, cudaGetErrorString(err_));        \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)
#define CUBLAS_OK(call)                                                                \
  do {                                                                                 \
    cublasStatus_t st_ = (call);                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                \
      fprintf(stderr, "cublas-ref: %s: status %d\n", #call, (int)st_);                 \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static const int REPS = 20;

static float *device_random(size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> h(n);
  unsigned long long s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    h[i] = lo + (hi - lo) * (float)((s >> 40) / 16777216.0);
  }
  float *d;
  CUDA_OK(cudaMalloc(&d, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

// a lower triangular m x m matrix (column-major) with a strong diagonal
static float *device_lower(int m) {
  std::vector<float> h((size_t)m * m, 0.0f);
  unsigned long long s = 99;
  for (int j = 0; j < m; j++)
    for (int i = j; i < m; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      float r = (float)((s >> 40) / 16777216.0);
      h[(size_t)j * m + i] = (i == j) ? 2.0f + r : (2 * r - 1) / m;
    }
  float *d;
  CUDA_OK(cudaMalloc(&d, h.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: cublas-ref OP...  (gemm:M:N:K gemv_n:M:N gemv_t:M:N syrk:N:K syr2k:N:K trsm:M:N)\n");
    return 2;
  }
  cublasHandle_t h;
  CUBLAS_OK(cublasCreate(&h));
  const char *pedantic = getenv("CUBLAS_REF_PEDANTIC");
  bool ped = pedantic && strcmp(pedantic, "1") == 0;
  CUBLAS_OK(cublasSetMathMode(h, ped ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
  cudaEvent_t e0, e1;
  CUDA_OK(cudaEventCreate(&e0));
  CUDA_OK(cudaEventCreate(&e1));
  const float alpha = 1.0f, beta = 0.5f;
  int failures = 0;

  for (int a = 1; a < argc; a++) {
    std::string spec = argv[a];
    std::vector<long> d;
    std::string op = spec.substr(0, spec.find(':'));
    for (size_t p = spec.find(':'); p != std::string::npos; p = spec.find(':', p + 1))
      d.push_back(atol(spec.c_str() + p + 1));
    size_t need = (op == "gemm") ? 3 : 2;
    if (d.size() != need || op.empty()) {
      fprintf(stderr, "cublas-ref: bad operation '%s'\n", spec.c_str());
      failures++;
      continue;
    }
    std::vector<float *> bufs;
    double flops = 0;
    // the call, as a lambda over the buffers
    std::function<void()> call;
    if (op == "gemm") {
      int m = d[0], n = d[1], k = d[2];
      float *A = device_random((size_t)m * k, -1, 1, 1), *B = device_random((size_t)k * n, -1, 1, 2),
            *C = device_random((size_t)m * n, -1, 1, 3);
      bufs = {A, B, C};
      flops = 2.0 * m * n * k;
      call = [=] { CUBLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m)); };
    } else if (op == "gemv_n" || op == "gemv_t") {
      int m = d[0], n = d[1];  // row-major m x n = column-major n x m, leading dimension n
      float *A = device_random((size_t)m * n, -1, 1, 4), *x = device_random(std::max(m, n), -1, 1, 5),
            *y = device_random(std::max(m, n), -1, 1, 6);
      bufs = {A, x, y};
      flops = 2.0 * m * n;
      cublasOperation_t t = op == "gemv_n" ? CUBLAS_OP_T : CUBLAS_OP_N;
      call = [=] { CUBLAS_OK(cublasSgemv(h, t, n, m, &alpha, A, n, x, 1, &beta, y, 1)); };
    } else if (op == "syrk" || op == "syr2k") {
      int n = d[0], k = d[1];
      float *A = device_random((size_t)n * k, -1, 1, 7), *B = device_random((size_t)n * k, -1, 1, 8),
            *C = device_random((size_t)n * n, -1, 1, 9);
      bufs = {A, B, C};
      if (op == "syrk") {
        flops = (double)n * (n + 1) * k;
        call = [=] { CUBLAS_OK(cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &alpha, A, n, &beta, C, n)); };
      } else {
        flops = 2.0 * n * (n + 1) * k;
        call = [=] { CUBLAS_OK(cublasSsyr2k(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &alpha, A, n, B, n, &beta, C, n)); };
      }
    } else if (op == "trsm") {
      int m = d[0], n = d[1];
      float *L = device_lower(m), *B = device_random((size_t)m * n, -1, 1, 10);
      bufs = {L, B};
      flops = (double)m * m * n;
      call = [=] {
        CUBLAS_OK(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n,
                              &alpha, L, m, B, m));
      };
    } else {
      fprintf(stderr, "cublas-ref: unknown operation '%s'\n", op.c_str());
      failures++;
      continue;
    }
    for (int w = 0; w < 3; w++)
      call();
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> t(REPS);
    for (int r = 0; r < REPS; r++) {
      CUDA_OK(cudaEventRecord(e0));
      call();
      CUDA_OK(cudaEventRecord(e1));
      CUDA_OK(cudaEventSynchronize(e1));
      CUDA_OK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    std::sort(t.begin(), t.end());
    float med = t[REPS / 2];
    printf("{\"op\": \"%s\", \"ms\": %.5f, \"min_ms\": %.5f, \"reps\": %d, \"gflops\": %.1f, \"math_mode\": \"%s\"}\n",
           spec.c_str(), med, t[0], REPS, flops / (med * 1e6), ped ? "pedantic" : "default");
    fflush(stdout);
    for (float *b : bufs)
      cudaFree(b);
  }
  cublasDestroy(h);
  return failures ? 1 : 0;
}
