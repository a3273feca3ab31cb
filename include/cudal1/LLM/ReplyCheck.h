//===- ReplyCheck.h - is a reply's code the kernel, as device code? -*- C++ -*-===//
//
// The code block of a reply replaces the kernel's definition in the kernel's
// extracted context (lib/Extract) and is parsed there with Clang, as CUDA
// device code, in memory (docs/llm.md, "What a reply may contain"):
//   - only CUDA device headers may be included (they move to the top);
//   - it must define the kernel, with the same name, template parameters and
//     parameter list (names may change; const and __restrict__ may be added);
//   - every function it defines is device code (__device__, or constexpr),
//     and it defines no other kernel, no host variable, no file-scope asm;
//   - no launches or device-runtime calls from the kernel (work it starts
//     would run outside the timed kernel: CUDA-L1's side-stream cheat);
//   - inline asm only in the documented PTX subset (checkInlinePtx).
// A contract problem is sent back to the model once (a re-ask); a reply
// that does not compile is a compile failure, with Clang's errors located
// by the line of the reply's code.
//
// The code is only ever parsed and compiled, never run on the host.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_REPLYCHECK_H
#define CUDAL1_LLM_REPLYCHECK_H

#include "cudal1/Extract/Extract.h"
#include "cudal1/Frontend/CompileFlags.h"
#include "cudal1/Model/KernelInfo.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

struct ReplyCheckResult {
  enum StateT {
    Ok,
    Contract, ///< not the kernel, host code, a header, asm: re-ask
    Compile,  ///< Clang's errors
  } State = Ok;
  std::string Problem; ///< one sentence
  std::string Detail;  ///< Clang's errors ("line 3 of your code: ...")
  /// The code without its #include lines: what replaces the definition.
  std::string Definition;
  /// Headers it includes that the context does not ("<cuda_fp16.h>").
  std::vector<std::string> NewIncludes;
  /// The self-contained candidate source (for NVRTC).
  std::string CandidateSource;
};

class ReplyChecker {
public:
  /// \p K: the kernel as extracted; \p PO: how the tool parses CUDA (CUDA
  /// path, arch, resource directory).
  ReplyChecker(const ExtractedKernel &K, ParseOptions PO);
  ~ReplyChecker();

  /// Parses the original once; false with the problem (the extracted kernel
  /// does not parse on its own, or the kernel is not found in it).
  bool ready(std::string &Why);
  /// Checks \p Code, a reply's code block.
  ReplyCheckResult check(llvm::StringRef Code);

private:
  const ExtractedKernel &K;
  ParseOptions PO;
  std::optional<KernelInfo> Original;
};

} // namespace cudal1

#endif
