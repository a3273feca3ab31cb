//===- LaunchModule.cpp - the launch-* rules ------------------------------===//
#include "LaunchBounds.h"
#include "LaunchPartialWarp.h"
#include "LaunchSmallBlock.h"
#include "LaunchSmallGrid.h"

namespace cudal1 {
static RuleModule<LaunchBounds, LaunchPartialWarp, LaunchSmallBlock,
                  LaunchSmallGrid>
    LaunchRules;
} // namespace cudal1
