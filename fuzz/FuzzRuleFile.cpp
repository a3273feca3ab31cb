//===- FuzzRuleFile.cpp - libFuzzer: the YAML rule-file loader ------------===//
// Any bytes as a rule file: a rule or located errors, never a crash.
#include "cudal1/Rules/YamlRule.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  std::vector<cudal1::RuleFileDiag> Diags;
  auto Rule = cudal1::parseYamlRule("fuzz.yaml", Text, Diags);
  if (!Rule && Diags.empty())
    __builtin_trap(); // a refused rule must say why
  return 0;
}
