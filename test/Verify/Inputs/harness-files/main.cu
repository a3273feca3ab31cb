// The program's main: allocates the images and calls the wrappers of
// filters.cu with constant sizes (a macro of params.h, a local).
#include "params.h"
#include <cstdlib>
#include <cuda_runtime.h>

void run_host_part(); // host.cpp

int main(int argc, char **argv) {
  const int pixels = IMG_W * IMG_H;
  real_t *d_a, *d_b, *d_sig;
  cudaMalloc(&d_a, pixels * sizeof(real_t));
  cudaMalloc(&d_b, pixels * sizeof(real_t));
  cudaMalloc(&d_sig, SIGNAL_LEN * sizeof(real_t));
  cudaMemset(d_a, 0, pixels * sizeof(real_t));
  blur_rows(d_b, d_a, IMG_W, IMG_H, 0.5f);
  // A second call with another size: another set of values.
  blur_rows(d_a, d_b, IMG_W / 2, IMG_H / 2, 0.25f);
  smooth_signal(d_sig, SIGNAL_LEN, 3);
  run_host_part();
  int n = std::atoi(argv[1]);
  real_t *d_v;
  cudaMalloc(&d_v, n * sizeof(real_t));
  normalise(d_v, n);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_sig);
  cudaFree(d_v);
  return 0;
}
