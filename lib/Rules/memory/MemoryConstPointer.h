//===- MemoryConstPointer.h - memory-const-pointer --------------*- C++ -*-===//
//
// A kernel pointer parameter only read through: declare the pointee const.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYCONSTPOINTER_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYCONSTPOINTER_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryConstPointer : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &K) override;
};

} // namespace cudal1

#endif
