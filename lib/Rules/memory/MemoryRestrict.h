//===- MemoryRestrict.h - memory-restrict -----------------------*- C++ -*-===//
//
// Kernel pointer parameters without __restrict__: __restrict__ when every
// launch passes separate allocations.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYRESTRICT_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYRESTRICT_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryRestrict : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &K) override;
};

} // namespace cudal1

#endif
