//===- SyncModule.cpp - the sync-* rules ----------------------------------===//
#include "SyncSequentialReduction.h"
#include "SyncWarpAtomicReduction.h"

namespace cudal1 {
static RuleModule<SyncSequentialReduction, SyncWarpAtomicReduction> SyncRules;
} // namespace cudal1
