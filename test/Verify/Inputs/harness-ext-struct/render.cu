#include "params.h"
#include <cuda_runtime.h>

__global__ void shade(float *out, Params p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = 0.f, a = 1.f;
    for (int o = 0; o < p.octaves; ++o) {
      v += a * __sinf(i * p.scale);
      a *= p.gain;
    }
    out[i] = v;
  }
}

__global__ void bands(float *out, int octaves, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (float)(i % octaves);
}

void Renderer::render(float *out, const Params p, int rows) {
  int n = rows * 1024;
  shade<<<(n + 255) / 256, 256>>>(out, p, n);
  bands<<<(n + 255) / 256, 256>>>(out, p.octaves, n);
}

void Renderer::render_changed(float *out, Params p, int rows) {
  p.octaves = p.octaves * 2;
  int n = rows * 1024;
  bands<<<(n + 255) / 256, 256>>>(out, p.octaves, n);
}

__global__ void fill(float *buf, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    buf[i] = v;
}

void clear_grid(float *buf, const Grid g) {
  int n = g.xdim * g.ydim;
  fill<<<(n + 127) / 128, 128>>>(buf, n, 0.f);
}
