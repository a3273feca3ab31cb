//===- FuzzLspMessages.cpp - libFuzzer: the language server's input ------===//
// Any bytes as the server's standard input (framed or not): the server
// answers, reports errors and returns at the end of the input; never a
// crash or a hang. Analyses run on the documents it is sent (no rules file,
// no compilation database: /fuzz does not exist).
#include "cudal1/Config.h"
#include "cudal1/LSP/Server.h"
#include "cudal1/LSP/Transport.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

using namespace cudal1;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  std::FILE *In = fmemopen(const_cast<uint8_t *>(Data), Size, "rb");
  if (!In)
    return 0;
  std::string Sent;
  llvm::raw_string_ostream OS(Sent);
  lsp::MessageWriter Out(OS);
  lsp::ServerOptions O;
  O.DebounceMs = 0;
  O.MaxMessageBytes = 1 << 20;
  O.Base.CudaPath = CUDAL1_DEFAULT_CUDA_PATH;
  O.Base.ResourceDir = CUDAL1_CLANG_RESOURCE_DIR;
  {
    lsp::Server S(O, Out);
    lsp::MessageReader R(In, O.MaxMessageBytes);
    S.run(R);
  }
  std::fclose(In);
  return 0;
}
