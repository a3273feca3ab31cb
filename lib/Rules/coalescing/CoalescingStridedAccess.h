//===- CoalescingStridedAccess.h - coalescing-strided-access ----*- C++ -*-===//
//
// A global access whose consecutive threads are a constant stride apart.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGSTRIDEDACCESS_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGSTRIDEDACCESS_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingStridedAccess : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
