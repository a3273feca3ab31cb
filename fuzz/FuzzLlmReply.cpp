//===- FuzzLlmReply.cpp - libFuzzer: a model's reply, as text -------------===//
// Any bytes as a model's reply: split into analysis, code block and launch
// change (or refused with a problem to send back), the code normalised, its
// includes taken out, each inline asm string checked; never a crash.
#include "cudal1/LLM/Reply.h"

#include <cstddef>
#include <cstdint>

using namespace cudal1;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  ParsedReply R;
  std::string Problem;
  if (!parseReply(Text, R, Problem)) {
    if (Problem.empty())
      __builtin_trap(); // a refused reply must say why
    return 0;
  }
  (void)R.launchText();
  (void)normalizeSource(R.Code);
  std::vector<std::string> Includes;
  std::string Rest;
  if (!takeIncludes(R.Code, Includes, Rest, Problem) && Problem.empty())
    __builtin_trap();
  // Every quoted string of the code as an asm body.
  for (size_t At = R.Code.find('"'); At != std::string::npos;) {
    size_t End = R.Code.find('"', At + 1);
    if (End == std::string::npos)
      break;
    std::string P;
    (void)checkInlinePtx(llvm::StringRef(R.Code).slice(At + 1, End), P);
    At = R.Code.find('"', End + 1);
  }
  return 0;
}
