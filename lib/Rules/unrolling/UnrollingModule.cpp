//===- UnrollingModule.cpp - the unrolling-* rules ------------------------===//
#include "UnrollingConstantTrip.h"
#include "UnrollingJam.h"
#include "UnrollingParamBound.h"

namespace cudal1 {
static RuleModule<UnrollingConstantTrip, UnrollingJam, UnrollingParamBound> UnrollingRules;
} // namespace cudal1
