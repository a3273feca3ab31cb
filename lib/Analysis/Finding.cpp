//===- Finding.cpp - findings as plain data -------------------------------===//
#include "cudal1/Analysis/Finding.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace cudal1 {

const char *toString(Exactness E) {
  switch (E) {
  case Exactness::None:
    return "none";
  case Exactness::Bitwise:
    return "bitwise";
  case Exactness::Ulp:
    return "ulp";
  case Exactness::Reassociating:
    return "reassociating";
  case Exactness::FastMath:
    return "fast-math";
  }
  return "none";
}

std::optional<Exactness> exactnessFromString(const std::string &S) {
  for (Exactness E : {Exactness::None, Exactness::Bitwise, Exactness::Ulp,
                      Exactness::Reassociating, Exactness::FastMath})
    if (S == toString(E))
      return E;
  return std::nullopt;
}

bool TextEdit::operator<(const TextEdit &O) const {
  return std::tie(File, Offset, Length, Replacement) <
         std::tie(O.File, O.Offset, O.Length, O.Replacement);
}
bool TextEdit::operator==(const TextEdit &O) const {
  return File == O.File && Offset == O.Offset && Length == O.Length &&
         Replacement == O.Replacement;
}

std::string Finding::category() const {
  return RuleId.substr(0, RuleId.find('-'));
}

std::string Finding::key() const {
  return Loc.str() + "|" + RuleId + "|" + Message;
}

void sortAndDedup(std::vector<Finding> &Findings) {
  std::stable_sort(Findings.begin(), Findings.end(),
                   [](const Finding &A, const Finding &B) {
                     return std::tie(A.Loc, A.RuleId) <
                            std::tie(B.Loc, B.RuleId);
                   });
  std::set<std::string> Seen;
  std::vector<Finding> Out;
  for (Finding &F : Findings)
    if (Seen.insert(F.key()).second)
      Out.push_back(std::move(F));
  Findings = std::move(Out);
}

} // namespace cudal1
