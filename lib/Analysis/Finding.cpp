//===- Finding.cpp - findings as plain data -------------------------------===//
#include "cudal1/Analysis/Finding.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace cudal1 {

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
