//===- HarnessSelect.cpp - which harness spec applies to a kernel ---------===//
#include "cudal1/Verify/HarnessSelect.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace llvm;

namespace cudal1 {

std::string simpleKernelName(const std::string &QualifiedKernel) {
  size_t P = QualifiedKernel.rfind("::");
  return P == std::string::npos ? QualifiedKernel
                                : QualifiedKernel.substr(P + 2);
}

static bool scalar(yaml::Node *N, std::string &Out) {
  auto *S = dyn_cast_or_null<yaml::ScalarNode>(N);
  if (!S)
    return false;
  SmallString<64> Buf;
  Out = S->getValue(Buf).str();
  return true;
}

std::optional<std::string>
harnessSpecEntry(const std::string &Text, const std::string &QualifiedKernel) {
  std::string Simple = simpleKernelName(QualifiedKernel);
  SourceMgr SM;
  bool Bad = false;
  SM.setDiagHandler([](const SMDiagnostic &, void *Ctx) {
    *static_cast<bool *>(Ctx) = true;
  }, &Bad);
  yaml::Stream Stream(Text, SM);
  auto Doc = Stream.begin();
  if (Doc == Stream.end())
    return Simple;
  auto *Map = dyn_cast_or_null<yaml::MappingNode>(Doc->getRoot());
  if (!Map || Bad)
    return Simple;
  std::optional<std::string> Named; // kernel: <name>
  bool HasKernels = false;
  std::optional<std::string> Entry;
  for (yaml::KeyValueNode &KV : *Map) {
    std::string Key;
    if (!scalar(KV.getKey(), Key)) {
      if (Bad)
        return Simple;
      continue;
    }
    if (Key == "kernels") {
      HasKernels = true;
      auto *KS = dyn_cast_or_null<yaml::MappingNode>(KV.getValue());
      if (!KS)
        return Simple; // malformed: let the parser say so
      for (yaml::KeyValueNode &E : *KS) {
        std::string Name;
        if (scalar(E.getKey(), Name) && !Entry &&
            (Name == QualifiedKernel || Name == Simple))
          Entry = Name;
        if (E.getValue())
          E.getValue()->skip();
      }
    } else if (Key == "kernel") {
      std::string N;
      if (scalar(KV.getValue(), N))
        Named = N;
    } else if (KV.getValue()) {
      KV.getValue()->skip();
    }
    if (Bad)
      return Simple;
  }
  if (Bad)
    return Simple;
  if (HasKernels)
    return Entry;
  if (Named)
    return *Named == QualifiedKernel || *Named == Simple
               ? std::optional<std::string>(*Named)
               : std::nullopt;
  return Simple;
}

std::string configHarnessError(const std::string &Error,
                               const std::string &ConfigPath) {
  StringRef E(Error);
  if (!E.starts_with(ConfigPath + ":"))
    return "Harness: " + Error;
  // Skip "<path>:<line>:<col>: ".
  StringRef Rest = E.drop_front(ConfigPath.size() + 1);
  for (int I = 0; I < 2; ++I) {
    size_t C = Rest.find(':');
    unsigned N;
    if (C == StringRef::npos || Rest.take_front(C).getAsInteger(10, N))
      return "Harness: " + Error;
    Rest = Rest.drop_front(C + 1);
  }
  Rest = Rest.ltrim();
  size_t Pos = E.size() - Rest.size();
  // A field is one word (no spaces) followed by ": ".
  size_t Colon = Rest.find(": ");
  bool HasField = Colon != StringRef::npos && Colon > 0 &&
                  !Rest.take_front(Colon).contains(' ');
  std::string Out = E.take_front(Pos).str();
  Out += HasField ? "Harness." : "Harness: ";
  Out += Rest.str();
  return Out;
}

} // namespace cudal1
