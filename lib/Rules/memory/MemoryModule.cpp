//===- MemoryModule.cpp - the memory-* rules ------------------------------===//
#include "MemoryAtomicContention.h"
#include "MemoryConstPointer.h"
#include "MemoryGlobalAtomicHistogram.h"
#include "MemoryHoistInvariantLoad.h"
#include "MemoryLdg.h"
#include "MemoryRegisterAccumulation.h"
#include "MemoryRestrict.h"
#include "MemorySharedBankConflict.h"
#include "MemoryVectorizeFloat4.h"

namespace cudal1 {
static RuleModule<MemoryAtomicContention, MemoryConstPointer,
                  MemoryGlobalAtomicHistogram, MemoryHoistInvariantLoad,
                  MemoryLdg, MemoryRegisterAccumulation, MemoryRestrict,
                  MemorySharedBankConflict, MemoryVectorizeFloat4>
    MemoryRules;
} // namespace cudal1
