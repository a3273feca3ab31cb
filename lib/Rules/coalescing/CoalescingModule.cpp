//===- CoalescingModule.cpp - the coalescing-* rules ----------------------===//
#include "CoalescingColumnSplit.h"
#include "CoalescingMatmulTile.h"
#include "CoalescingSmemStaging.h"
#include "CoalescingStridedAccess.h"
#include "CoalescingThreadMappingSwap.h"
#include "CoalescingTransposeTile.h"
#include "CoalescingUncoalescedAccess.h"
#include "CoalescingWarpPerRow.h"
#include "CoalescingWarpPerRowPasses.h"

namespace cudal1 {
static RuleModule<CoalescingColumnSplit, CoalescingMatmulTile, CoalescingSmemStaging,
                  CoalescingStridedAccess, CoalescingThreadMappingSwap,
                  CoalescingTransposeTile, CoalescingUncoalescedAccess,
                  CoalescingWarpPerRow, CoalescingWarpPerRowPasses>
    CoalescingRules;
} // namespace cudal1
