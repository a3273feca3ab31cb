// algebraic-powf-square: YAML rule (rewrite-rules/algebraic): pow/powf(x, 2) becomes x * x.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Without --allow-unverified the (ulp) fixes are not applied.
// RUN: cp %s %t/u.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-powf-square' --fix %t/u.cu 2>&1 | FileCheck --check-prefix=UNVERIFIED %s
// RUN: diff %s %t/u.cu
// One note for the rule's fixes, at the first, with the others' places:
// UNVERIFIED: u.cu:29:12: [algebraic-powf-square] fix not applied: its exactness is 'ulp', not bitwise; needs --verify=run or --allow-unverified (nor the rule's 3 other fixes at 32:14, 55:3, 64:12)
// UNVERIFIED-NOT: fix not applied
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void powers(const float *in, float *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  out[i] = powf(x, 2.0f);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: powf(x, 2.0f) takes the general exp/log path {{.*}}; (x) * (x) is one multiply [algebraic-powf-square]
  // CHECK-FIXES: out[i] = (x) * (x);
  dout[i] += pow((double)x, 2);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:14: warning: pow((double)x, 2) takes the general exp/log path {{.*}} [algebraic-powf-square]
  // CHECK-FIXES: dout[i] += ((double)x) * ((double)x);
  // Negative: a constant base, which the compiler folds (seen in
  // third-party code: a macro `kappa` holding pow(M_PI, 2.0)).
  dout[i] *= pow(3.14159265358979, 2.0) / 3.0;
  // CHECK-FIXES: dout[i] *= pow(3.14159265358979, 2.0) / 3.0;
  // Negative: other exponents, side effects in the base.
  out[i] += powf(x, 2.5f);
  int j = i;
  out[i] += powf(in[j++], 2.0f);
  // CHECK-FIXES: out[i] += powf(x, 2.5f);
  // CHECK-FIXES: out[i] += powf(in[j++], 2.0f);
}

// Macro body: the finding stays, without a fix.
#define SQUARE(v) powf((v), 2.0f)
// A macro that uses its argument once: the argument's text may change.
#define STORE(dst, val) (dst) = (val)
__global__ void macros(float *out, float a) {
  out[0] = SQUARE(a);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: {{.*}} [algebraic-powf-square]
  // CHECK-FIXES: out[0] = SQUARE(a);
  STORE(out[1], powf(a, 2.0f));
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:3: warning: {{.*}} [algebraic-powf-square]
  // CHECK-FIXES: STORE(out[1], (a) * (a));
}

// Templates: a dependent base is left alone; a non-dependent one is fixed
// in the template's own text.
template <typename T, int N> __global__ void tmpl(const T *in, float *out) {
  out[0] = pow(in[0], 2);
  out[1] = powf(out[2], 2.0f) * N;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: {{.*}} [algebraic-powf-square]
  // CHECK-FIXES: out[0] = pow(in[0], 2);
  // CHECK-FIXES: out[1] = ((out[2]) * (out[2])) * N;
}
template __global__ void tmpl<float, 4>(const float *, float *);
template __global__ void tmpl<double, 2>(const double *, float *);

// Host code is not rewritten.
float host_side(float x) { return powf(x, 2.0f); }
// CHECK-FIXES: float host_side(float x) { return powf(x, 2.0f); }

