//===- FuzzCompileFlags.cpp - libFuzzer: the nvcc flag translator ---------===//
// One argument per line; the first is the compiler. The translation and the
// final clang argument vector are built; never a crash.
#include "cudal1/Frontend/CompileFlags.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

using namespace cudal1;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Argv;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Argv.push_back(Line.str());
    Text = Rest;
  }
  if (Argv.empty())
    return 0;
  // No response files from the fuzzer's folder: a directory that is not one.
  TranslatedCommand T = translateCompileCommand(Argv, "/nonexistent-fuzz-dir");
  ParseOptions O;
  O.CudaPath = "/usr/local/cuda";
  O.GpuArch = "sm_90";
  O.ResourceDir = "/nonexistent-resource-dir";
  (void)makeParseArgs(T.Args, "/fuzz/k.cu", O);
  return 0;
}
