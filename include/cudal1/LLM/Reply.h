//===- Reply.h - what a model's reply holds ---------------------*- C++ -*-===//
//
// The text side of a reply (docs/llm.md, "The reply"): the one fenced code
// block with the complete kernel (and new device helpers), the analysis and
// plan before it, and an optional launch change. Checking the code itself
// (Clang: device code, same name and parameters) is ReplyCheck.h's job.
// Plain text; the reply is never executed, only ever compiled as device code.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_REPLY_H
#define CUDAL1_LLM_REPLY_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

struct ParsedReply {
  std::string Code;     ///< the code block's text
  std::string Analysis; ///< everything outside the code block
  /// LAUNCH: grid=<expr>; block=<expr> (either may be left out), expressions
  /// over the original's `grid` and `block` (dim3 values).
  std::optional<std::string> Grid, Block;
  /// "grid=<expr>; block=<expr>" as normalised ("" = no launch change).
  std::string launchText() const;
};

/// Splits \p Content. False with the precise problem in \p Problem (sent
/// back to the model once): no code block, several, one never closed, an
/// empty one, a LAUNCH line that does not parse.
bool parseReply(llvm::StringRef Content, ParsedReply &Out,
                std::string &Problem);

/// \p Code without comments, with white space only where it separates two
/// words: two variants that differ only in layout and comments are the same.
std::string normalizeSource(llvm::StringRef Code);

/// Takes the #include lines out of \p Code into \p Includes ("<cuda_fp16.h>")
/// leaving \p Rest (same line count: each include line becomes empty).
/// False with the problem when one names a header that is not a CUDA device
/// header NVRTC provides (docs/llm.md lists them).
bool takeIncludes(llvm::StringRef Code, std::vector<std::string> &Includes,
                  std::string &Rest, std::string &Problem);

/// Checks the PTX of an inline asm statement: only the documented subset
/// (data movement, arithmetic, conversion, shuffle, vote, barrier, fence,
/// atomic, matrix and async-copy instructions, and .reg declarations).
/// False with the first instruction outside it in \p Problem.
bool checkInlinePtx(llvm::StringRef Asm, std::string &Problem);

} // namespace cudal1

#endif
