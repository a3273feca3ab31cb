//===- MemoryAtomicContention.h - memory-atomic-contention ------*- C++ -*-===//
//
// A global atomic to one address from every thread of a warp.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYATOMICCONTENTION_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYATOMICCONTENTION_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryAtomicContention : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
