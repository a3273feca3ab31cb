//===- Variant.cpp - a model-proposed variant as JSON ---------------------===//
#include "cudal1/LLM/Variant.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;

namespace cudal1 {

namespace {
struct StatusName {
  VariantStatus S;
  const char *Name;
} const StatusNames[] = {
    {VariantStatus::Accepted, "accepted"},
    {VariantStatus::NotFaster, "not-faster"},
    {VariantStatus::Rejected, "rejected"},
    {VariantStatus::CompileFailed, "compile-failed"},
    {VariantStatus::Compiled, "compiled"},
    {VariantStatus::Invalid, "invalid"},
};
} // namespace

const char *statusName(VariantStatus S) {
  for (const StatusName &N : StatusNames)
    if (N.S == S)
      return N.Name;
  return "invalid";
}

std::optional<VariantStatus> statusFromName(StringRef S) {
  for (const StatusName &N : StatusNames)
    if (S == N.Name)
      return N.S;
  return std::nullopt;
}

std::string Variant::origin() const {
  return "llm:" + Model + " round " + std::to_string(Round) + " #" +
         std::to_string(Index);
}

json::Value toJson(const Variant &V) {
  json::Object O{{"kernel", V.Kernel},
                 {"file", V.File},
                 {"original_hash", V.OriginalHash},
                 {"source_hash", V.SourceHash},
                 {"source", V.Source},
                 {"launch", V.Launch},
                 {"model", V.Model},
                 {"round", int64_t(V.Round)},
                 {"index", int64_t(V.Index)},
                 {"origin", V.origin()},
                 {"status", statusName(V.Status)},
                 {"reject_kind", V.RejectKind},
                 {"reason", V.Reason},
                 {"detail", V.Detail},
                 {"exactness", V.Exactness},
                 {"gpu", V.Gpu},
                 {"arch", V.Arch},
                 {"commit", V.Commit},
                 {"date", V.Date}};
  if (V.Speedup)
    O["speedup"] = *V.Speedup;
  if (V.CiLow)
    O["ci_low"] = *V.CiLow;
  if (V.CiHigh)
    O["ci_high"] = *V.CiHigh;
  if (V.Verdict)
    O["verdict"] = *V.Verdict;
  return json::Value(std::move(O));
}

bool fromJson(const json::Value &J, Variant &V, std::string &Why) {
  const json::Object *O = J.getAsObject();
  if (!O) {
    Why = "not a JSON object";
    return false;
  }
  auto Str = [&](const char *K, std::string &To, bool Required) {
    if (auto S = O->getString(K)) {
      To = S->str();
      return true;
    }
    if (Required)
      Why = std::string("no string '") + K + "'";
    return !Required;
  };
  std::string Status;
  if (!Str("kernel", V.Kernel, true) || !Str("source", V.Source, true) ||
      !Str("original_hash", V.OriginalHash, true) ||
      !Str("source_hash", V.SourceHash, true) ||
      !Str("status", Status, true))
    return false;
  std::optional<VariantStatus> S = statusFromName(Status);
  if (!S) {
    Why = "unknown status '" + Status + "'";
    return false;
  }
  V.Status = *S;
  Str("file", V.File, false);
  Str("launch", V.Launch, false);
  Str("model", V.Model, false);
  Str("reject_kind", V.RejectKind, false);
  Str("reason", V.Reason, false);
  Str("detail", V.Detail, false);
  Str("exactness", V.Exactness, false);
  Str("gpu", V.Gpu, false);
  Str("arch", V.Arch, false);
  Str("commit", V.Commit, false);
  Str("date", V.Date, false);
  V.Round = unsigned(O->getInteger("round").value_or(0));
  V.Index = unsigned(O->getInteger("index").value_or(0));
  if (auto D = O->getNumber("speedup"))
    V.Speedup = *D;
  if (auto D = O->getNumber("ci_low"))
    V.CiLow = *D;
  if (auto D = O->getNumber("ci_high"))
    V.CiHigh = *D;
  if (const json::Value *Vd = O->get("verdict"))
    V.Verdict = *Vd;
  return true;
}

std::string hashText(StringRef Text) {
  SHA256 H;
  H.update(Text);
  std::array<uint8_t, 32> D = H.final();
  return toHex(D, /*LowerCase=*/true);
}

} // namespace cudal1
