// Host-only code (parsed as C++): builds the values and calls the GPU
// histogram of filters.cu.
#include "params.h"
#include <vector>

void run_host_part() {
  const int count = 1 << 16;
  int bins = 64;
  std::vector<unsigned> values(count);
  for (int i = 0; i < count; ++i)
    values[i] = unsigned(i * 7);
  histogram_gpu(values.data(), count, bins);
}
