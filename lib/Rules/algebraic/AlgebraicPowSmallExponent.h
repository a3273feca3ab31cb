//===- AlgebraicPowSmallExponent.h - algebraic-pow-small-exponent -*- C++
//-*-===//
//
// pow/powf with a small constant exponent that no shipped YAML rule rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICPOWSMALLEXPONENT_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_ALGEBRAICPOWSMALLEXPONENT_H

#include "../RuleCheck.h"

namespace cudal1 {

class AlgebraicPowSmallExponent : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkTranslationUnit() override;
};

} // namespace cudal1

#endif
