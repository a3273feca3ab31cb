// Capture sample: struct parameters passed by value that hold device
// pointers (two of them into one allocation) next to scalars, and a
// cooperative launch (cudaLaunchCooperativeKernel -> cuLaunchCooperativeKernel).
#include "check.h"

#include <vector>

struct Problem {
  const float *a;
  const float *b;
  float *c;
  int n;
  float alpha;
};

struct Span {
  float *data;
  size_t len;
};

__global__ void axpby(Problem p, float beta) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    p.c[i] = p.alpha * p.a[i] + beta * p.b[i];
}

__global__ void fill_span(Span s, float value, Span other) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < s.len)
    s.data[i] = value + other.data[i % other.len];
}

// Launched cooperatively; grid-stride, no grid-wide barrier needed.
__global__ void coop_square(Span s) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < s.len;
       i += size_t(gridDim.x) * blockDim.x)
    s.data[i] = s.data[i] * s.data[i];
}

int main() {
  const int n = 1 << 15;
  float *ab = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&ab, 2 * n * sizeof(float)));
  CHECK(cudaMalloc(&c, (n + 64) * sizeof(float)));
  std::vector<float> ha(n), hb(n);
  for (int i = 0; i < n; ++i) {
    ha[i] = float(i % 13) - 6.0f;
    hb[i] = float(i % 29) * 0.5f;
  }
  CHECK(cudaMemcpy(ab, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ab + n, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(c, 0, (n + 64) * sizeof(float)));

  Problem p{ab, ab + n, c + 64, n, 3.0f};
  axpby<<<(n + 255) / 256, 256>>>(p, -2.0f);
  CHECK_LAUNCH();

  const size_t len = 4096;
  Span s{c, len}, other{ab + n, 100};
  fill_span<<<(len + 127) / 128, 128>>>(s, 0.5f, other);
  CHECK_LAUNCH();

  int coop = 0, dev = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  Span sq{c + 64, 1024};
  if (coop) {
    void *args[] = {&sq};
    CHECK(cudaLaunchCooperativeKernel((void *)coop_square, dim3(4), dim3(128), args, 0, 0));
  } else {
    coop_square<<<4, 128>>>(sq);
  }
  CHECK_LAUNCH();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> gc(n + 64);
  CHECK(cudaMemcpy(gc.data(), c, (n + 64) * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    double v = 3.0 * ha[i] - 2.0 * hb[i]; // axpby
    if (64 + size_t(i) < len)
      v = 0.5 + hb[(64 + i) % 100]; // fill_span
    if (i < 1024)
      v = v * v; // coop_square
    bad += !close_to(gc[64 + i], v);
  }
  for (int i = 0; i < 64; ++i)
    bad += !close_to(gc[i], 0.5 + hb[i % 100]);
  CHECK(cudaFree(ab));
  CHECK(cudaFree(c));
  return finish("struct_params", bad);
}
