//===- HarnessSelect.cpp - which harness spec applies to a kernel ---------===//
#include "cudal1/Verify/HarnessSelect.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "cudal1/Support/Yaml.h"

#include <map>
#include <vector>

using namespace llvm;

namespace cudal1 {

std::string simpleKernelName(const std::string &QualifiedKernel) {
  size_t P = QualifiedKernel.rfind("::");
  return P == std::string::npos ? QualifiedKernel
                                : QualifiedKernel.substr(P + 2);
}

namespace {
/// What harnessSpecEntry needs of a spec: its `kernel:` and the names under
/// `kernels:`; every other key is accepted unread (the spec parser checks
/// them).
struct KernelNames {
  std::vector<std::string> Names;
  std::map<std::string, AnyValue> Values;
};
struct SpecOutline {
  std::string Kernel;
  KernelNames Kernels;
  bool HasKernel = false, HasKernels = false;
  std::map<std::string, AnyValue> Other;
};
} // namespace
} // namespace cudal1

namespace llvm {
namespace yaml {
template <> struct CustomMappingTraits<cudal1::KernelNames> {
  static void inputOne(IO &IO, StringRef Key, cudal1::KernelNames &K) {
    K.Names.push_back(Key.str());
    IO.mapRequired(Key.str().c_str(), K.Values[Key.str()]);
  }
  static void output(IO &, cudal1::KernelNames &) {}
};
template <> struct CustomMappingTraits<cudal1::SpecOutline> {
  static void inputOne(IO &IO, StringRef Key, cudal1::SpecOutline &S) {
    if (Key == "kernel") {
      S.HasKernel = true;
      IO.mapRequired("kernel", S.Kernel);
    } else if (Key == "kernels") {
      S.HasKernels = true;
      IO.mapRequired("kernels", S.Kernels);
    }
    else
      IO.mapRequired(Key.str().c_str(), S.Other[Key.str()]);
  }
  static void output(IO &, cudal1::SpecOutline &) {}
};
} // namespace yaml
} // namespace llvm

namespace cudal1 {

std::optional<std::string>
harnessSpecEntry(const std::string &Text, const std::string &QualifiedKernel) {
  std::string Simple = simpleKernelName(QualifiedKernel);
  SpecOutline Spec;
  YamlReader R(Text, "spec");
  if (!R.read(Spec))
    return Simple; // malformed: let the spec parser say so
  if (Spec.HasKernels) {
    for (const std::string &Name : Spec.Kernels.Names)
      if (Name == QualifiedKernel || Name == Simple)
        return Name;
    return std::nullopt;
  }
  if (Spec.HasKernel)
    return Spec.Kernel == QualifiedKernel || Spec.Kernel == Simple
               ? std::optional<std::string>(Spec.Kernel)
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
