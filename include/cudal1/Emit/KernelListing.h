//===- KernelListing.h - --list-kernels output -----------------*- C++ -*-===//
#ifndef CUDAL1_EMIT_KERNELLISTING_H
#define CUDAL1_EMIT_KERNELLISTING_H

#include "cudal1/Model/KernelInfo.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace cudal1 {

/// Version of the JSON document written by --list-kernels --format=json.
/// Bumped only on incompatible changes (see docs/kernel-list-json.md).
constexpr int KernelListSchemaVersion = 1;

void printKernelListText(const ProjectModel &M, llvm::raw_ostream &OS);
llvm::json::Value kernelListJson(const ProjectModel &M);

llvm::json::Value toJson(const KernelInfo &K);
llvm::json::Value toJson(const LaunchSite &L);
llvm::json::Value toJson(const ParamInfo &P);
llvm::json::Value toJson(const SourceLoc &L);

} // namespace cudal1

#endif
