#pragma once
template <typename F> __global__ void apply(float *v, int n, F f) { int i = threadIdx.x; if (i < n) v[i] = f(v[i]); }
