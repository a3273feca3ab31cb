//===- Variant.h - a model-proposed variant of a kernel and its fate -*- C++ -*-===//
//
// Plain data. Every reply of the model that gives a usable kernel becomes a
// Variant: its source, where it came from (model, round, index) and what the
// verifier made of it (status, speedup, reason). Variants are kept in the
// variant store (VariantStore.h), shown to the model as exemplars and
// failures (Exemplars.h), and the best accepted one is written back.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LLM_VARIANT_H
#define CUDAL1_LLM_VARIANT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace cudal1 {

enum class VariantStatus {
  Accepted,      ///< correct and faster, measured on a GPU
  NotFaster,     ///< correct, measured, not fast enough to accept
  Rejected,      ///< measured: incorrect, cheating, hung, crashed
  CompileFailed, ///< NVRTC refused it
  Compiled,      ///< compiled, not measured (no GPU, or --verify=compile)
  Invalid,       ///< the reply could not be used (format, signature, host code)
};

const char *statusName(VariantStatus S);
std::optional<VariantStatus> statusFromName(llvm::StringRef S);

struct Variant {
  std::string Kernel;       ///< qualified name
  std::string File;         ///< the kernel's file
  std::string OriginalHash; ///< hashText() of the original definition
  std::string SourceHash;   ///< hashText(normalizeSource(Source))
  std::string Source;       ///< the kernel definition (+ new device helpers)
  /// The launch change the reply asked for ("grid=...; block=..."), "" = the
  /// original's grid and block.
  std::string Launch;
  std::string Model;
  unsigned Round = 0, Index = 0;
  VariantStatus Status = VariantStatus::Invalid;
  std::optional<double> Speedup, CiLow, CiHigh;
  std::string RejectKind; ///< the verifier's category, "compile", "reply"
  std::string Reason;     ///< one sentence
  std::string Detail;     ///< compile log excerpt, the buffers that differed
  std::string Exactness;  ///< how it was compared
  std::string Gpu, Arch;  ///< where it was measured ("" = not measured)
  std::string Commit;     ///< of the project when it was verified
  std::string Date;       ///< UTC, ISO 8601
  /// The verifier's full verdict (results JSON of lib/Verify), when measured.
  std::optional<llvm::json::Value> Verdict;

  /// "llm:<model> round <r> #<i>".
  std::string origin() const;
  /// Correct and timed on a GPU (has a speedup that means something).
  bool measured() const {
    return (Status == VariantStatus::Accepted ||
            Status == VariantStatus::NotFaster) &&
           Speedup.has_value();
  }
  /// Something to learn from: rejected, not compiled, or not usable.
  bool failed() const {
    return Status == VariantStatus::Rejected ||
           Status == VariantStatus::CompileFailed ||
           Status == VariantStatus::Invalid;
  }
};

llvm::json::Value toJson(const Variant &V);
/// False with the problem in \p Why.
bool fromJson(const llvm::json::Value &J, Variant &V, std::string &Why);

/// SHA-256 of \p Text, hex.
std::string hashText(llvm::StringRef Text);

} // namespace cudal1

#endif
