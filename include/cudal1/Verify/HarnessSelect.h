//===- HarnessSelect.h - which harness spec applies to a kernel -*- C++ -*-===//
//
// Harness specs come from --harness=<file>, from the `Harness:` entry of
// .cuda-l1.yaml (inline or a file name), or are inferred from a launch site
// (docs/harness.md). These helpers decide whether a spec has an entry for a
// kernel, and word errors of an inline spec in a configuration. Plain data.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_HARNESSSELECT_H
#define CUDAL1_VERIFY_HARNESSSELECT_H

#include <optional>
#include <string>

namespace cudal1 {

/// The kernel name to hand parseHarnessSpec for \p QualifiedKernel
/// ("ns::k") when the spec \p Text has an entry for it: the key under
/// `kernels:` that names it (qualified or simple name), or the simple name
/// when the spec is for one kernel (`kernel:` naming it, or no name at all).
/// Nothing when the spec is for other kernels only. A spec that is not valid
/// YAML counts as covering every kernel, so that its parser reports the
/// error.
std::optional<std::string> harnessSpecEntry(const std::string &Text,
                                            const std::string &QualifiedKernel);

/// "ns::k" -> "k".
std::string simpleKernelName(const std::string &QualifiedKernel);

/// An error of parseHarnessSpec on the `Harness:` value of a configuration
/// ("<config>:<line>:<col>: <field>: <problem>") with the field prefixed by
/// "Harness." ("... Harness.kernels.k.params.x: ..."), or "Harness: " before
/// a problem without a field.
std::string configHarnessError(const std::string &Error,
                               const std::string &ConfigPath);

} // namespace cudal1

#endif
