//===- CaptureFormat.cpp - names shared by capture writer and readers -----===//
//
// Plain C++: compiled into lib/Capture and into the standalone
// cuda-l1-capture tools (tools/cuda-l1-capture/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "cudal1/Capture/CaptureFormat.h"

#include <cctype>

namespace cudal1 {

static bool isHex8(const std::string &S, size_t Pos) {
  if (Pos + 8 > S.size())
    return false;
  for (size_t I = Pos; I < Pos + 8; ++I)
    if (!std::isxdigit(static_cast<unsigned char>(S[I])))
      return false;
  return true;
}

/// Is S[Begin, Begin+Len) an anonymous-namespace identifier, in Clang's
/// spelling (_GLOBAL__N_1) or EDG's (_GLOBAL__N__<8 hex>_..._<8 hex>)?
static bool isAnonNamespaceId(const std::string &S, size_t Begin, size_t Len) {
  static const std::string Prefix = "_GLOBAL__N_";
  if (Begin + Len > S.size() || Len < Prefix.size() + 1 ||
      S.compare(Begin, Prefix.size(), Prefix) != 0)
    return false;
  if (Len == Prefix.size() + 1 && S[Begin + Prefix.size()] == '1')
    return true;
  // EDG: "_GLOBAL__N__" + 8 hex + ... + "_" + 8 hex.
  return Len >= Prefix.size() + 1 + 8 + 1 + 8 &&
         S[Begin + Prefix.size()] == '_' &&
         isHex8(S, Begin + Prefix.size() + 1) && S[Begin + Len - 9] == '_' &&
         isHex8(S, Begin + Len - 8);
}

std::string normalizeKernelName(const std::string &In) {
  static const std::string Needle = "_GLOBAL__N_";
  static const std::string Clang = "12_GLOBAL__N_1";
  // Internal linkage: Clang writes _ZL5skernPf, nvcc's module _Z5skernPf.
  std::string Mangled = In;
  if (Mangled.size() > 3 && Mangled.compare(0, 3, "_ZL") == 0 &&
      std::isdigit(static_cast<unsigned char>(Mangled[3])))
    Mangled.erase(2, 1);
  std::string Out;
  size_t Copied = 0, Pos = 0;
  while ((Pos = Mangled.find(Needle, Pos)) != std::string::npos) {
    // The <source-name> length precedes the identifier; the digit run may
    // also hold trailing digits of the previous identifier, so try each
    // suffix of it (shortest first) and keep the one that spans exactly an
    // anonymous-namespace identifier.
    size_t DigitsBegin = Pos;
    while (DigitsBegin > 0 &&
           std::isdigit(static_cast<unsigned char>(Mangled[DigitsBegin - 1])))
      --DigitsBegin;
    bool Replaced = false;
    for (size_t LenBegin = Pos; LenBegin-- > DigitsBegin && Pos - LenBegin <= 4;) {
      if (Mangled[LenBegin] == '0')
        continue;
      size_t Len = std::stoul(Mangled.substr(LenBegin, Pos - LenBegin));
      if (!isAnonNamespaceId(Mangled, Pos, Len))
        continue;
      Out.append(Mangled, Copied, LenBegin - Copied);
      Out += Clang;
      Copied = Pos + Len;
      Pos = Copied;
      Replaced = true;
      break;
    }
    if (!Replaced)
      Pos += Needle.size();
  }
  Out.append(Mangled, Copied, std::string::npos);
  return Out;
}

bool isContainedRelativePath(const std::string &Path) {
  if (Path.empty() || Path[0] == '/' || Path.find('\0') != std::string::npos)
    return false;
  size_t Begin = 0;
  while (Begin <= Path.size()) {
    size_t End = Path.find('/', Begin);
    if (End == std::string::npos)
      End = Path.size();
    std::string Part = Path.substr(Begin, End - Begin);
    if (Part == "..")
      return false;
    Begin = End + 1;
  }
  return true;
}

} // namespace cudal1
