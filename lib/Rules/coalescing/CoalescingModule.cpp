//===- CoalescingModule.cpp - the coalescing-* rules ----------------------===//
#include "CoalescingMatmulTile.h"
#include "CoalescingSmemStaging.h"
#include "CoalescingStridedAccess.h"
#include "CoalescingThreadMappingSwap.h"
#include "CoalescingTransposeTile.h"
#include "CoalescingUncoalescedAccess.h"
#include "CoalescingWarpPerRow.h"

namespace cudal1 {
static RuleModule<CoalescingMatmulTile, CoalescingSmemStaging,
                  CoalescingStridedAccess, CoalescingThreadMappingSwap,
                  CoalescingTransposeTile, CoalescingUncoalescedAccess,
                  CoalescingWarpPerRow>
    CoalescingRules;
} // namespace cudal1
