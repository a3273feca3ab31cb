// algebraic-float-literal: a double literal in float arithmetic becomes the float literal (0.5f).
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix --allow-unverified %t/t.cu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{t.cu:[0-9]+:[0-9]+: warning}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// Default (no GPU, no --allow-unverified): only the bitwise fixes.
// RUN: cp %s %t/b.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --fix %t/b.cu 2>/dev/null
// RUN: grep -v '// CHECK' %t/b.cu | FileCheck --check-prefix=BITWISE %s
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}
// RUN: %if nvrtc %{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}
// NVRTC: compiled, 0 failed
// The fixes offered, with their exactness (JSON).
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-float-literal' --format=json %s | FileCheck --check-prefix=FIX %s
// All the algebraic rules in one --fix run leave no double arithmetic in a
// float statement (the pow rule and this rule together), and compile.
// RUN: cp %s %t/all.cu
// RUN: %cuda-l1-rewrite --rules='-*,algebraic-*' --fix --allow-unverified %t/all.cu 2>&1 | FileCheck --check-prefix=ALL-MESSAGES %s
// RUN: grep -v '// CHECK\|// ALL' %t/all.cu | FileCheck --check-prefix=ALL %s
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t/all.cu -o %t/all.o %}
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  // Negative: one operation with a literal that is a float value, its
  // result straight back to float (or a float comparison with such a
  // literal): the float form is bitwise the same, and nvcc already computes
  // it in float (LLVM narrows it; PTX and cubin identical with the `f`).
  out[i] = x * 0.5;
  // CHECK-FIXES: out[i] = x * 0.5;
  // BITWISE: out[i] = x * 0.5;
  out[i] += x * 0.1;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] += x * 0.1f;
  // BITWISE: out[i] += x * 0.1;
  out[i] = 2.0 * x + 1.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '2.0' {{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:22: warning: double literal '1.0' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[i] = 2.0f * x + 1.0f;
  x *= 0.25;
  // CHECK-FIXES: x *= 0.25;
  if (x < 0.5)
    // CHECK-FIXES: if (x < 0.5)
    x = 0.0f;
  out[i] = sqrt((double)x + 1.0f);
  out[i] = x;
  // Negative: double data stays double; float literals are fine.
  double d = x * 0.1;
  out[i] = (float)d + x * 2.0f;
  // CHECK-FIXES: double d = x * 0.1;
}

// Taken over from algebraic-double-literal: reported without a fix.
__global__ void no_fix(const float *in, int *out, double *dout) {
  float x = in[threadIdx.x];
  out[0] = x * 0.5;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:16: warning: double literal '0.5' promotes float arithmetic to double{{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: note: no fix: the double result is used as a double, not converted back to float{{.*}}
  // A comparison with a literal that is no float value: the same
  // comparison in float takes the nearest float on its side (bitwise; seen
  // in third-party code: `rr >= 0.99` in a polymer model's bond loop).
  if (x < 0.1)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:11: warning: double literal '0.1' makes this float comparison double {{.*}}; '<= 0.099999994f', the nearest float below it, gives the same result for every float value [algebraic-float-literal]
    // CHECK-FIXES: if (x <= 0.099999994f)
    // BITWISE: if (x <= 0.099999994f)
    out[1] = 1;
  if (0.99 <= x)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:7: warning: double literal '0.99' makes this float comparison double {{.*}}; '0.99000001f <=', the nearest float above it{{.*}} [algebraic-float-literal]
    // CHECK-FIXES: if (0.99000001f <= x)
    out[2] = 1;
  if (x > -0.7)
    // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '-0.7' makes this float comparison double {{.*}}; '>= -0.699999988f'{{.*}} [algebraic-float-literal]
    // CHECK-FIXES: if (x >= -0.699999988f)
    out[3] = 1;
  // Negative: a constant that is a float value, with a sign or as an
  // expression: nvcc compares in float already (no next float: x >= -0.5
  // must keep -0.5).
  if (x >= -0.5 || x <= 1.0 / 4.0)
    out[5] = 1;
  // CHECK-FIXES: if (x >= -0.5 || x <= 1.0 / 4.0)
  // Negative: == with a literal no float equals is never true; left alone.
  if (x == 0.1)
    out[4] = 1;
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:12: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: note: no fix: the literal is not exactly representable as a float, and no float bound gives the same comparison here{{.*}}
  // Negative: double data the code asks for.
  dout[0] = x * 0.5;
  dout[1] += x * 0.25;
  // CHECK-FIXES: out[0] = x * 0.5;
  // CHECK-FIXES: dout[1] += x * 0.25;
}

// Macro body: no fix.
#define TENTH(v) ((v) * 0.1)
__global__ void macro(float *out, float a) {
  out[0] = TENTH(a);
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = TENTH(a);
}

// Template: the literal in the template's own text, once.
template <typename T> __global__ void tmpl(float *out, T v) {
  out[0] = out[1] * 0.1;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:21: warning: double literal '0.1' {{.*}} [algebraic-float-literal]
  // CHECK-FIXES: out[0] = out[1] * 0.1f;
}
template __global__ void tmpl<int>(float *, int);

// Host code is not changed.
float host_side(float x) { return x * 0.5; }
// CHECK-FIXES: float host_side(float x) { return x * 0.5; }

// Every double literal and double constant subexpression of a float
// statement becomes float, not just the first: the constant 1.0 / 3.0 is
// one finding whose fix changes both literals (computed in float: ulp).
__global__ void all_float(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = 0.5 * powf(v[i], 2.0f) + 1.0 / 3.0;
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:12: warning: double literal '0.5' {{.*}} [algebraic-float-literal]
  // CHECK-MESSAGES: t.cu:[[@LINE-2]]:37: warning: double constant '1.0 / 3.0' promotes float arithmetic to double {{.*}}; use '1.0f / 3.0f' [algebraic-float-literal]
  // CHECK-MESSAGES: note: the constant is then computed in float rather than double
  // CHECK-FIXES: v[i] = 0.5f * powf(v[i], 2.0f) + 1.0f / 3.0f;
  // BITWISE: v[i] = 0.5 * powf(v[i], 2.0f) + 1.0 / 3.0;
  // FIX: "description": "use the float constant 1.0f / 3.0f"
  // FIX: "exactness": "ulp"
  // ALL-MESSAGES-DAG: powf(v[i], 2.0f) {{.*}} [algebraic-powf-square]
  // ALL-MESSAGES-DAG: '1.0 / 3.0' {{.*}} [algebraic-float-literal]
  // The pow rule's product keeps its parentheses: 0.5 * (x * x), not the
  // reassociated 0.5 * x * x.
  // ALL: v[i] = 0.5f * ((v[i]) * (v[i])) + 1.0f / 3.0f;
}

// A negated constant with an integer operand, in a compound assignment.
__global__ void neg_const(float *v) {
  v[threadIdx.x] *= -(0.5 + 2) * v[0];
  // CHECK-MESSAGES: t.cu:[[@LINE-1]]:23: warning: double constant '-(0.5 + 2)' {{.*}}; use '-(0.5f + 2)' [algebraic-float-literal]
  // CHECK-FIXES: v[threadIdx.x] *= -(0.5f + 2) * v[0];
}

// Negative: a constant that is only converted to float (folded at compile
// time, no double arithmetic at run time), and double data.
__global__ void const_only(float *v, double *d) {
  v[0] = 1.0 / 3.0;
  d[0] = d[1] * (1.0 / 3.0);
  // CHECK-FIXES: v[0] = 1.0 / 3.0;
  // CHECK-FIXES: d[0] = d[1] * (1.0 / 3.0);
}

// Negative: literals in a dependent initialiser of a host template (a
// ParenListExpr has no type until instantiation; the rule crashed on it
// in HeCBench's bincount).
template <typename T> struct Dist {
  Dist(T m, T s) : m(m), s(s) {}
  T m, s;
};
template <typename T> T sample_mean() {
  Dist<T> d(5.0, 2.0);
  return d.m;
}
