// A kernel and the host wrapper that launches it; the stride is the
// wrapper's parameter, which only the calls in main.cu give.
#include "forces.h"

__global__ void apply_terms(const float *__restrict__ pot,
                            float *__restrict__ out, int n, int n_terms) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    float a = pot[t * n_terms + 0];
    float b = pot[t * n_terms + 1];
    float c = pot[t * n_terms + 2];
    float d = pot[t * n_terms + 3];
    out[t] = a * b - c * d;
  }
}

void compute_forces(const float *pot, float *out, int n, int n_terms) {
  apply_terms<<<(n + 255) / 256, 256>>>(pot, out, n, n_terms);
}

__global__ void pick(const float *__restrict__ rows, float *__restrict__ out,
                     int n, int width) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    out[t] = rows[t * width];
}

void pick_first(const float *rows, float *out, int n, int width) {
  pick<<<(n + 255) / 256, 256>>>(rows, out, n, width);
}
