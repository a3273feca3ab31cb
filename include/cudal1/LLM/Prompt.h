//===- Prompt.h - the prompt, from editable template files ------*- C++ -*-===//
//
// The prompt is built from template files shipped with the tool
// (share/cuda-l1/prompts/, docs/llm.md "Prompt templates"), which users may
// copy and edit (--llm-prompts=<dir>, LLM: Prompts):
//   system.txt    the system message
//   user.txt      the request: kernel, context, GPU, findings, rule fixes,
//                 exemplars, failures, the reply format
//   exemplar.txt  one earlier variant with its measured speedup
//   failure.txt   one failure with its reason
//   reask.txt     the follow-up when a reply could not be used
// A template names values as {{name}}; a name the template may not use is
// an error naming the file, line and column. Lines starting with "%%" are
// comments, left out of the prompt.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_PROMPT_H
#define CUDAL1_LLM_PROMPT_H

#include "cudal1/LLM/Variant.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace cudal1 {

struct PromptTemplates {
  std::string Dir;
  struct File {
    std::string Path, Text;
  } System, User, Exemplar, Failure, Reask;
  /// Reads the five files of \p Dir; false with "<path>: <problem>".
  bool load(llvm::StringRef Dir, std::string &Error);
};

/// The folder of the shipped templates: <prefix>/share/cuda-l1/prompts
/// beside the executable, else the source tree's (for tests and builds).
std::string findPromptDir(const char *Argv0, void *MainAddr);

/// Replaces every {{name}} of \p Text by its value. Names not in \p Values
/// are an error: "<File>:<line>:<col>: unknown placeholder '{{x}}' (known:
/// ...)"; an unclosed "{{" too. "%%" comment lines are dropped.
bool renderTemplate(llvm::StringRef Text, llvm::StringRef File,
                    const std::map<std::string, std::string> &Values,
                    std::string &Out, std::string &Error);

/// What the prompt says about the kernel (texts made by the driver).
struct PromptFacts {
  std::string KernelName, File;
  std::string Kernel;  ///< the original definition
  std::string Context; ///< the extracted, self-contained source
  std::string Launch;  ///< grid, block and where it is launched
  std::string Gpu;     ///< name, arch, SMs, bandwidth, L2
  std::string Findings, RuleFixes, Exactness;
  unsigned Round = 1, Rounds = 1;
};

struct Prompt {
  std::string System, User;
};

/// The prompt of one round: \p Exemplars (slowest first) and \p Failures
/// rendered with exemplar.txt and failure.txt into user.txt.
bool buildPrompt(const PromptTemplates &T, const PromptFacts &F,
                 const std::vector<const Variant *> &Exemplars,
                 const std::vector<const Variant *> &Failures, Prompt &Out,
                 std::string &Error);

/// The follow-up asking again after \p Problem.
bool buildReask(const PromptTemplates &T, llvm::StringRef Problem,
                std::string &Out, std::string &Error);

} // namespace cudal1

#endif
