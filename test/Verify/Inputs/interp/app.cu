// Values only known by running host code: helpers with loops and branches,
// and loops before the launch that adjust a size.
#include <cstdlib>
#define WARP 32

__global__ void fill(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = 1.0f;
}

__global__ void mark(float *a, int n) { a[n] = 2.0f; }
__global__ void spin(float *a, int n) { a[n] = 3.0f; }

// The largest power of two dividing n (0 for 0).
int largest_pow2_divisor(int n) {
  if (n == 0)
    return 0;
  int d = 1;
  while ((n & d) == 0)
    d <<= 1;
  return d;
}

template <typename T> T next_pow2(T v) {
  v--;
  for (unsigned s = 1; s < 8 * sizeof(T); s <<= 1)
    v |= v >> s;
  return v + 1;
}

bool is_pow2(unsigned v) { return v && !(v & (v - 1)); }

int main(int argc, char **argv) {
  int cells = 1000;
  const int groups = 24;
  int nodes = cells * 2;
  if (nodes < 1024 * groups)
    nodes = 1024 * groups;
  // Round up to a whole number of warps, then one less.
  while ((nodes & (WARP - 1)) != 0)
    nodes++;
  nodes--;
  int threads = largest_pow2_divisor(96);
  float *a;
  cudaMalloc(&a, sizeof(float) * (nodes + 1));
  fill<<<(nodes + threads) / threads, threads>>>(a, nodes);

  unsigned len = 1000;
  if (!is_pow2(len))
    len = next_pow2<unsigned>(len);
  long total = 1;
  for (int d = 0; d < 3; d++)
    total *= 4;
  fill<<<1, 256>>>(a, (int)len + (int)total);

  // A bound from the command line (known with --program-args).
  int m = 7;
  while (m < atoi(argv[1]))
    m *= 2;
  fill<<<1, 256>>>(a, m);

  // Not run: a loop that calls a library function, one that never ends.
  int r = 1;
  while (r < 100)
    r += rand();
  mark<<<1, 1>>>(a, r);
  int forever = 1;
  while (forever > 0)
    forever = forever | 1;
  spin<<<1, 1>>>(a, forever);
  // Library math of known values.
  double theta = 0.5;
  fill<<<1, 256>>>(a, (int)(1000 * cos(theta) + hypotf(3.0f, 4.0f) + log10(100.0)));
  return 0;
}

// Not run: a helper that modifies a global (its change would be lost).
int last_seen = 0;
int bump(int x) {
  last_seen = x;
  return x + 1;
}
__global__ void late(float *a, int n) { a[n] = 4.0f; }
void launch_late() {
  float *a;
  cudaMalloc(&a, 64 * sizeof(float));
  late<<<1, 1>>>(a, bump(5));
}

// Library math inside a helper that is run: floor(sum of sqrt(i), i < 10).
int root_sum(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sqrt((double)i);
  return (int)floor(s);
}
__global__ void sums(float *a, int n) { a[n] = 5.0f; }
void launch_sums() {
  float *a;
  cudaMalloc(&a, 64 * sizeof(float));
  sums<<<1, 1>>>(a, root_sum(10));
}
