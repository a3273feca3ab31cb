//===- UnrollingModule.cpp - the unrolling-* rules ------------------------===//
#include "UnrollingConstantTrip.h"
#include "UnrollingParamBound.h"

namespace cudal1 {
static RuleModule<UnrollingConstantTrip, UnrollingParamBound> UnrollingRules;
} // namespace cudal1
