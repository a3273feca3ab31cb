//===- FuzzHarnessSpec.cpp - libFuzzer: the harness spec parser -----------===//
// Any bytes as a harness spec for a kernel with a buffer, a const buffer and
// two scalars: a harness or a located error, never a crash.
#include "cudal1/Verify/Harness.h"

#include <cstddef>
#include <cstdint>

using namespace cudal1;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::vector<ParamInfo> Params = {
      makeParam("out", "float *", "float", true, false, 8, 4),
      makeParam("in", "const float *", "float", true, true, 8, 4),
      makeParam("n", "int", "", false, false, 4, 4),
      makeParam("alpha", "float", "", false, false, 4, 4)};
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  ExprEnv Defines;
  Harness H;
  std::string Error;
  if (!parseHarnessSpec(Text, "fuzz.yaml", "k", Params, Defines, H, Error) &&
      Error.empty())
    __builtin_trap(); // a refused spec must say why
  return 0;
}
