//===- AlgebraicModule.cpp - the algebraic-* rules ------------------------===//
#include "AlgebraicDivisionConstant.h"
#include "AlgebraicFloatLiteral.h"
#include "AlgebraicFloatMath.h"
#include "AlgebraicInvariantFactor.h"
#include "AlgebraicInvariantTable.h"
#include "AlgebraicPow2Divmod.h"
#include "AlgebraicPowSmallExponent.h"
#include "AlgebraicReciprocalHoist.h"
#include "AlgebraicRepeatedSubexpr.h"
#include "AlgebraicWrapModulo.h"

namespace cudal1 {
static RuleModule<AlgebraicDivisionConstant, AlgebraicFloatLiteral,
                  AlgebraicFloatMath, AlgebraicInvariantFactor,
                  AlgebraicInvariantTable, AlgebraicPow2Divmod,
                  AlgebraicPowSmallExponent, AlgebraicReciprocalHoist,
                  AlgebraicRepeatedSubexpr, AlgebraicWrapModulo>
    AlgebraicRules;
} // namespace cudal1
