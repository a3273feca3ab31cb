// What is copied with a kernel, and what is not.
// RUN: rm -rf %t && %cuda-l1-rewrite --extract=ns::inner::k -o %t %s | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t/ns__inner__k.cu
// RUN: FileCheck %s --input-file=%t/ns__inner__k.cu --check-prefix=NOT
// RUN: FileCheck %s --input-file=%t/ns__inner__k.json --check-prefix=JSON
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <vector>

#define UNUSED_MACRO 17
#define BLOCK 128
#define SQR(x) ((x) * (x))
#define NORM2(a, b) (SQR(a) + SQR(b))
#define AT(p, i) (p)[(i)]

__constant__ float c_weights[BLOCK];
__constant__ float c_unused[4];
__device__ int d_hits;
constexpr float kGain = 1.5f;
const int kUnusedConst = 3;

struct Pair {
  float a, b;
  __device__ float norm2() const { return NORM2(a, b); }
  void host_report(std::vector<float> &out) const { out.push_back(a); }
};

enum Mode { Fast, Exact };

__device__ float helper_leaf(float x) { return x * kGain; }
__device__ float helper_mid(float x) { return helper_leaf(x) + 1.0f; }
__device__ float helper_unused(float x) { return x; }

void host_only(std::vector<float> &v) { v.clear(); }

namespace ns {
namespace inner {
__global__ void k(const Pair *in, __half *out, int n, Mode m) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = AT(in, i).norm2() * c_weights[threadIdx.x];
  tile[threadIdx.x] = m == Fast ? v : helper_mid(v);
  atomicAdd(&d_hits, 1);
  out[i] = __float2half(tile[threadIdx.x]);
}
__global__ void other(float *x) { x[0] = helper_unused(1.0f); }
} // namespace inner
} // namespace ns

void launch(const Pair *p, __half *o, int n) {
  std::vector<float> v;
  host_only(v);
  ns::inner::k<<<1, BLOCK>>>(p, o, n, Fast);
}

// OUT: ns::inner::k -> {{.*}}ns__inner__k.cu
// OUT: extracted 1 of 1 kernel

// Pieces come in translation-unit order; each macro right before the first
// piece that uses it.
// CHECK: #include <cuda_fp16.h>
// CHECK: #define BLOCK 128
// CHECK: __constant__ float c_weights[BLOCK];
// CHECK: __device__ int d_hits;
// CHECK: constexpr float kGain = 1.5f;
// CHECK: #define SQR(x) ((x) * (x))
// CHECK-NEXT: #define NORM2(a, b) (SQR(a) + SQR(b))
// CHECK: struct Pair {
// CHECK:   __device__ float norm2() const { return NORM2(a, b); }
// CHECK-NEXT:   /* cuda-l1: host-only member omitted */
// CHECK-NEXT: };
// CHECK: enum Mode { Fast, Exact };
// CHECK: __device__ float helper_leaf(float x)
// CHECK: __device__ float helper_mid(float x)
// CHECK: #define AT(p, i) (p)[(i)]
// CHECK-NEXT: namespace ns {
// CHECK-NEXT: namespace inner {
// CHECK: __global__ void k(const Pair *in, __half *out, int n, Mode m) {
// CHECK: } // namespace inner
// CHECK-NEXT: } // namespace ns

// NOT-NOT: UNUSED_MACRO
// NOT-NOT: c_unused
// NOT-NOT: kUnusedConst
// NOT-NOT: helper_unused
// NOT-NOT: host_only
// NOT-NOT: host_report
// NOT-NOT: std::vector
// NOT-NOT: #include <vector>
// NOT-NOT: #include <cuda_runtime.h>
// NOT-NOT: void launch
// NOT-NOT: other(

// JSON: "kernel": "ns::inner::k"
// JSON: "name_expression": "ns::inner::k"
// JSON: "parameters": [
// JSON: "name": "in"
// JSON: "pointee_const": true
// JSON: "type": "const Pair *"
// JSON: "name": "m"
// JSON: "size": 4
// JSON: "pieces": [
// JSON: "what": "include <cuda_fp16.h>"
// JSON: "file": "{{.*}}closure.cu"
// JSON: "what": "macro BLOCK"
// JSON: "what": "constant memory c_weights"
// JSON: "what": "device variable d_hits"
// JSON: "what": "constexpr value kGain"
// JSON: "what": "struct Pair"
// JSON: "what": "enum Mode"
// JSON: "what": "device function helper_mid"
// JSON: "what": "kernel ns::inner::k"
// JSON: "problems": []
