// Capture sample: template kernels (several instantiations, dynamic shared
// memory), built with --default-stream per-thread (launches arrive as
// cuLaunchKernel_ptsz) and also launched on a non-blocking stream.
#include "check.h"

#include <vector>

template <typename T, int BLOCK>
__global__ void block_sum(const T *in, T *out, int n) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T *s = reinterpret_cast<T *>(smem_raw);
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

template <typename T> __global__ void axpy(T a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

template <typename T, int BLOCK>
int run_sum(const char *what, cudaStream_t stream, int n) {
  std::vector<T> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = T(i % 9) - T(4);
  T *in = nullptr, *out = nullptr;
  int blocks = (n + BLOCK - 1) / BLOCK;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, blocks * sizeof(T)));
  CHECK(cudaMemcpyAsync(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream));
  block_sum<T, BLOCK><<<blocks, BLOCK, BLOCK * sizeof(T), stream>>>(in, out, n);
  CHECK_LAUNCH();
  std::vector<T> g(blocks);
  CHECK(cudaMemcpyAsync(g.data(), out, blocks * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < n; ++i)
      want += double(h[i]);
    bad += !close_to(double(g[b]), want);
  }
  if (bad)
    std::printf("block_sum<%s>: %d wrong\n", what, bad);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return bad;
}

template <typename T> int run_axpy(T a, int n) {
  std::vector<T> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = T(i % 11);
    hy[i] = T(i % 5) - T(2);
  }
  T *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(T)));
  CHECK(cudaMalloc(&y, n * sizeof(T)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  axpy<T><<<(n + 127) / 128, 128>>>(a, x, y, n); // per-thread default stream
  CHECK_LAUNCH();
  std::vector<T> g(n);
  CHECK(cudaMemcpy(g.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += !close_to(double(g[i]), double(a) * double(hx[i]) + double(hy[i]));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return bad;
}

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int bad = 0;
  bad += run_sum<float, 256>("float, 256", stream, 100000);
  bad += run_sum<int, 128>("int, 128", stream, 50000);
  bad += run_sum<double, 256>("double, 256", 0, 70000);
  bad += run_axpy<double>(0.5, 30000);
  bad += run_axpy<int>(3, 30000);
  CHECK(cudaStreamDestroy(stream));
  return finish("templates", bad);
}
