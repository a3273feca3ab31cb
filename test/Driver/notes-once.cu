// A note a rule adds once per pointer it proves apart (the same text at the
// same place for each written pointer) is printed once. Seen in third-party
// code: a row-walking dot product with a restrict input and two outputs.
// RUN: %cuda-l1-rewrite --rules='-*,coalescing-smem-staging' %s 2>&1 | FileCheck %s
// CHECK: warning: each thread walks its own row{{.*}} [coalescing-smem-staging]
// CHECK: note: the row loop
// CHECK: note: no aliasing: 'key' is __restrict__
// CHECK-NOT: note: no aliasing: 'key' is __restrict__
// CHECK: 1 warning and 0 errors from cuda-l1 rules.

__global__ void dot(const float *__restrict__ key,
                    const float *__restrict__ query, float *dot_product,
                    float *exp_sum, const int n, const int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = 0;
    for (int j = 0; j < d; j++)
      sum += key[i * d + j] * query[j];
    dot_product[i] = sum;
    atomicAdd(exp_sum, __expf(sum));
  }
}
void run(const float *k, const float *q, float *dp, float *es, int n, int d) {
  dot<<<(n + 255) / 256, 256>>>(k, q, dp, es, n, d);
}
