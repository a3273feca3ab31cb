//===- SyncModule.cpp - the sync-* rules ----------------------------------===//
#include "SyncSequentialReduction.h"
#include "SyncSharedHistogram.h"
#include "SyncWarpAtomicReduction.h"
#include "SyncWarpShuffleTree.h"

namespace cudal1 {
static RuleModule<SyncSequentialReduction, SyncSharedHistogram,
                  SyncWarpAtomicReduction, SyncWarpShuffleTree>
    SyncRules;
} // namespace cudal1
