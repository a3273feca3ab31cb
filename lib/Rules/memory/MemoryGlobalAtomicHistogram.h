//===- MemoryGlobalAtomicHistogram.h - memory-global-atomic-histogram -*- C++
//-*-===//
//
// Data-dependent global atomics that a shared-memory copy per block would
// absorb.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYGLOBALATOMICHISTOGRAM_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYGLOBALATOMICHISTOGRAM_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryGlobalAtomicHistogram : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
