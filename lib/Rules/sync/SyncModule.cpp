//===- SyncModule.cpp - the sync-* rules ----------------------------------===//
#include "SyncSequentialReduction.h"
#include "SyncSharedHistogram.h"
#include "SyncWarpAtomicReduction.h"

namespace cudal1 {
static RuleModule<SyncSequentialReduction, SyncSharedHistogram,
                  SyncWarpAtomicReduction>
    SyncRules;
} // namespace cudal1
