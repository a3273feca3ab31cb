//===- FuzzConfig.cpp - libFuzzer: the .cuda-l1.yaml loader ---------------===//
#include "cudal1/Analysis/Config.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  cudal1::AnalysisConfig C;
  std::string Error;
  if (!cudal1::parseConfig(Text, "/fuzz/.cuda-l1.yaml", C, Error) &&
      Error.empty())
    __builtin_trap(); // a refused configuration must say why
  return 0;
}
