//===- MemorySharedBankConflict.h - memory-shared-bank-conflict -*- C++ -*-===//
//
// A shared-memory access whose threads collide in the same bank.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYSHAREDBANKCONFLICT_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYSHAREDBANKCONFLICT_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemorySharedBankConflict : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
