// Bug: a wild store far outside any allocation (illegal address).
__global__ void transpose(const float *in, float *out, int n) {
  out[(size_t)1 << 40] = in[0];
}
