// RUN: %cuda-l1-rewrite --list-kernels %s | FileCheck %s
// RUN: %cuda-l1-rewrite --list-kernels --format=json %s | FileCheck --check-prefix=JSON %s
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

#define DEFINE_FILL_KERNEL(NAME, TYPE)                                         \
  __global__ void NAME(TYPE *p, TYPE v, int n) {                               \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;                 \
         i += blockDim.x * gridDim.x)                                          \
      p[i] = v;                                                                \
  }

DEFINE_FILL_KERNEL(fill_float, float)
DEFINE_FILL_KERNEL(fill_half, __half)

struct Saxpy {
  float a;
  __device__ float operator()(float x, float y) const { return a * x + y; }
};

template <typename Op>
__global__ void binary_map(float *out, const float *x, const float *y, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = op(x[i], y[i]);
}

static __global__ void warp_sum(const float *in, float *out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  float v = in[threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += warp.shfl_down(v, o);
  if (warp.thread_rank() == 0)
    atomicAdd(out, v);
}

__global__ void declared_only(float *p); // defined elsewhere: not listed

#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)

class Runner {
public:
  void run(float *p, int n) {
    fill_float<<<kBlocks, 128>>>(p, 1.0f, n);
  }
  static constexpr int kBlocks = 80;
};

void host(float *a, float *b, __half *h, int n) {
  const int threads = 512;
  LAUNCH(fill_float, n / threads, threads, a, 0.0f, n);
  fill_half<<<n / 256, 256>>>(h, __float2half(1.0f), n);
  binary_map<<<(1 << 20) / 256, 256>>>(a, a, b, n, Saxpy{2.0f});
  auto go = [&](cudaStream_t s) { warp_sum<<<1, 32, 0, s>>>(a, b); };
  go(0);
  cudaLaunchKernel(warp_sum, dim3(1), dim3(32), nullptr, 0, 0);
  Runner().run(a, n);
}

// CHECK: 4 kernels, 6 launch sites
// CHECK-LABEL: kernel fill_float
// CHECK-NEXT: at {{.*}}launch-forms.cu:16:1
// CHECK-NEXT: mangled: _Z10fill_floatPffi
// CHECK-LABEL: kernel fill_half
// CHECK: #1 __half v  [2 bytes, align 2]
// CHECK-LABEL: kernel binary_map (template <typename Op>)
// CHECK: binary_map<Saxpy>  [_Z10binary_mapI5SaxpyEvPfPKfS3_iT_]
// CHECK: device functions:
// CHECK-NEXT: Saxpy::operator()
// CHECK-LABEL: kernel warp_sum
// CHECK-NEXT: at {{.*}}launch-forms.cu:31:1
// CHECK: attributes: static
// CHECK-NOT: kernel declared_only
// CHECK-LABEL: launch sites:
// CHECK-NEXT: launch-forms.cu:47:5: fill_float via chevron in Runner::run()
// CHECK-NEXT: grid: kBlocks = 80
// CHECK-NEXT: block: 128
// CHECK-NEXT: launch-forms.cu:54:3: fill_float via chevron in host()
// CHECK-NEXT: grid: n / threads (not constant)
// CHECK-NEXT: block: threads = 512
// CHECK-NEXT: launch-forms.cu:55:3: fill_half via chevron in host()
// CHECK: launch-forms.cu:56:3: binary_map <Saxpy> via chevron in host()
// CHECK-NEXT: grid: (1 << 20) / 256 = 4096
// CHECK-NEXT: block: 256
// CHECK-NEXT: launch-forms.cu:57:35: warp_sum via chevron in host()
// CHECK-NEXT: grid: 1
// CHECK-NEXT: block: 32
// CHECK-NEXT: shared memory: 0 bytes
// CHECK-NEXT: stream: s
// CHECK-NEXT: launch-forms.cu:59:3: warp_sum via cudaLaunchKernel in host()
// CHECK-NEXT: grid: dim3(1) = 1
// CHECK-NEXT: block: dim3(32) = 32

// JSON: "static": true
// JSON: "form": "cudaLaunchKernel"
