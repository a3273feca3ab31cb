//===- Rule.cpp - rule registry, glob lists, per-rule options -------------===//
#include "cudal1/Analysis/Rule.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <mutex>
#include <set>

using namespace llvm;

namespace cudal1 {

Check::~Check() = default;

json::Object toJSON(const RuleInfo &R) {
  json::Object Opts;
  for (auto &KV : R.DefaultOptions)
    Opts[KV.first] = KV.second;
  json::Object Doc{{"detects", R.Doc.Detects},
                   {"why", R.Doc.WhySlow},
                   {"example", R.Doc.Example},
                   {"fixed", R.Doc.Fixed},
                   {"fix", R.Doc.Fix}};
  return json::Object{{"id", R.Id},
                      {"category", R.Category},
                      {"exactness", toString(R.Exactness)},
                      {"exactnessNote", R.ExactnessNote},
                      {"origin", R.Origin},
                      {"summary", R.Summary},
                      {"help", R.Help},
                      {"options", std::move(Opts)},
                      {"doc", std::move(Doc)}};
}

GlobList::GlobList(StringRef Globs) {
  SmallVector<StringRef, 16> Parts;
  Globs.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    P = P.trim(" \t\r\n");
    if (P.empty())
      continue;
    bool Pos = !P.consume_front("-");
    P = P.trim(" \t\r\n");
    if (P.empty())
      continue;
    Items.push_back({Pos, P.str()});
  }
}

/// '*' matches any (possibly empty) run of characters.
static bool globMatch(StringRef Pat, StringRef S) {
  // Iterative wildcard matching with backtracking to the last '*'.
  size_t P = 0, I = 0, StarP = StringRef::npos, StarI = 0;
  while (I < S.size()) {
    if (P < Pat.size() && Pat[P] == '*') {
      StarP = P++;
      StarI = I;
    } else if (P < Pat.size() && Pat[P] == S[I]) {
      ++P;
      ++I;
    } else if (StarP != StringRef::npos) {
      P = StarP + 1;
      I = ++StarI;
    } else {
      return false;
    }
  }
  while (P < Pat.size() && Pat[P] == '*')
    ++P;
  return P == Pat.size();
}

bool GlobList::contains(StringRef Id) const {
  for (auto It = Items.rbegin(); It != Items.rend(); ++It)
    if (globMatch(It->Pattern, Id))
      return It->Positive;
  return false;
}

std::vector<std::string>
GlobList::unmatched(const std::vector<std::string> &Ids) const {
  std::vector<std::string> Out;
  for (const Item &I : Items)
    if (llvm::none_of(Ids, [&](const std::string &Id) {
          return globMatch(I.Pattern, Id);
        }) &&
        !llvm::is_contained(Out, I.Pattern))
      Out.push_back(I.Pattern);
  return Out;
}

std::string CheckOptions::get(StringRef Rule, StringRef Key,
                              StringRef Default) const {
  auto It = Values.find((Rule + "." + Key).str());
  return It == Values.end() ? Default.str() : It->second;
}

int64_t CheckOptions::getInt(StringRef Rule, StringRef Key,
                             int64_t Default) const {
  auto It = Values.find((Rule + "." + Key).str());
  if (It == Values.end())
    return Default;
  int64_t V;
  if (StringRef(It->second).trim().getAsInteger(0, V))
    return Default;
  return V;
}

bool CheckOptions::getBool(StringRef Rule, StringRef Key, bool Default) const {
  auto It = Values.find((Rule + "." + Key).str());
  if (It == Values.end())
    return Default;
  std::string V = StringRef(It->second).trim().lower();
  if (V == "true" || V == "1" || V == "yes" || V == "on")
    return true;
  if (V == "false" || V == "0" || V == "no" || V == "off")
    return false;
  return Default;
}

namespace {
struct Registry {
  std::mutex M;
  std::vector<std::pair<std::string, CheckRegistry::Factory>> Factories;
  std::vector<std::string> Duplicates;
  std::vector<RuleLoader> Loaders;
  bool LoadersRun = false;
};
Registry &registry() {
  static Registry R;
  return R;
}
} // namespace

void CheckRegistry::add(Factory F) {
  RuleInfo Info = F()->info();
  std::string Id = Info.Id;
  Registry &R = registry();
  std::lock_guard<std::mutex> L(R.M);
  for (auto &E : R.Factories)
    if (E.first == Id) {
      R.Duplicates.push_back(Id);
      return;
    }
  R.Factories.emplace_back(std::move(Id), std::move(F));
}

void CheckRegistry::addLoader(RuleLoader L) {
  Registry &R = registry();
  std::lock_guard<std::mutex> G(R.M);
  R.Loaders.push_back(std::move(L));
}

unsigned CheckRegistry::runLoaders(const RuleLoadOptions &Opts) {
  std::vector<RuleLoader> Loaders;
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> G(R.M);
    if (R.LoadersRun)
      return 0;
    R.LoadersRun = true;
    Loaders = R.Loaders;
  }
  unsigned Failed = 0;
  for (auto &L : Loaders)
    Failed += L(Opts);
  return Failed;
}

std::vector<RuleInfo> CheckRegistry::rules() {
  std::vector<Factory> Fs;
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> G(R.M);
    for (auto &E : R.Factories)
      Fs.push_back(E.second);
  }
  std::vector<RuleInfo> Out;
  for (auto &F : Fs)
    Out.push_back(F()->info());
  std::sort(Out.begin(), Out.end(),
            [](const RuleInfo &A, const RuleInfo &B) { return A.Id < B.Id; });
  return Out;
}

std::vector<std::unique_ptr<Check>>
CheckRegistry::create(const GlobList &Enabled) {
  std::vector<std::pair<std::string, Factory>> Fs;
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> G(R.M);
    Fs = R.Factories;
  }
  std::sort(Fs.begin(), Fs.end(),
            [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<std::unique_ptr<Check>> Out;
  for (auto &E : Fs)
    if (Enabled.contains(E.first))
      Out.push_back(E.second());
  return Out;
}

std::vector<std::string> CheckRegistry::duplicates() {
  Registry &R = registry();
  std::lock_guard<std::mutex> G(R.M);
  return R.Duplicates;
}

} // namespace cudal1
