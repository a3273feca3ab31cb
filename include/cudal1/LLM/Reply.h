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

} // namespace cudal1

#endif
