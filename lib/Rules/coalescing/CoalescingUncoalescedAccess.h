//===- CoalescingUncoalescedAccess.h - coalescing-uncoalesced-access -*- C++
//-*-===//
//
// A global access indexed with the thread index in the slow (row)
// dimension.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGUNCOALESCEDACCESS_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGUNCOALESCEDACCESS_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingUncoalescedAccess : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
