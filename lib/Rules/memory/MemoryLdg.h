//===- MemoryLdg.h - memory-ldg ---------------------------------*- C++ -*-===//
//
// Read-only global loads that could use the read-only data path (__ldg).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYLDG_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYLDG_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryLdg : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &K) override;
};

} // namespace cudal1

#endif
