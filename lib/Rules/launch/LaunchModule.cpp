//===- LaunchModule.cpp - the launch-* rules ------------------------------===//
#include "LaunchBounds.h"
#include "LaunchCoarsenRows.h"
#include "LaunchCopyBackPingpong.h"
#include "LaunchDistributeLoop.h"
#include "LaunchFuseElementwise.h"
#include "LaunchIdleBlocks.h"
#include "LaunchLoopSync.h"
#include "LaunchPartialWarp.h"
#include "LaunchRedundantThreads.h"
#include "LaunchSingleThreadReduction.h"
#include "LaunchStepDoublingScan.h"
#include "LaunchSmallBlock.h"
#include "LaunchSmallGrid.h"

namespace cudal1 {
static RuleModule<LaunchBounds, LaunchCoarsenRows, LaunchCopyBackPingpong, LaunchDistributeLoop, LaunchFuseElementwise, LaunchIdleBlocks,
                  LaunchLoopSync, LaunchPartialWarp,
                  LaunchRedundantThreads, LaunchSingleThreadReduction,
                  LaunchStepDoublingScan,
                  LaunchSmallBlock, LaunchSmallGrid>
    LaunchRules;
} // namespace cudal1
