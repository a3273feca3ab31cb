// black_scholes: European call and put prices for NOPT options (Black-Scholes
// formula, the cumulative normal by the Abramowitz-Stegun polynomial
// approximation 26.2.17), indexed by x only, REPS times.
//
// Check: call and put prices against the same formulas on the CPU in
// double; tolerance rtol 1e-4 + atol 1e-4 (prices up to ~70).
#include "../common/bench_common.h"

#ifndef NOPT
#define NOPT (8 * 1024 * 1024)
#endif
#ifndef REPS
#define REPS 10
#endif
#define RISKFREE 0.02f
#define VOLATILITY 0.30f

__device__ float cnd(float d) {
  const double A1 = 0.31938153;
  const double A2 = -0.356563782;
  const double A3 = 1.781477937;
  const double A4 = -1.821255978;
  const double A5 = 1.330274429;
  const double RSQRT2PI = 0.39894228040143267793994605993438;
  float K = 1.0 / (1.0 + 0.2316419 * fabs(d));
  float c = RSQRT2PI * exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0)
    c = 1.0 - c;
  return c;
}

__global__ void black_scholes_kernel(float *call, float *put, float *S, float *X, float *T,
                                     float R, float V, int nopt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nopt) {
    float sqrtT = sqrt(T[i]);
    float d1 = (log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float cndd1 = cnd(d1);
    float cndd2 = cnd(d2);
    float expRT = exp(-R * T[i]);
    call[i] = S[i] * cndd1 - X[i] * expRT * cndd2;
    put[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1);
  }
}

double cnd_cpu(double d) {
  double K = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double c = 0.39894228040143267793994605993438 * exp(-0.5 * d * d) *
             (K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))));
  return d > 0 ? 1.0 - c : c;
}

void black_scholes_cpu(int nopt, const float *S, const float *X, const float *T, double R,
                       double V, double *call, double *put) {
  for (int i = 0; i < nopt; i++) {
    double sqrtT = sqrt((double)T[i]);
    double d1 = (log((double)S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT);
    double d2 = d1 - V * sqrtT;
    double c1 = cnd_cpu(d1), c2 = cnd_cpu(d2), e = exp(-R * T[i]);
    call[i] = S[i] * c1 - X[i] * e * c2;
    put[i] = X[i] * e * (1.0 - c2) - S[i] * (1.0 - c1);
  }
}

void run_black_scholes(int nopt, float *S, float *X, float *T, float *call, float *put) {
  float *d_S, *d_X, *d_T, *d_call, *d_put;
  size_t bytes = sizeof(float) * nopt;
  CUDA_CHECK(cudaMalloc(&d_S, bytes));
  CUDA_CHECK(cudaMalloc(&d_X, bytes));
  CUDA_CHECK(cudaMalloc(&d_T, bytes));
  CUDA_CHECK(cudaMalloc(&d_call, bytes));
  CUDA_CHECK(cudaMalloc(&d_put, bytes));
  CUDA_CHECK(cudaMemcpy(d_S, S, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_X, X, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_T, T, bytes, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)nopt) / ((float)block.x)), 1);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    black_scholes_kernel<<<grid, block>>>(d_call, d_put, d_S, d_X, d_T, RISKFREE, VOLATILITY, nopt);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  printf("options per second: %.3g\n", (double)nopt * REPS / (ms * 1e-3));

  CUDA_CHECK(cudaMemcpy(call, d_call, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(put, d_put, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_S); cudaFree(d_X); cudaFree(d_T); cudaFree(d_call); cudaFree(d_put);
}

int main() {
  int nopt = NOPT;
  float *S = (float *)malloc(sizeof(float) * nopt);
  float *X = (float *)malloc(sizeof(float) * nopt);
  float *T = (float *)malloc(sizeof(float) * nopt);
  float *call = (float *)malloc(sizeof(float) * nopt);
  float *put = (float *)malloc(sizeof(float) * nopt);
  double *call_ref = (double *)malloc(sizeof(double) * nopt);
  double *put_ref = (double *)malloc(sizeof(double) * nopt);
  bench_srand(31);
  for (int i = 0; i < nopt; i++) {
    S[i] = bench_rand_float(5.0f, 30.0f);
    X[i] = bench_rand_float(1.0f, 100.0f);
    T[i] = bench_rand_float(0.25f, 10.0f);
  }

  double t0 = wall_time();
  black_scholes_cpu(nopt, S, X, T, RISKFREE, VOLATILITY, call_ref, put_ref);
  print_cpu_time(wall_time() - t0);

  run_black_scholes(nopt, S, X, T, call, put);

  long bad = check_close("call", call, call_ref, nopt, 1e-4, 1e-4);
  bad += check_close("put", put, put_ref, nopt, 1e-4, 1e-4);
  free(S); free(X); free(T); free(call); free(put); free(call_ref); free(put_ref);
  return finish(bad);
}
